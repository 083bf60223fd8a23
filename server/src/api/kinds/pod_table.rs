//! Computed cells of the pod table: readiness, the status summary
//! `kubectl get pods` shows, restarts and the wide columns, as Kubernetes'
//! pod printer derives them.

use std::time::SystemTime;

use serde_json::Value;

use super::checks::{items_at, str_at};
use super::pod_summary::summarize;
use crate::api::table::human_duration::human;

const NONE: &str = "<none>";

fn or_none(s: &str) -> Value {
    Value::from(if s.is_empty() { NONE } else { s })
}

/// `ready/total` over the pod's containers and sidecars.
#[must_use]
pub fn ready(pod: &Value) -> Value {
    let summary = summarize(pod);
    Value::from(format!("{}/{}", summary.ready, summary.total))
}

/// Restarts, with how long ago the latest was when one is known
/// (`3 (5m2s ago)`).
#[must_use]
pub fn restarts(pod: &Value) -> Value {
    let summary = summarize(pod);
    Value::from(match summary.last_restart {
        Some(at) if summary.restarts != 0 => {
            let seconds = match SystemTime::now().duration_since(at) {
                Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
                Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
            };
            format!("{} ({} ago)", summary.restarts, human(seconds))
        }
        _ => summary.restarts.to_string(),
    })
}

/// The one-word state `kubectl get pods` shows.
#[must_use]
pub fn status(pod: &Value) -> Value {
    Value::from(summarize(pod).reason)
}

/// The pod's first IP.
#[must_use]
pub fn ip(pod: &Value) -> Value {
    let first = items_at(pod, "/status/podIPs")
        .first()
        .map(|p| str_at(p, "/ip"))
        .unwrap_or_else(|| str_at(pod, "/status/podIP"));
    or_none(first)
}

#[must_use]
pub fn node(pod: &Value) -> Value {
    or_none(str_at(pod, "/spec/nodeName"))
}

#[must_use]
pub fn nominated_node(pod: &Value) -> Value {
    or_none(str_at(pod, "/status/nominatedNodeName"))
}

/// `true/total` of the pod's readiness gates, or `<none>`.
#[must_use]
pub fn readiness_gates(pod: &Value) -> Value {
    let gates = items_at(pod, "/spec/readinessGates");
    if gates.is_empty() {
        return Value::from(NONE);
    }
    let conditions = items_at(pod, "/status/conditions");
    let met = gates
        .iter()
        .filter(|g| {
            let wanted = str_at(g, "/conditionType");
            conditions
                .iter()
                .any(|c| str_at(c, "/type") == wanted && str_at(c, "/status") == "True")
        })
        .count();
    Value::from(format!("{met}/{}", gates.len()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pod(statuses: Value) -> Value {
        json!({
            "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "a"}, {"name": "b"}]},
            "status": {"phase": "Running", "containerStatuses": statuses}
        })
    }

    #[test]
    fn ready_and_restarts_count_container_statuses() {
        let p = pod(json!([
            {"name": "a", "ready": true, "restartCount": 2, "state": {"running": {}}},
            {"name": "b", "ready": false, "restartCount": 1, "state": {"running": {}}}
        ]));
        assert_eq!(ready(&p), "1/2");
        assert_eq!(restarts(&p), "3");
        let pending =
            json!({"spec": {"containers": [{"name": "a"}]}, "status": {"phase": "Pending"}});
        assert_eq!(ready(&pending), "0/1");
        assert_eq!(restarts(&pending), "0");
        assert_eq!(status(&pending), "Pending");
    }

    #[test]
    fn status_prefers_container_reasons_over_the_phase() {
        let crashing = pod(json!([
            {"name": "a", "ready": true, "state": {"running": {}}},
            {"name": "b", "ready": false, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}
        ]));
        assert_eq!(status(&crashing), "CrashLoopBackOff");
        let killed =
            pod(json!([{"name": "a", "state": {"terminated": {"exitCode": 137, "signal": 9}}}]));
        assert_eq!(status(&killed), "Signal:9");
        let failed = pod(json!([{"name": "a", "state": {"terminated": {"exitCode": 2}}}]));
        assert_eq!(status(&failed), "ExitCode:2");
        let mut deleting = pod(json!([]));
        deleting["metadata"]["deletionTimestamp"] = json!("2024-05-01T10:00:00Z");
        assert_eq!(status(&deleting), "Terminating");
    }

    #[test]
    fn init_containers_show_progress() {
        let p = json!({
            "spec": {"initContainers": [{"name": "i1"}, {"name": "i2"}], "containers": [{"name": "a"}]},
            "status": {"phase": "Pending", "initContainerStatuses": [
                {"name": "i1", "state": {"terminated": {"exitCode": 0}}},
                {"name": "i2", "state": {"running": {}}}
            ]}
        });
        assert_eq!(status(&p), "Init:1/2");
        let mut failing = p.clone();
        failing["status"]["initContainerStatuses"][1]["state"] =
            json!({"waiting": {"reason": "ImagePullBackOff"}});
        assert_eq!(status(&failing), "Init:ImagePullBackOff");
    }

    #[test]
    fn wide_cells_show_none_when_unset() {
        let bare = json!({"spec": {}});
        assert_eq!(ip(&bare), "<none>");
        assert_eq!(node(&bare), "<none>");
        assert_eq!(nominated_node(&bare), "<none>");
        assert_eq!(readiness_gates(&bare), "<none>");
        let placed = json!({
            "spec": {"nodeName": "n1", "readinessGates": [{"conditionType": "x/a"}, {"conditionType": "x/b"}]},
            "status": {"podIP": "10.0.0.9", "podIPs": [{"ip": "10.0.0.9"}, {"ip": "fd00::9"}],
                       "conditions": [{"type": "x/a", "status": "True"}, {"type": "x/b", "status": "False"}]}
        });
        assert_eq!(ip(&placed), "10.0.0.9");
        assert_eq!(node(&placed), "n1");
        assert_eq!(readiness_gates(&placed), "1/2");
    }
}
