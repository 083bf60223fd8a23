//! Request bodies to `serde_json::Value` — JSON or YAML — keeping key order
//! and reporting duplicate keys by path, with the last value kept as Go's
//! decoder keeps it.
//!
//! Both formats go through one `DeserializeSeed` (`ValueSeed`), because
//! `serde_json::Value` would overwrite duplicates silently. Integers stay
//! integers (`i64`/`u64`), other numbers are `f64`.
//!
//! YAML is read as Kubernetes reads it (sigs.k8s.io/yaml on go-yaml v2, YAML
//! 1.1): `yes`/`no`/`on`/`off`/`y`/`n` are booleans (so a string field given `on`
//! fails type validation, as it does in Kubernetes), `012` is octal (10),
//! timestamps stay strings, whole floats become integers (`5.0` → `5`, since
//! Kubernetes goes through JSON text), and non-string keys become strings
//! (`1:` → `"1"`, `on:` → `"true"`). serde-saphyr is told to pass duplicate keys through
//! (`DuplicateKeyPolicy::PassThrough`), so they reach the seed and are
//! reported by path like JSON's, rather than failing the parse.

use std::fmt::{self, Write as _};

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::map::Entry;
use serde_json::{Map, Number, Value};

/// A decoded body.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    pub value: Value,
    /// Paths of keys that appeared more than once (`metadata.name`,
    /// `spec.items[0].name`), each time a repeat was seen, in document order.
    pub duplicates: Vec<String>,
}

/// Why a body could not be decoded; each message is one line, fit for a 400.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("invalid JSON: {0}")]
    Json(String),
    #[error("invalid YAML: {0}")]
    Yaml(String),
    #[error("invalid YAML: expected a single document, found more than one")]
    MultipleDocuments,
    #[error("invalid YAML: expected a mapping at the top level, found {0}")]
    NotAMapping(&'static str),
}

/// Bodies from this size on have their arrays sized exactly before they
/// are read: a `Value` is 72 bytes, so a 2 MB body of a million numbers is a
/// 72 MB array, and growing it by doubling would cost half as much again.
const PRESIZE_ARRAYS_FROM: usize = 64 * 1024;

/// Parses one JSON value (any type; callers needing an object check it).
pub fn parse_json(bytes: &[u8]) -> Result<Decoded, DecodeError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let mut state = State::default();
    if bytes.len() >= PRESIZE_ARRAYS_FROM {
        state.array_lengths = array_lengths(bytes).unwrap_or_default();
    }
    let value = ValueSeed { state: &mut state }
        .deserialize(&mut de)
        .map_err(|e| DecodeError::Json(e.to_string()))?;
    de.end().map_err(|e| DecodeError::Json(e.to_string()))?;
    Ok(Decoded {
        value,
        duplicates: state.duplicates,
    })
}

/// Parses one YAML document whose top level is a mapping.
pub fn parse_yaml(bytes: &[u8]) -> Result<Decoded, DecodeError> {
    let mut state = State {
        whole_floats_are_integers: true,
        ..State::default()
    };
    // The default budget stays: among other limits it caps nesting at 64
    // levels, which bounds the deserializer's stack use (tens of KiB per
    // level in unoptimised builds) within a 2 MiB thread.
    let options = serde_saphyr::options! {
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::PassThrough,
        legacy_octal_numbers: true,
        with_snippet: false,
    };
    let value = serde_saphyr::with_deserializer_from_slice_with_options(bytes, options, |de| {
        ValueSeed { state: &mut state }.deserialize(de)
    })
    .map_err(yaml_error)?;
    let found = match &value {
        Value::Object(_) => {
            return Ok(Decoded {
                value,
                duplicates: state.duplicates,
            });
        }
        Value::Null => "an empty document",
        Value::Array(_) => "a sequence",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
    };
    Err(DecodeError::NotAMapping(found))
}

