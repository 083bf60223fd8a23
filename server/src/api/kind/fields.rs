//! Reading the fields a kind lets field selectors use.

use serde_json::Value;

/// Reads a selectable field's value from an object.
pub type FieldValue = fn(&Value, &str) -> Option<String>;

/// A selectable field read by its dotted path (`spec.nodeName`); scalars
/// become their text, a missing field the empty string (Go's zero value).
#[must_use]
pub fn field_by_path(obj: &Value, field: &str) -> Option<String> {
    let mut at = obj;
    for segment in field.split('.') {
        match at.get(segment) {
            Some(next) => at = next,
            None => return Some(String::new()),
        }
    }
    Some(match at {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Bool(_) | Value::Number(_) => at.to_string(),
        Value::Array(_) | Value::Object(_) => return None,
    })
}
