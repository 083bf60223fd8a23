//! The `DeserializeSeed` both formats go through: any value, keys kept in
//! order, duplicates recorded by path, arrays sized from `presize` when known.

use std::fmt::{self, Write as _};

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::map::Entry;
use serde_json::{Map, Number, Value};

#[derive(Default)]
pub(super) struct State {
    /// Path of the node being read; children append and truncate back.
    pub(super) path: String,
    pub(super) duplicates: Vec<String>,
    /// Kubernetes turns YAML into JSON text before decoding, and Go writes a
    /// whole float (`5.0`, `1e3`) as an integer there; YAML input does too.
    pub(super) whole_floats_are_integers: bool,
    /// Element counts of the arrays still to be read, in order (empty:
    /// arrays grow as they are read).
    pub(super) array_lengths: Vec<usize>,
    pub(super) arrays_read: usize,
}

impl State {
    /// The capacity for the next array the parser opens.
    fn next_array_capacity(&mut self, size_hint: Option<usize>) -> usize {
        let known = self.array_lengths.get(self.arrays_read).copied();
        self.arrays_read += 1;
        known.unwrap_or_else(|| size_hint.unwrap_or(0).min(1024))
    }
}

/// Reads any value, recording duplicate keys in `state`.
pub(super) struct ValueSeed<'s> {
    pub(super) state: &'s mut State,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        match i64::try_from(v) {
            Ok(i) => Ok(Value::from(i)),
            Err(_) => {
                self.visit_u128(u128::try_from(v).map_err(|_| E::custom("integer out of range"))?)
            }
        }
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        match u64::try_from(v) {
            Ok(u) => Ok(Value::from(u)),
            // Beyond 64 bits Go's YAML decoder falls back to a float too.
            Err(_) => self.visit_f64(v as f64),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        // Go prints a whole float without fraction or exponent, so Kubernetes'
        // JSON decoder then sees an integer; past i64 the float is kept.
        if self.state.whole_floats_are_integers && v.fract() == 0.0 && v.abs() < 9.2e18 {
            return Ok(Value::from(v as i64));
        }
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom(format_args!("non-finite number {v}")))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }

    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<Value, E> {
        Err(E::custom("binary values are not supported"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(self.state.next_array_capacity(seq.size_hint()));
        let base = self.state.path.len();
        loop {
            let _ = write!(self.state.path, "[{}]", items.len());
            let next = seq.next_element_seed(ValueSeed {
                state: &mut *self.state,
            });
            self.state.path.truncate(base);
            match next? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut fields = Map::new();
        let base = self.state.path.len();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            if base > 0 {
                self.state.path.push('.');
            }
            self.state.path.push_str(&key);
            let value = map.next_value_seed(ValueSeed {
                state: &mut *self.state,
            });
            let value = match value {
                Ok(v) => v,
                Err(e) => {
                    self.state.path.truncate(base);
                    return Err(e);
                }
            };
            match fields.entry(key) {
                // Replacing keeps the key's first position and takes the last value.
                Entry::Occupied(mut earlier) => {
                    self.state.duplicates.push(self.state.path.clone());
                    earlier.insert(value);
                }
                Entry::Vacant(slot) => {
                    slot.insert(value);
                }
            }
            self.state.path.truncate(base);
        }
        Ok(Value::Object(fields))
    }
}

/// Reads a mapping key as a string, the way sigs.k8s.io/yaml turns YAML's
/// non-string keys into JSON's (`1` → `"1"`, `true` → `"true"`).
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_any(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string, number or boolean mapping key")
    }

    fn visit_str<E>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }

    fn visit_string<E>(self, v: String) -> Result<String, E> {
        Ok(v)
    }

    fn visit_bool<E>(self, v: bool) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_i64<E>(self, v: i64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_u64<E>(self, v: u64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_f64<E>(self, v: f64) -> Result<String, E> {
        Ok(v.to_string())
    }
}
