//! A field's value as it may repeat: a list (each item a field), a map
//! (each entry a `{key=1, value=2}` message) or a single value. Free-form
//! values (`encode::free_form`) are rare and small: they go through a
//! `Value` and `encode` itself.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

use super::slot::Slot;
use super::{Place, unplaced};
use crate::api::protobuf::encode::{self, Path, free_form};
use crate::api::protobuf::wire::{close_nested, open_nested, put_bytes};

/// A field's value, which may be a list (each item a field) or a map (each
/// entry a `{key=1, value=2}` message): `encode::repeated_or_single`.
/// `revision` is set for the root's `metadata`.
pub(super) struct Field<'s, 'o> {
    pub(super) slot: Slot<'s, 'o>,
    pub(super) revision: Option<&'s str>,
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
