//! Stored JSON bytes → protobuf message in one pass. A serde visitor driven
//! by the schema reads the stored object and writes each field as it meets
//! it, with no `serde_json::Value` in between (building one per item was
//! most of a cold protobuf list's time). It follows `encode` rule for rule,
//! so its bytes are the same; whatever it cannot place makes it give up,
//! and the caller takes the `Value` path, which encodes or says why not.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

use super::TYPE_META;
// Free-form values (`encode::free_form`) are rare and small: they go
// through a `Value` and `encode` itself.
use super::encode::{self, Path, free_form};
use super::wire::{FIXED64, close_nested, open_nested, put_bytes, put_int, put_tag};
use crate::api::schema::{Schema, SchemaType};

/// The transcoder met something it does not place (the `Value` path will
/// either encode it or explain why protobuf cannot).
#[derive(Debug, PartialEq, Eq)]
pub struct Unplaced;

/// Appends the message of the stored object `json` as `Store::decode_served`
/// and `encode_message` would produce it for a kind stored in its served
/// form: `metadata.resourceVersion` reads `resource_version`, and the
/// top-level `apiVersion`/`kind` (the envelope's) are left out. On `Err`
/// nothing was appended.
pub fn stored_message(
    schema: &Schema,
    json: &[u8],
    resource_version: &str,
    out: &mut Vec<u8>,
) -> Result<(), Unplaced> {
    let start = out.len();
    let mut de = serde_json::Deserializer::from_slice(json);
    let root = Object {
        schema,
        place: Place::Root(resource_version),
        out: &mut *out,
    };
    if de.deserialize_map(root).and_then(|()| de.end()).is_err() {
        out.truncate(start);
        return Err(Unplaced);
    }
    Ok(())
}

fn unplaced<E: de::Error>() -> E {
    E::custom("the protobuf transcoder cannot place this value")
}

/// Which object a field list belongs to: what `decode_stored` changes is at
/// the root (`apiVersion`/`kind` skipped, the revision put into `metadata`).
#[derive(Clone, Copy)]
enum Place<'a> {
    Root(&'a str),
    Metadata(&'a str),
    Nested,
}

/// A key of an object, resolved against its schema.
enum Key {
    /// The root's `apiVersion` or `kind`.
    TypeMeta,
    /// `metadata.resourceVersion`, replaced by the revision.
    ResourceVersion,
    /// A declared property, by index; `true` for the root's `metadata`.
    Property(usize, bool),
    /// Not declared: allowed only with a `null` value (which is skipped).
    Undeclared,
}

struct KeySeed<'s> {
    schema: &'s Schema,
    place: Place<'s>,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for KeySeed<'_> {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        match self.place {
            Place::Root(_) if TYPE_META.contains(&key) => return Ok(Key::TypeMeta),
            Place::Metadata(_) if key == "resourceVersion" => return Ok(Key::ResourceVersion),
            _ => {}
        }
        Ok(
            match self
                .schema
                .properties
                .iter()
                .position(|(k, _)| same_name(k, key))
            {
                Some(i) => {
                    Key::Property(i, matches!(self.place, Place::Root(_)) && key == "metadata")
                }
                None => Key::Undeclared,
            },
        )
    }
}

/// `a == b`, deciding most mismatches by length and first byte before a
/// `memcmp` call (this runs for every key of every object of a list).
fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.as_bytes().first() == b.as_bytes().first() && a == b
}

/// Accepts only `null` or, when `empty_object` (an unnumbered free-form
/// field, as `encode::message` skips it), `{}`.
struct NullOnly {
    empty_object: bool,
}

impl<'de> DeserializeSeed<'de> for NullOnly {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for NullOnly {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("null")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        if self.empty_object && map.next_key::<IgnoredAny>()?.is_none() {
            return Ok(());
        }
        Err(unplaced())
    }
}

/// The fields of one object as message `schema` (`encode::message`).
struct Object<'s, 'o> {
    schema: &'s Schema,
    place: Place<'s>,
    out: &'o mut Vec<u8>,
}

impl<'de> Visitor<'de> for Object<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Object { schema, place, out } = self;
        // Stored JSON is serde_json's output and has no repeated keys; one
        // would be collapsed by the `Value` path, so it is left to that path.
        let mut seen = 0u128;
        let mut revision_written = false;
        while let Some(key) = map.next_key_seed(KeySeed { schema, place })? {
            match key {
                Key::TypeMeta => {
                    map.next_value::<IgnoredAny>()?;
                }
                Key::ResourceVersion => {
                    map.next_value::<IgnoredAny>()?;
                    if revision_written {
                        return Err(unplaced());
                    }
                    revision_written = true;
                    put_revision(schema, place, out)?;
                }
                Key::Undeclared => map.next_value_seed(NullOnly {
                    empty_object: false,
                })?,
                Key::Property(i, is_metadata) => {
                    if i < 128 {
                        if seen & (1 << i) != 0 {
                            return Err(unplaced());
                        }
                        seen |= 1 << i;
                    }
                    let field = &schema.properties[i].1;
                    let Some(number) = field.proto else {
                        map.next_value_seed(NullOnly {
                            empty_object: free_form(field),
                        })?;
                        continue;
                    };
                    let revision = match place {
                        Place::Root(rv) if is_metadata => Some(rv),
                        _ => None,
                    };
                    map.next_value_seed(Field {
                        slot: Slot {
                            schema: field,
                            number,
                            out: &mut *out,
                        },
                        revision,
                    })?;
                }
            }
        }
        if !revision_written {
            put_revision(schema, place, out)?;
        }
        Ok(())
    }
}

