//! Accessors for objects held as JSON values (`metadata.*` and friends).

use serde_json::{Map, Value};

/// `obj.metadata`, created empty if missing or not an object.
pub fn metadata_mut(obj: &mut Value) -> &mut Map<String, Value> {
    if !obj.get("metadata").is_some_and(Value::is_object) {
        obj["metadata"] = Value::Object(Map::new());
    }
    obj["metadata"].as_object_mut().expect("just ensured")
}

/// A string field of `metadata`.
#[must_use]
pub fn meta_str<'a>(obj: &'a Value, field: &str) -> Option<&'a str> {
    obj.get("metadata")?.get(field)?.as_str()
}

#[must_use]
pub fn name(obj: &Value) -> &str {
    meta_str(obj, "name").unwrap_or_default()
}

#[must_use]
pub fn namespace(obj: &Value) -> Option<&str> {
    meta_str(obj, "namespace")
}

/// Whether the object has a non-empty `metadata.finalizers`.
#[must_use]
pub fn has_finalizers(obj: &Value) -> bool {
    obj.get("metadata")
        .and_then(|m| m.get("finalizers"))
        .and_then(Value::as_array)
        .is_some_and(|f| !f.is_empty())
}

/// Whether `metadata.deletionTimestamp` is set.
#[must_use]
pub fn is_terminating(obj: &Value) -> bool {
    obj.get("metadata")
        .and_then(|m| m.get("deletionTimestamp"))
        .is_some_and(|t| !t.is_null())
}
