//! `events.{domain}/v1` Event: the same stored objects as core/v1 Events,
//! seen through the renamed fields of wire-facts §13, with the stricter
//! create rules of spec 9.3.

use serde_json::{Map, Value};

use crate::api::error::Cause;
use crate::api::kind::{Conversion, Strategy};
use crate::api::schema::Schema;

/// (events/v1 name, core/v1 name) of every field whose name differs.
const RENAMED: [(&str, &str); 7] = [
    ("regarding", "involvedObject"),
    ("note", "message"),
    ("reportingController", "reportingComponent"),
    ("deprecatedSource", "source"),
    ("deprecatedFirstTimestamp", "firstTimestamp"),
    ("deprecatedLastTimestamp", "lastTimestamp"),
    ("deprecatedCount", "count"),
];

/// Field-selector fields of events/v1 (core's, under their events/v1 names).
pub const FIELD_SELECTORS: &[&str] = &[
    "regarding.kind",
    "regarding.namespace",
    "regarding.name",
    "regarding.uid",
    "regarding.apiVersion",
    "regarding.resourceVersion",
    "regarding.fieldPath",
    "reason",
    "reportingController",
    "type",
];

/// Renames top-level fields, keeping their order.
fn rename(obj: Value, from_core: bool) -> Value {
    let Value::Object(fields) = obj else {
        return obj;
    };
    let out: Map<String, Value> = fields
        .into_iter()
        .map(|(name, value)| {
            let renamed = RENAMED
                .iter()
                .find(|(v1, core)| {
                    if from_core {
                        *core == name
                    } else {
                        *v1 == name
                    }
                })
                .map(|(v1, core)| if from_core { *v1 } else { *core });
            (renamed.map_or(name, str::to_string), value)
        })
        .collect();
    Value::Object(out)
}

/// Converts between events/v1 and the stored core/v1 form.
pub struct EventsV1Conversion;

impl Conversion for EventsV1Conversion {
    fn served_to_storage(&self, served: Value) -> Value {
        let mut stored = rename(served, false);
        // core/v1 requires involvedObject; Go serves the empty struct.
        if let Some(o) = stored.as_object_mut() {
            o.entry("involvedObject")
                .or_insert_with(|| Value::Object(Map::new()));
        }
        stored
    }

    fn storage_to_served(&self, stored: Value) -> Value {
        rename(stored, true)
    }
}

/// The events/v1 schema: core's, with the events/v1 names.
#[must_use]
pub fn schema() -> Schema {
    let mut s = super::event::schema();
    for (name, _) in &mut s.properties {
        if let Some((v1, _)) = RENAMED.iter().find(|(_, core)| core == name) {
            *name = (*v1).to_string();
        }
    }
    s.required = vec!["metadata".into()];
    s.proto_fields([
        ("metadata", 1),
        ("eventTime", 2),
        ("series", 3),
        ("reportingController", 4),
        ("reportingInstance", 5),
        ("action", 6),
        ("reason", 7),
        ("regarding", 8),
        ("related", 9),
        ("note", 10),
        ("type", 11),
        ("deprecatedSource", 12),
        ("deprecatedFirstTimestamp", 13),
        ("deprecatedLastTimestamp", 14),
        ("deprecatedCount", 15),
    ])
}

/// The create rules events/v1 adds (Kubernetes' `ValidateEventCreate` for
/// the events API).
pub struct EventsV1Strategy;

const ACTION_LIMIT: usize = 128;
const REASON_LIMIT: usize = 128;
const INSTANCE_LIMIT: usize = 128;
const NOTE_LIMIT: usize = 1024;

fn text<'a>(obj: &'a Value, field: &str) -> &'a str {
    obj.get(field).and_then(Value::as_str).unwrap_or_default()
}

fn is_set(obj: &Value, field: &str) -> bool {
    match obj.get(field) {
        None | Some(Value::Null) => false,
        Some(Value::Object(o)) => o.values().any(|v| !v.is_null() && v != ""),
        Some(Value::Number(n)) => n.as_i64() != Some(0),
        Some(_) => true,
    }
}

