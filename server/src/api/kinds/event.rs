//! core/v1 `Event` as data: its schema and the fields its field selectors read.

use serde_json::Value;

use crate::api::schema::Schema;

/// Field-selector fields Kubernetes supports for core/v1 Events.
pub const FIELD_SELECTORS: &[&str] = &[
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
    "metadata.namespace",
    "metadata.name",
];

/// The schema of a core/v1 Event.
#[must_use]
pub fn schema() -> Schema {
    Schema::resource([
        ("involvedObject", Schema::object_reference().describe("The object that this event is about.")),
        ("reason", Schema::string().describe("Short, machine understandable reason for the transition into the object's current status.")),
        ("message", Schema::string().describe("A human-readable description of the status of this operation.")),
        ("source", Schema::object([("component", Schema::string()), ("host", Schema::string())]).proto_fields([("component", 1), ("host", 2)]).describe("The component reporting this event.")),
        ("firstTimestamp", Schema::time().nullable().describe("The time at which the event was first recorded.")),
        ("lastTimestamp", Schema::time().nullable().describe("The time at which the most recent occurrence of this event was recorded.")),
        ("count", Schema::integer_i32().describe("The number of times this event has occurred.")),
        ("type", Schema::string().describe("Type of this event (Normal, Warning); new types could be added in the future.")),
        ("eventTime", Schema::micro_time().nullable().describe("Time when this Event was first observed.")),
        (
            "series",
            Schema::object([("count", Schema::integer_i32()), ("lastObservedTime", Schema::micro_time())])
                .proto_fields([("count", 1), ("lastObservedTime", 2)])
                .describe("Data about the Event series this event represents, or nil if it's a singleton Event."),
        ),
        ("action", Schema::string().describe("What action was taken/failed regarding to the regarding object.")),
        ("related", Schema::object_reference().describe("Optional secondary object for more complex actions.")),
        ("reportingComponent", Schema::string().describe("Name of the controller that emitted this Event.")),
        ("reportingInstance", Schema::string().describe("ID of the controller instance.")),
    ])
    .required(["involvedObject"])
    .proto_fields([
        ("metadata", 1),
        ("involvedObject", 2),
        ("reason", 3),
        ("message", 4),
        ("source", 5),
        ("firstTimestamp", 6),
        ("lastTimestamp", 7),
        ("count", 8),
        ("type", 9),
        ("eventTime", 10),
        ("series", 11),
        ("action", 12),
        ("related", 13),
        ("reportingComponent", 14),
        ("reportingInstance", 15),
    ])
    .describe("Event is a report of an event somewhere in the cluster.")
}

/// The value of a field-selector field, or `None` if Events do not support
/// it. Absent (or non-string) fields read as "". `source` means
/// `source.component`, as in Kubernetes.
#[must_use]
pub fn field_value(obj: &Value, field: &str) -> Option<String> {
    if !FIELD_SELECTORS.contains(&field) {
        return None;
    }
    let path = if field == "source" {
        "source.component"
    } else {
        field
    };
    let value = path.split('.').try_fold(obj, |v, segment| v.get(segment));
    Some(value.and_then(Value::as_str).unwrap_or_default().to_owned())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::api::schema::{prune, unknown_fields};

    fn errors(obj: &Value) -> Vec<String> {
        crate::api::kinds::schema_errors(&schema(), obj)
    }

    fn full_event() -> Value {
        json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "pod.1", "namespace": "default"},
            "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web", "uid": "u-1",
                               "apiVersion": "v1", "resourceVersion": "42", "fieldPath": "spec.containers{app}"},
            "reason": "Started", "message": "Started container", "source": {"component": "kubelet", "host": "n1"},
            "firstTimestamp": "2024-05-01T10:00:00Z", "lastTimestamp": null, "count": 2, "type": "Normal",
            "eventTime": "2024-05-01T10:00:00.123456Z",
            "series": {"count": 3, "lastObservedTime": "2024-05-01T10:00:01.000001Z"},
            "action": "Start", "related": {"kind": "Node", "name": "n1"},
            "reportingComponent": "kubelet", "reportingInstance": "n1"
        })
    }

    #[test]
    fn a_complete_event_is_valid_and_fully_known() {
        assert_eq!(errors(&full_event()), Vec::<String>::new());
        assert!(unknown_fields(&schema(), &full_event()).is_empty());
    }

    #[test]
    fn involved_object_and_metadata_are_required() {
        assert_eq!(
            errors(&json!({"kind": "Event"})),
            ["metadata: Required value", "involvedObject: Required value"]
        );
    }

    #[test]
    fn field_types_are_enforced() {
        let mut e = full_event();
        e["count"] = json!("2");
        e["involvedObject"]["kind"] = json!(5);
        e["eventTime"] = json!("2024-05-01");
        e["series"]["count"] = json!(1.5);
        e["source"] = json!("kubelet");
        assert_eq!(
            errors(&e),
            [
                "involvedObject.kind: Invalid value: \"integer\": involvedObject.kind in body must be of type string: \"integer\"",
                "source: Invalid value: \"string\": source in body must be of type object: \"string\"",
                "count: Invalid value: \"string\": count in body must be of type integer: \"string\"",
                "eventTime: Invalid value: \"2024-05-01\": eventTime in body must be of type date-time: \"2024-05-01\"",
                "series.count: Invalid value: \"number\": series.count in body must be of type integer: \"number\"",
            ]
        );
    }

    #[test]
    fn unknown_fields_are_found_and_pruned() {
        let mut e = full_event();
        e["involvedObject"]["bogus"] = json!(1);
        e["spec"] = json!({"foo": 1});
        assert_eq!(
            unknown_fields(&schema(), &e),
            ["involvedObject.bogus", "spec"]
        );
        prune(&schema(), &mut e);
        assert_eq!(e, full_event());
    }

    #[test]
    fn field_values_follow_kubernetes() {
        let e = full_event();
        assert_eq!(
            field_value(&e, "involvedObject.kind").as_deref(),
            Some("Pod")
        );
        assert_eq!(
            field_value(&e, "involvedObject.fieldPath").as_deref(),
            Some("spec.containers{app}")
        );
        assert_eq!(field_value(&e, "source").as_deref(), Some("kubelet"));
        assert_eq!(field_value(&e, "metadata.name").as_deref(), Some("pod.1"));
        assert_eq!(
            field_value(&e, "metadata.namespace").as_deref(),
            Some("default")
        );
        assert_eq!(field_value(&e, "type").as_deref(), Some("Normal"));
        assert_eq!(field_value(&e, "message"), None);
        assert_eq!(field_value(&e, "source.component"), None);
        let bare = json!({"metadata": {"name": "x"}});
        for f in FIELD_SELECTORS.iter().filter(|f| **f != "metadata.name") {
            assert_eq!(field_value(&bare, f).as_deref(), Some(""), "{f}");
        }
    }
}
