//! Computed cells of the Event table (`kubectl get events`), as Kubernetes'
//! event printer derives them. The cells read both Event forms — core v1
//! (`involvedObject`, `lastTimestamp`, `message`) and `events.{domain}/v1`
//! (`regarding`, `deprecatedLastTimestamp`, `note`) — since both versions
//! print the same table.

use std::time::SystemTime;

use serde_json::Value;

use crate::api::kind::Column;
use crate::api::table::human_duration::since;

use super::checks::str_at;

/// The first non-empty string among `pointers`.
fn first<'a>(obj: &'a Value, pointers: &[&str]) -> &'a str {
    pointers
        .iter()
        .map(|p| str_at(obj, p))
        .find(|s| !s.is_empty())
        .unwrap_or("")
}

fn first_seen_text(obj: &Value) -> String {
    let first_ts = first(obj, &["/firstTimestamp", "/deprecatedFirstTimestamp"]);
    let at = if first_ts.is_empty() {
        str_at(obj, "/eventTime")
    } else {
        first_ts
    };
    since(Some(at), SystemTime::now())
}

/// Time since the last occurrence: the series' last observation, else the
/// last timestamp, else the first.
#[must_use]
pub fn last_seen(obj: &Value) -> Value {
    let observed = str_at(obj, "/series/lastObservedTime");
    let last = first(obj, &["/lastTimestamp", "/deprecatedLastTimestamp"]);
    Value::from(match (observed, last) {
        (o, _) if !o.is_empty() => since(Some(o), SystemTime::now()),
        (_, l) if !l.is_empty() => since(Some(l), SystemTime::now()),
        _ => first_seen_text(obj),
    })
}

/// Time since the first occurrence (or the event time).
#[must_use]
pub fn first_seen(obj: &Value) -> Value {
    Value::from(first_seen_text(obj))
}

fn regarding(obj: &Value) -> &Value {
    obj.get("involvedObject")
        .or_else(|| obj.get("regarding"))
        .unwrap_or(&Value::Null)
}

/// `kind/name` of the object the event is about (lower-case kind).
#[must_use]
pub fn object(obj: &Value) -> Value {
    let about = regarding(obj);
    let kind = str_at(about, "/kind").to_ascii_lowercase();
    let name = str_at(about, "/name");
    Value::from(if name.is_empty() {
        kind
    } else {
        format!("{kind}/{name}")
    })
}

/// The field path within the object.
#[must_use]
pub fn subobject(obj: &Value) -> Value {
    Value::from(str_at(regarding(obj), "/fieldPath"))
}

/// `component, host` of the reporter.
#[must_use]
pub fn source(obj: &Value) -> Value {
    let component = first(
        obj,
        &[
            "/source/component",
            "/deprecatedSource/component",
            "/reportingComponent",
            "/reportingController",
        ],
    );
    let instance = first(
        obj,
        &[
            "/source/host",
            "/deprecatedSource/host",
            "/reportingInstance",
        ],
    );
    Value::from(if instance.is_empty() {
        component.to_string()
    } else {
        format!("{component}, {instance}")
    })
}

/// The message, trimmed.
#[must_use]
pub fn message(obj: &Value) -> Value {
    Value::from(first(obj, &["/message", "/note"]).trim())
}

/// Occurrences: the series' count, else the count; a singleton counts 1.
#[must_use]
pub fn count(obj: &Value) -> Value {
    let n = ["/series/count", "/count", "/deprecatedCount"]
        .iter()
        .find_map(|p| obj.pointer(p).and_then(Value::as_i64))
        .filter(|n| *n != 0)
        .unwrap_or(1);
    Value::from(n)
}

/// The Event table's columns, wide ones (priority 1) included.
#[must_use]
pub fn columns() -> Vec<Column> {
    vec![
        Column::computed(
            "Last Seen",
            "string",
            0,
            last_seen,
            "Time of the most recent occurrence.",
        ),
        Column::new(
            "Type",
            "string",
            0,
            ".type",
            "Type of this event (Normal, Warning).",
        ),
        Column::new(
            "Reason",
            "string",
            0,
            ".reason",
            "Why the action was taken.",
        ),
        Column::computed(
            "Object",
            "string",
            0,
            object,
            "The object this event is about.",
        ),
        Column::computed(
            "Subobject",
            "string",
            1,
            subobject,
            "The part of the object this event is about.",
        ),
        Column::computed(
            "Source",
            "string",
            1,
            source,
            "The component reporting this event.",
        ),
        Column::computed(
            "Message",
            "string",
            0,
            message,
            "A human-readable description of the status of this operation.",
        ),
        Column::computed(
            "First Seen",
            "string",
            1,
            first_seen,
            "Time the event was first recorded.",
        ),
        Column::computed(
            "Count",
            "string",
            1,
            count,
            "The number of times this event has occurred.",
        ),
        Column {
            priority: 1,
            ..Column::name()
        },
    ]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn core_and_events_v1_forms_print_alike() {
        let core = json!({
            "involvedObject": {"kind": "Pod", "name": "web-1", "fieldPath": "spec.containers{app}"},
            "source": {"component": "kubelet", "host": "node-1"},
            "message": " pulled \n", "count": 3,
            "firstTimestamp": "2024-05-01T10:00:00Z", "lastTimestamp": "2024-05-01T10:00:00Z"
        });
        let v1 = json!({
            "regarding": {"kind": "Pod", "name": "web-1", "fieldPath": "spec.containers{app}"},
            "deprecatedSource": {"component": "kubelet", "host": "node-1"},
            "note": " pulled \n", "deprecatedCount": 3,
            "deprecatedFirstTimestamp": "2024-05-01T10:00:00Z",
            "deprecatedLastTimestamp": "2024-05-01T10:00:00Z"
        });
        for e in [&core, &v1] {
            assert_eq!(object(e), "pod/web-1");
            assert_eq!(subobject(e), "spec.containers{app}");
            assert_eq!(source(e), "kubelet, node-1");
            assert_eq!(message(e), "pulled");
            assert_eq!(count(e), 3);
            assert!(
                last_seen(e)
                    .as_str()
                    .is_some_and(|s| s.ends_with('d') || s.ends_with('y'))
            );
        }
    }

    #[test]
    fn series_and_singletons() {
        let e = json!({"involvedObject": {"kind": "Node"}, "reportingComponent": "ctl",
            "series": {"count": 7, "lastObservedTime": "2024-05-01T10:00:00.000000Z"},
            "eventTime": "2024-05-01T09:00:00.000000Z"});
        assert_eq!(object(&e), "node");
        assert_eq!(source(&e), "ctl");
        assert_eq!(count(&e), 7);
        assert_eq!(count(&json!({})), 1);
        assert_eq!(last_seen(&json!({})), "<unknown>");
        assert_ne!(first_seen(&e), "<unknown>");
    }
}
