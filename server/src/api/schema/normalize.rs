//! Writes values the way Kubernetes serializes their Go types: `Time` fields
//! at whole seconds in UTC, `MicroTime` fields with six fraction digits in
//! UTC, whatever offset or precision the client sent.

use serde_json::Value;

use crate::api::schema::{Schema, TimePrecision};
use crate::util::time;

/// Normalizes every timestamp of a (valid) value in place.
pub fn normalize(schema: &Schema, value: &mut Value) {
    match value {
        Value::String(s) => {
            if let Some(p) = schema.time_precision
                && let Some(t) = time::parse_rfc3339(s)
            {
                *s = match p {
                    TimePrecision::Seconds => time::rfc3339(t),
                    TimePrecision::Micros => time::rfc3339_micro(t),
                };
            }
        }
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                if let Some(child) = schema.field_schema(k) {
                    normalize(child, v);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = &schema.items {
                items.iter_mut().for_each(|v| normalize(item, v));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn times_are_rewritten_in_utc_at_their_precision() {
        let schema = Schema::object([
            ("at", Schema::time()),
            ("micro", Schema::micro_time()),
            ("list", Schema::array(Schema::time())),
            ("text", Schema::string()),
        ]);
        let mut v = json!({"at": "2024-05-01T12:00:00.7+02:00", "micro": "2024-05-01T10:00:00Z", "list": ["2024-05-01T10:00:00.123Z"], "text": "2024-05-01T12:00:00+02:00"});
        normalize(&schema, &mut v);
        assert_eq!(
            v,
            json!({"at": "2024-05-01T10:00:00Z", "micro": "2024-05-01T10:00:00.000000Z", "list": ["2024-05-01T10:00:00Z"], "text": "2024-05-01T12:00:00+02:00"})
        );
    }
}
