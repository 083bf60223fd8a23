//! Small helpers the built-in kinds' strategies share: reading optional
//! fields of a JSON object, and turning field errors into Status causes.

use serde_json::{Map, Value};

use crate::api::error::Cause;
use crate::api::schema::FieldError;
use crate::api::validation;

/// Field errors as the causes of a 422.
#[must_use]
pub fn causes(errors: &[FieldError]) -> Vec<Cause> {
    errors.iter().map(validation::cause).collect()
}

/// The object at `pointer`, if there is one.
#[must_use]
pub fn object_at<'a>(obj: &'a Value, pointer: &str) -> Option<&'a Map<String, Value>> {
    obj.pointer(pointer).and_then(Value::as_object)
}

/// The elements of the array at `pointer`; none when absent or not an array.
#[must_use]
pub fn items_at<'a>(obj: &'a Value, pointer: &str) -> &'a [Value] {
    obj.pointer(pointer)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The string at `pointer`; "" when absent (Go's zero value).
#[must_use]
pub fn str_at<'a>(obj: &'a Value, pointer: &str) -> &'a str {
    obj.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// `obj[field]` as an object, created (or replacing a non-object) when needed.
pub fn object_field<'a>(obj: &'a mut Value, field: &str) -> &'a mut Map<String, Value> {
    if !obj.get(field).is_some_and(Value::is_object) {
        obj[field] = Value::Object(Map::new());
    }
    obj[field].as_object_mut().expect("just made an object")
}

/// Sets `map[field]` to `value` unless it already holds something other than null.
pub fn default_field(map: &mut Map<String, Value>, field: &str, value: Value) {
    if map.get(field).is_none_or(Value::is_null) {
        map.insert(field.to_owned(), value);
    }
}

/// Whether `obj.field` is the JSON `true`.
#[must_use]
pub fn is_true(obj: &Value, field: &str) -> bool {
    obj.get(field).and_then(Value::as_bool) == Some(true)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn defaults_fill_only_unset_fields() {
        let mut obj = json!({"spec": {"a": 1, "b": null}});
        let spec = object_field(&mut obj, "spec");
        default_field(spec, "a", json!(2));
        default_field(spec, "b", json!(3));
        default_field(spec, "c", json!(4));
        assert_eq!(obj, json!({"spec": {"a": 1, "b": 3, "c": 4}}));
        let mut bare = json!({"status": "x"});
        object_field(&mut bare, "status").insert("phase".into(), json!("P"));
        assert_eq!(bare, json!({"status": {"phase": "P"}}));
    }

    #[test]
    fn readers_treat_missing_as_zero_values() {
        let obj = json!({"a": {"b": "x", "l": [1]}});
        assert_eq!(str_at(&obj, "/a/b"), "x");
        assert_eq!(str_at(&obj, "/a/c"), "");
        assert_eq!(items_at(&obj, "/a/l").len(), 1);
        assert!(items_at(&obj, "/a/b").is_empty());
        assert!(object_at(&obj, "/a").is_some());
        assert!(is_true(&json!({"immutable": true}), "immutable"));
        assert!(!is_true(&json!({"immutable": "true"}), "immutable"));
    }
}