fn yaml_error(e: serde_saphyr::Error) -> DecodeError {
    if matches!(e, serde_saphyr::Error::MultipleDocuments { .. }) {
        return DecodeError::MultipleDocuments;
    }
    // Renderings may span lines; a Status message is one.
    let text = e.to_string();
    DecodeError::Yaml(text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The element count of every array in a JSON text, in the order the
/// arrays open (the order the parser reads them in); `None` when the text
/// is not well nested, which the parser then reports.
fn array_lengths(bytes: &[u8]) -> Option<Vec<usize>> {
    /// An open array (its slot in the result) or object (`None`).
    struct Open {
        slot: Option<usize>,
        commas: usize,
        items: bool,
    }
    fn item(stack: &mut [Open]) {
        if let Some(top) = stack.last_mut() {
            top.items = true;
        }
    }
    let mut lengths = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                item(&mut stack);
                i += 1;
                loop {
                    let at = i + memchr::memchr2(b'"', b'\\', bytes.get(i..)?)?;
                    if bytes[at] == b'"' {
                        i = at;
                        break;
                    }
                    i = at + 2;
                }
            }
            open @ (b'[' | b'{') => {
                item(&mut stack);
                let slot = (open == b'[').then(|| {
                    lengths.push(0);
                    lengths.len() - 1
                });
                stack.push(Open {
                    slot,
                    commas: 0,
                    items: false,
                });
            }
            b']' | b'}' => {
                let open = stack.pop()?;
                if let Some(slot) = open.slot {
                    lengths[slot] = if open.items { open.commas + 1 } else { 0 };
                }
            }
            b',' => {
                if let Some(top) = stack.last_mut() {
                    top.commas += 1;
                }
            }
            b' ' | b'\n' | b'\r' | b'\t' | b':' => {}
            _ => item(&mut stack),
        }
        i += 1;
    }
    Some(lengths)
}

#[derive(Default)]
struct State {
    /// Path of the node being read; children append and truncate back.
    path: String,
    duplicates: Vec<String>,
    /// Kubernetes turns YAML into JSON text before decoding, and Go writes a
    /// whole float (`5.0`, `1e3`) as an integer there; YAML input does too.
    whole_floats_are_integers: bool,
    /// Element counts of the arrays still to be read, in order (empty:
    /// arrays grow as they are read).
    array_lengths: Vec<usize>,
    arrays_read: usize,
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
struct ValueSeed<'s> {
    state: &'s mut State,
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn yaml(text: &str) -> Decoded {
        parse_yaml(text.as_bytes()).unwrap_or_else(|e| panic!("{e}"))
    }

    fn json(text: &str) -> Decoded {
        parse_json(text.as_bytes()).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn json_keeps_key_order_and_number_kinds() {
        let d = json(
            r#"{"z": 1, "a": -2, "m": 1.5, "big": 18446744073709551615, "f": 1.0, "s": "x", "n": null, "b": true}"#,
        );
        let keys: Vec<&String> = d.value.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["z", "a", "m", "big", "f", "s", "n", "b"]);
        assert!(d.value["z"].is_u64() && d.value["a"].is_i64() && d.value["m"].is_f64());
        assert_eq!(d.value["big"].as_u64(), Some(u64::MAX));
        // JSON `1.0` stays a float: Go rejects it for integer fields, and so does validation.
        assert!(d.value["f"].is_f64());
        assert!(d.duplicates.is_empty());
    }

