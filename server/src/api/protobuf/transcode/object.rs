//! One stored object's fields: each key resolved against the schema, then
//! its value written as that field, skipped, or given up on.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

use super::slot::Slot;
use super::value::Field;
use super::{Place, unplaced};
use crate::api::protobuf::TYPE_META;
use crate::api::protobuf::encode::{self, Path, free_form};
use crate::api::protobuf::wire::put_bytes;
use crate::api::schema::Schema;

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
pub(super) struct Object<'s, 'o> {
    pub(super) schema: &'s Schema,
    pub(super) place: Place<'s>,
    pub(super) out: &'o mut Vec<u8>,
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
        let mut inlined: Vec<(u32, Vec<u8>)> = Vec::new();
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
                    if let (Some(wrapper), Some(number)) = (field.proto_inline, field.proto) {
                        // Gathered in its wrapper's message, written after
                        // the object's own fields, as `encode::message` does.
                        let mut side = Vec::new();
                        map.next_value_seed(Field {
                            slot: Slot {
                                schema: field,
                                number,
                                out: &mut side,
                            },
                            revision: None,
                        })?;
                        if !side.is_empty() {
                            match inlined.iter_mut().find(|(w, _)| *w == wrapper) {
                                Some((_, gathered)) => gathered.extend(side),
                                None => inlined.push((wrapper, side)),
                            }
                        }
                        continue;
                    }
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
        for (wrapper, gathered) in inlined {
            put_bytes(out, wrapper, &gathered);
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