impl Strategy for EventsV1Strategy {
    fn validate(&self, obj: &Value) -> Vec<Cause> {
        let mut causes = Vec::new();
        let mut required = |field: &str, limit: Option<usize>| {
            let value = text(obj, field);
            if value.is_empty() {
                causes.push(Cause::required(field));
            } else if let Some(limit) = limit.filter(|&l| value.chars().count() > l) {
                causes.push(Cause::invalid(
                    field,
                    "",
                    &format!("can have at most {limit} characters"),
                ));
            }
        };
        required("reportingController", None);
        required("reportingInstance", Some(INSTANCE_LIMIT));
        required("action", Some(ACTION_LIMIT));
        required("reason", Some(REASON_LIMIT));
        if text(obj, "note").chars().count() > NOTE_LIMIT {
            causes.push(Cause::invalid(
                "note",
                "",
                &format!("can have at most {NOTE_LIMIT} characters"),
            ));
        }
        if !is_set(obj, "eventTime") {
            causes.push(Cause::required("eventTime"));
        }
        let ty = text(obj, "type");
        if ty != "Normal" && ty != "Warning" {
            causes.push(Cause::invalid(
                "type",
                "",
                &format!("has invalid value: {ty}"),
            ));
        }
        for field in [
            "deprecatedFirstTimestamp",
            "deprecatedLastTimestamp",
            "deprecatedCount",
            "deprecatedSource",
        ] {
            if is_set(obj, field) {
                causes.push(Cause::invalid(field, "", "needs to be unset"));
            }
        }
        causes
    }

    fn validate_update(&self, _new: &Value, _old: &Value) -> Vec<Cause> {
        // Events written through core/v1 (with deprecated fields) stay updatable.
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn conversion_round_trips_and_keeps_field_order() {
        let core = json!({"kind": "Event", "apiVersion": "v1", "metadata": {"name": "e"},
            "involvedObject": {"kind": "Pod", "name": "p"}, "message": "m", "reportingComponent": "c",
            "reportingInstance": "i", "source": {"component": "k"}, "firstTimestamp": "2026-01-01T00:00:00Z",
            "lastTimestamp": null, "count": 3, "series": {"count": 2}, "reason": "R"});
        let v1 = EventsV1Conversion.storage_to_served(core.clone());
        assert_eq!(v1["regarding"], json!({"kind": "Pod", "name": "p"}));
        assert_eq!(v1["note"], json!("m"));
        assert_eq!(v1["reportingController"], json!("c"));
        assert_eq!(v1["reportingInstance"], json!("i"));
        assert_eq!(v1["deprecatedSource"], json!({"component": "k"}));
        assert_eq!(v1["deprecatedCount"], json!(3));
        assert_eq!(v1["series"], json!({"count": 2}));
        let keys: Vec<&String> = v1.as_object().expect("object").keys().collect();
        assert_eq!(keys[3], "regarding");
        assert_eq!(EventsV1Conversion.served_to_storage(v1), core);
    }

    #[test]
    fn create_rules() {
        let good = json!({"eventTime": "2026-01-01T00:00:00.000000Z", "type": "Normal", "action": "A",
            "reason": "R", "reportingController": "x.io/c", "reportingInstance": "i"});
        assert!(EventsV1Strategy.validate(&good).is_empty());
        let bad = json!({"type": "Odd", "deprecatedCount": 1, "note": "n".repeat(1025)});
        let fields: Vec<String> = EventsV1Strategy
            .validate(&bad)
            .into_iter()
            .map(|c| c.field)
            .collect();
        for f in [
            "reportingController",
            "reportingInstance",
            "action",
            "reason",
            "note",
            "eventTime",
            "type",
            "deprecatedCount",
        ] {
            assert!(fields.iter().any(|x| x == f), "{f} in {fields:?}");
        }
        assert!(!fields.iter().any(|x| x == "deprecatedSource"));
    }
}