    #[test]
    fn json_duplicates_keep_the_last_value_and_first_position() {
        let d = json(
            r#"{"kind": "A", "metadata": {"name": "a", "labels": {}, "name": "b"}, "kind": "B"}"#,
        );
        assert_eq!(
            d.value,
            json!({"kind": "B", "metadata": {"name": "b", "labels": {}}})
        );
        assert_eq!(d.duplicates, ["metadata.name", "kind"]);
        let keys: Vec<&String> = d.value.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["kind", "metadata"]);
    }

    #[test]
    fn json_duplicates_are_found_at_depth_and_inside_arrays() {
        let d = json(
            r#"{"spec": {"containers": [{"name": "a"}, {"name": "b", "ports": [{"p": 1, "p": 2}], "name": "c"}],
                "foo": 1, "foo": {"x": 1, "x": 2}}}"#,
        );
        assert_eq!(
            d.duplicates,
            [
                "spec.containers[1].ports[0].p",
                "spec.containers[1].name",
                "spec.foo.x",
                "spec.foo"
            ]
        );
        assert_eq!(d.value["spec"]["containers"][1]["name"], "c");
        assert_eq!(d.value["spec"]["foo"], json!({"x": 2}));
        // A key repeated three times is reported twice.
        assert_eq!(json(r#"{"a": 1, "a": 2, "a": 3}"#).duplicates, ["a", "a"]);
        // Equal keys in different objects are not duplicates.
        assert!(json(r#"[{"a": 1}, {"a": 1}]"#).duplicates.is_empty());
    }

    #[test]
    fn json_errors_are_one_line_with_position() {
        let cases = [
            (
                "{\"a\": tru}",
                "invalid JSON: expected ident at line 1 column 10",
            ),
            (
                "{\"a\": 1",
                "invalid JSON: EOF while parsing an object at line 1 column 7",
            ),
            (
                "{} x",
                "invalid JSON: trailing characters at line 1 column 4",
            ),
            (
                "",
                "invalid JSON: EOF while parsing a value at line 1 column 0",
            ),
            (
                "{\"a\":\n  [1,]}",
                "invalid JSON: trailing comma at line 2 column 6",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(
                parse_json(input.as_bytes()).unwrap_err().to_string(),
                want,
                "{input}"
            );
        }
        assert!(
            parse_json(b"\xff")
                .unwrap_err()
                .to_string()
                .starts_with("invalid JSON: ")
        );
    }

    #[test]
    fn array_lengths_follow_the_order_arrays_open_in() {
        let text =
            br#"{"a": [1, [2, 3], "x,]", {"b": [], "c": [{"d": [true]}]}], "e": ["\"[", 4]}"#;
        assert_eq!(array_lengths(text), Some(vec![4, 2, 0, 1, 1, 2]));
        assert_eq!(array_lengths(b"[[], [[]], [ ]]"), Some(vec![3, 0, 1, 0, 0]));
        assert_eq!(array_lengths(b"[1, 2"), Some(vec![0]));
        assert_eq!(array_lengths(b"]"), None);
        assert_eq!(array_lengths(br#"["unterminated"#), None);
        // A large body is read with its arrays sized exactly, to the same value.
        let big = format!(
            "{{\"a\": [{}], \"b\": [[1], [], \"]\"]}}",
            vec!["0"; 40_000].join(",")
        );
        let parsed = parse_json(big.as_bytes()).expect("valid");
        assert_eq!(parsed.value["a"].as_array().map(Vec::len), Some(40_000));
        assert_eq!(
            parsed.value["a"].as_array().map(Vec::capacity),
            Some(40_000)
        );
        assert_eq!(parsed.value["b"], json!([[1], [], "]"]));
    }

    #[test]
    fn json_accepts_any_top_level_value() {
        assert_eq!(json("[1, 2]").value, json!([1, 2]));
        assert_eq!(json(" \"x\" ").value, json!("x"));
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(
            parse_json(deep.as_bytes())
                .unwrap_err()
                .to_string()
                .contains("recursion limit")
        );
        // YAML stops at serde-saphyr's default depth, 64 levels.
        let nested = |n: usize| format!("a: {}{}", "[".repeat(n), "]".repeat(n));
        assert!(parse_yaml(nested(63).as_bytes()).is_ok());
        let msg = parse_yaml(nested(200).as_bytes()).unwrap_err().to_string();
        assert!(msg.starts_with("invalid YAML: "), "{msg}");
    }

    #[test]
    fn yaml_matches_json_for_the_same_document() {
        let from_yaml = yaml(
            "apiVersion: v1\nkind: Event\nmetadata:\n  name: e1\n  labels: {app: web}\ncount: 3\nratio: 0.25\n\
             involvedObject:\n  kind: Pod\n  name: p\nrelated: null\ntags:\n- a\n- \"b\"\n",
        );
        let from_json = json(
            r#"{"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1", "labels": {"app": "web"}},
                "count": 3, "ratio": 0.25, "involvedObject": {"kind": "Pod", "name": "p"}, "related": null,
                "tags": ["a", "b"]}"#,
        );
        assert_eq!(from_yaml, from_json);
        let keys: Vec<&String> = from_yaml.value.as_object().unwrap().keys().collect();
        assert_eq!(keys[..3], ["apiVersion", "kind", "metadata"]);
    }

    #[test]
    fn yaml_duplicates_are_reported_by_path() {
        let d = yaml(
            "metadata:\n  name: a\n  name: b\nspec:\n  items:\n  - x: 1\n    x: 2\nmetadata:\n  name: c\n",
        );
        assert_eq!(
            d.duplicates,
            ["metadata.name", "spec.items[0].x", "metadata"]
        );
        assert_eq!(
            d.value,
            json!({"metadata": {"name": "c"}, "spec": {"items": [{"x": 2}]}})
        );
    }

    #[test]
    fn yaml_scalars_resolve_as_kubernetes_yaml_does() {
        let d = yaml(
            "a: yes\nb: on\nc: off\nd: 012\ne: 0x1F\nf: 1_000\ng: 2024-01-01T00:00:00Z\nh: ~\ni: 1.5\n\
             j: 'on'\nk: \"012\"\nl: 5.0\nm: 1e3\nhuge: 99999999999999999999999\ny: n\n",
        );
        assert_eq!(
            d.value,
            json!({"a": true, "b": true, "c": false, "d": 10, "e": 31, "f": 1000, "g": "2024-01-01T00:00:00Z",
                   "h": null, "i": 1.5, "j": "on", "k": "012", "l": 5, "m": 1000, "huge": 1e23,
                   "true": false})
        );
        assert!(d.value["l"].is_u64() && d.value["i"].is_f64());
    }

    #[test]
    fn yaml_non_string_keys_become_strings() {
        let d = yaml("1: x\ntrue: t\n2.5: z\n\"1\": w\n");
        assert_eq!(d.value, json!({"1": "w", "true": "t", "2.5": "z"}));
        // `1` and `"1"` collide once both are JSON keys.
        assert_eq!(d.duplicates, ["1"]);
        // YAML 1.1 reads a bare `on:` key as true, as Kubernetes does.
        assert_eq!(yaml("on: push\n").value, json!({"true": "push"}));
    }

    #[test]
    fn yaml_anchors_and_merge_keys_expand() {
        let d = yaml("base: &b {x: 1}\nuse: *b\nmerged:\n  <<: *b\n  z: 2\n");
        assert_eq!(
            d.value,
            json!({"base": {"x": 1}, "use": {"x": 1}, "merged": {"z": 2, "x": 1}})
        );
    }

    #[test]
    fn yaml_rejects_more_than_one_document_and_non_mappings() {
        assert_eq!(
            parse_yaml(b"a: 1\n---\nb: 2\n"),
            Err(DecodeError::MultipleDocuments)
        );
        assert_eq!(
            DecodeError::MultipleDocuments.to_string(),
            "invalid YAML: expected a single document, found more than one"
        );
        assert_eq!(
            parse_yaml(b""),
            Err(DecodeError::NotAMapping("an empty document"))
        );
        assert_eq!(
            parse_yaml(b"- a\n"),
            Err(DecodeError::NotAMapping("a sequence"))
        );
        assert_eq!(
            parse_yaml(b"just text\n"),
            Err(DecodeError::NotAMapping("a string"))
        );
        assert_eq!(
            parse_yaml(b"42").unwrap_err().to_string(),
            "invalid YAML: expected a mapping at the top level, found a number"
        );
        // A leading document marker is still one document.
        assert_eq!(yaml("---\na: 1\n").value, json!({"a": 1}));
    }

    #[test]
    fn yaml_syntax_errors_are_one_line() {
        for bad in [
            "a: [1, 2\n",
            "a: b: c\n",
            "a:\n\t- x\n",
            "a: .inf\n",
            "a: *nope\n",
        ] {
            let msg = parse_yaml(bad.as_bytes()).unwrap_err().to_string();
            assert!(
                msg.starts_with("invalid YAML: ") && !msg.contains('\n'),
                "{bad:?}: {msg}"
            );
        }
        assert_eq!(
            parse_yaml(b"a: [1, 2\n").unwrap_err().to_string(),
            "invalid YAML: unclosed bracket '[' at line 1, column 4"
        );
        assert!(parse_yaml(b"a: \xff\n").is_err());
    }
}