/// `metadata.resourceVersion` (`decode_stored` sets it, in place or last).
fn put_revision<E: de::Error>(
    schema: &Schema,
    place: Place<'_>,
    out: &mut Vec<u8>,
) -> Result<(), E> {
    let Place::Metadata(rv) = place else {
        return Ok(());
    };
    let field = schema.property("resourceVersion").ok_or_else(unplaced)?;
    let number = field.proto.ok_or_else(unplaced)?;
    let value = Value::String(rv.to_owned());
    encode::repeated_or_single(field, number, &value, Path::Root, out).map_err(|_| unplaced())
}

/// Where one value goes: its schema, field number and output.
struct Slot<'s, 'o> {
    schema: &'s Schema,
    number: u32,
    out: &'o mut Vec<u8>,
}

impl Slot<'_, '_> {
    fn text<E: de::Error>(self, s: &str) -> Result<(), E> {
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

    fn number<E: de::Error>(self, n: &Number) -> Result<(), E> {
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

    fn boolean<E: de::Error>(self, b: bool) -> Result<(), E> {
        let plain = self.schema.time_precision.is_none() && !self.schema.int_or_string;
        if !plain || self.schema.ty != Some(SchemaType::Boolean) {
            return Err(unplaced());
        }
        put_int(self.out, self.number, i64::from(b));
        Ok(())
    }

    /// An object as a nested message.
    fn object<'de, A: MapAccess<'de>>(self, map: A, place: Place<'_>) -> Result<(), A::Error> {
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

/// A field's value, which may be a list (each item a field) or a map (each
/// entry a `{key=1, value=2}` message): `encode::repeated_or_single`.
/// `revision` is set for the root's `metadata`.
struct Field<'s, 'o> {
    slot: Slot<'s, 'o>,
    revision: Option<&'s str>,
}

impl<'de> DeserializeSeed<'de> for Field<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if free_form(self.slot.schema) {
            if self.revision.is_some() {
                return Err(unplaced());
            }
            let value = Value::deserialize(d)?;
            if value.is_null() {
                return Ok(());
            }
            let Slot {
                schema,
                number,
                out,
            } = self.slot;
            return encode::repeated_or_single(schema, number, &value, Path::Root, out)
                .map_err(|_| unplaced());
        }
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Field<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value of the schema")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<(), E> {
        self.slot.boolean(b)
    }

    fn visit_i64<E: de::Error>(self, i: i64) -> Result<(), E> {
        self.slot.number(&Number::from(i))
    }

    fn visit_u64<E: de::Error>(self, u: u64) -> Result<(), E> {
        self.slot.number(&Number::from(u))
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<(), E> {
        self.slot.number(&Number::from_f64(f).ok_or_else(unplaced)?)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<(), E> {
        self.slot.text(s)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Slot {
            schema,
            number,
            out,
        } = self.slot;
        let Some(items) = schema.items.as_deref() else {
            return Err(unplaced());
        };
        while seq
            .next_element_seed(Single {
                slot: Slot {
                    schema: items,
                    number,
                    out: &mut *out,
                },
                null_skips: false,
            })?
            .is_some()
        {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let schema = self.slot.schema;
        let Some(values) = schema
            .additional_properties
            .as_deref()
            .filter(|_| schema.properties.is_empty())
        else {
            let place = self.revision.map_or(Place::Nested, Place::Metadata);
            return self.slot.object(map, place);
        };
        if self.revision.is_some() {
            return Err(unplaced());
        }
        let Slot { number, out, .. } = self.slot;
        while let Some(at) = map.next_key_seed(EntryKey {
            number,
            out: &mut *out,
        })? {
            map.next_value_seed(Single {
                slot: Slot {
                    schema: values,
                    number: 2,
                    out: &mut *out,
                },
                null_skips: true,
            })?;
            close_nested(out, at);
        }
        Ok(())
    }
}

/// A map entry's key: opens the entry message and writes `key=1`; the
/// entry's start is returned for closing it after the value.
struct EntryKey<'o> {
    number: u32,
    out: &'o mut Vec<u8>,
}

impl<'de> DeserializeSeed<'de> for EntryKey<'_> {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for EntryKey<'_> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<usize, E> {
        let at = open_nested(self.out, self.number);
        put_bytes(self.out, 1, key.as_bytes());
        Ok(at)
    }
}

/// One value that is not a list or map of its own (a list item or map
/// value): `encode::single`. `null` is skipped for map values only.
struct Single<'s, 'o> {
    slot: Slot<'s, 'o>,
    null_skips: bool,
}

impl<'de> DeserializeSeed<'de> for Single<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if free_form(self.slot.schema) {
            let value = Value::deserialize(d)?;
            if value.is_null() && self.null_skips {
                return Ok(());
            }
            let Slot {
                schema,
                number,
                out,
            } = self.slot;
            return encode::single(schema, number, &value, Path::Root, out).map_err(|_| unplaced());
        }
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Single<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value of the schema")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        if self.null_skips {
            Ok(())
        } else {
            Err(unplaced())
        }
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<(), E> {
        self.slot.boolean(b)
    }

    fn visit_i64<E: de::Error>(self, i: i64) -> Result<(), E> {
        self.slot.number(&Number::from(i))
    }

    fn visit_u64<E: de::Error>(self, u: u64) -> Result<(), E> {
        self.slot.number(&Number::from(u))
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<(), E> {
        self.slot.number(&Number::from_f64(f).ok_or_else(unplaced)?)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<(), E> {
        self.slot.text(s)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        self.slot.object(map, Place::Nested)
    }
}
