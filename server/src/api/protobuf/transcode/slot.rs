//! One value written as its field: scalars by the schema's type and format
//! (timestamps, quantities, int-or-string, bytes), objects as nested
//! messages.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::de::{self, MapAccess, Visitor};
use serde_json::Number;

use super::object::Object;
use super::{Place, unplaced};
use crate::api::protobuf::encode;
use crate::api::protobuf::wire::{FIXED64, close_nested, open_nested, put_bytes, put_int, put_tag};
use crate::api::schema::{Schema, SchemaType};

/// Where one value goes: its schema, field number and output.
pub(super) struct Slot<'s, 'o> {
    pub(super) schema: &'s Schema,
    pub(super) number: u32,
    pub(super) out: &'o mut Vec<u8>,
}

impl Slot<'_, '_> {
    pub(super) fn text<E: de::Error>(self, s: &str) -> Result<(), E> {
        let Slot {
            schema,
            number,
            out,
        } = self;
        if schema.time_precision.is_some() {
            let (seconds, nanos) = encode::timestamp(s).ok_or_else(unplaced)?;
            let at = open_nested(out, number);
            put_int(out, 1, seconds);
            put_int(out, 2, nanos);
            close_nested(out, at);
            return Ok(());
        }
        if encode::quantity(schema) {
            let at = open_nested(out, number);
            put_bytes(out, 1, s.as_bytes());
            close_nested(out, at);
            return Ok(());
        }
        if schema.int_or_string {
            let at = open_nested(out, number);
            put_int(out, 1, 1);
            put_bytes(out, 3, s.as_bytes());
            close_nested(out, at);
            return Ok(());
        }
        if schema.ty != Some(SchemaType::String) {
            return Err(unplaced());
        }
        if schema.format.as_deref() == Some("byte") {
            let raw = STANDARD.decode(s).map_err(|_| unplaced())?;
            put_bytes(out, number, &raw);
        } else {
            put_bytes(out, number, s.as_bytes());
        }
        Ok(())
    }

    pub(super) fn number<E: de::Error>(self, n: &Number) -> Result<(), E> {
        let Slot {
            schema,
            number,
            out,
        } = self;
        if schema.time_precision.is_some() {
            return Err(unplaced());
        }
        if encode::quantity(schema) {
            let at = open_nested(out, number);
            put_bytes(out, 1, n.to_string().as_bytes());
            close_nested(out, at);
            return Ok(());
        }
        if schema.int_or_string {
            let i = n
                .as_i64()
                .and_then(|i| i32::try_from(i).ok())
                .ok_or_else(unplaced)?;
            let at = open_nested(out, number);
            put_int(out, 1, 0);
            put_int(out, 2, i64::from(i));
            close_nested(out, at);
            return Ok(());
        }
        match schema.ty {
            Some(SchemaType::Integer) => {
                put_int(out, number, n.as_i64().ok_or_else(unplaced)?);
                Ok(())
            }
            Some(SchemaType::Number) => {
                let f = n.as_f64().ok_or_else(unplaced)?;
                put_tag(out, number, FIXED64);
                out.extend_from_slice(&f.to_le_bytes());
                Ok(())
            }
            _ => Err(unplaced()),
        }
    }

    pub(super) fn boolean<E: de::Error>(self, b: bool) -> Result<(), E> {
        let plain = self.schema.time_precision.is_none() && !self.schema.int_or_string;
        if !plain || self.schema.ty != Some(SchemaType::Boolean) {
            return Err(unplaced());
        }
        put_int(self.out, self.number, i64::from(b));
        Ok(())
    }

    /// An object as a nested message.
    pub(super) fn object<'de, A: MapAccess<'de>>(
        self,
        map: A,
        place: Place<'_>,
    ) -> Result<(), A::Error> {
        let Slot {
            schema,
            number,
            out,
        } = self;
        let plain = schema.time_precision.is_none() && !schema.int_or_string;
        if !plain || schema.ty != Some(SchemaType::Object) {
            return Err(unplaced());
        }
        let at = open_nested(out, number);
        Object {
            schema,
            place,
            out: &mut *out,
        }
        .visit_map(map)?;
        close_nested(out, at);
        Ok(())
    }
}
