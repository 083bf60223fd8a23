//! The pod printer's figures for sidecars, gated and initializing pods.

use serde_json::json;

use super::*;

#[test]
fn sidecars_count_as_containers_and_their_restarts_show() {
    let pod = json!({
        "spec": {"initContainers": [{"name": "setup"}, {"name": "proxy", "restartPolicy": "Always"}],
                 "containers": [{"name": "app"}]},
        "status": {"phase": "Running",
            "conditions": [{"type": "Initialized", "status": "True"}, {"type": "Ready", "status": "True"}],
            "initContainerStatuses": [
                {"name": "setup", "restartCount": 4, "state": {"terminated": {"exitCode": 0}}},
                {"name": "proxy", "restartCount": 1, "started": true, "ready": true, "state": {"running": {}},
                 "lastState": {"terminated": {"exitCode": 1, "finishedAt": "2026-01-01T00:00:00Z"}}}],
            "containerStatuses": [
                {"name": "app", "restartCount": 2, "ready": true, "state": {"running": {}},
                 "lastState": {"terminated": {"exitCode": 1, "finishedAt": "2026-01-02T00:00:00Z"}}}]}
    });
    let summary = summarize(&pod);
    assert_eq!((summary.ready, summary.total), (2, 2));
    assert_eq!(summary.reason, "Running");
    // The plain init container's restarts no longer count once initialized.
    assert_eq!(summary.restarts, 3);
    assert_eq!(summary.last_restart, parse_rfc3339("2026-01-02T00:00:00Z"));
}

#[test]
fn gated_initializing_and_finished_pods() {
    let gated = json!({"spec": {"containers": [{"name": "a"}]}, "status": {"phase": "Pending",
        "conditions": [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]}});
    assert_eq!(summarize(&gated).reason, "SchedulingGated");
    let init = json!({
        "spec": {"initContainers": [{"name": "i1"}, {"name": "i2"}], "containers": [{"name": "a"}]},
        "status": {"phase": "Pending", "initContainerStatuses": [
            {"name": "i1", "restartCount": 2, "state": {"terminated": {"exitCode": 0}}},
            {"name": "i2", "state": {"running": {}}}],
            "containerStatuses": [{"name": "a", "restartCount": 7, "state": {"waiting": {"reason": "PodInitializing"}}}]}
    });
    let summary = summarize(&init);
    assert_eq!(summary.reason, "Init:1/2");
    assert_eq!(summary.restarts, 2, "only init restarts while initializing");
    let done = json!({"metadata": {"deletionTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"containers": [{"name": "a"}]},
        "status": {"phase": "Succeeded", "containerStatuses": [
            {"name": "a", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]}});
    assert_eq!(
        summarize(&done).reason,
        "Completed",
        "a finished pod is not Terminating"
    );
    let waiting_ready = json!({"spec": {"containers": [{"name": "a"}]},
        "status": {"phase": "Running", "containerStatuses": [{"name": "a", "ready": true, "state": {"waiting": {"reason": "x"}}}]}});
    assert_eq!(
        summarize(&waiting_ready).ready,
        0,
        "ready counts running containers only"
    );
}
