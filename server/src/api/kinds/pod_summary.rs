//! What `kubectl get pods` says of a pod — ready containers, the one-word
//! status, restarts and when the last one was — worked out in one pass as
//! Kubernetes 1.32's pod printer does: restartable init containers
//! (sidecars) count as containers, init progress hides the main containers
//! until the pod is initialized, and deletion shows as Terminating.

use std::time::SystemTime;

use serde_json::Value;

use super::checks::{items_at, str_at};
use crate::util::time::parse_rfc3339;

/// The pod printer's figures for one pod.
#[derive(Debug, PartialEq, Eq)]
pub struct Summary {
    pub ready: usize,
    pub total: usize,
    pub reason: String,
    pub restarts: i64,
    /// When the latest counted restart ended.
    pub last_restart: Option<SystemTime>,
}

fn restart_count(status: &Value) -> i64 {
    status
        .get("restartCount")
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

/// When a container last terminated, if it has.
fn last_termination(status: &Value) -> Option<SystemTime> {
    status
        .pointer("/lastState/terminated/finishedAt")
        .and_then(Value::as_str)
        .and_then(parse_rfc3339)
}

fn is_true(status: &Value, field: &str) -> bool {
    status.get(field).and_then(Value::as_bool) == Some(true)
}

/// `Signal:9`, `ExitCode:1`, or the terminated state's reason.
fn terminated_reason(terminated: &Value) -> String {
    let reason = str_at(terminated, "/reason");
    if !reason.is_empty() {
        return reason.into();
    }
    match terminated
        .get("signal")
        .and_then(Value::as_i64)
        .filter(|s| *s != 0)
    {
        Some(signal) => format!("Signal:{signal}"),
        None => format!(
            "ExitCode:{}",
            terminated
                .get("exitCode")
                .and_then(Value::as_i64)
                .unwrap_or(0)
        ),
    }
}

fn has_condition(pod: &Value, kind: &str) -> bool {
    items_at(pod, "/status/conditions")
        .iter()
        .any(|c| str_at(c, "/type") == kind && str_at(c, "/status") == "True")
}

/// Running totals of restarts and the latest restart time.
#[derive(Default)]
struct Restarts {
    count: i64,
    last: Option<SystemTime>,
}

impl Restarts {
    fn add(&mut self, status: &Value) {
        self.count += restart_count(status);
        if let Some(at) = last_termination(status) {
            self.last = Some(self.last.map_or(at, |last| last.max(at)));
        }
    }
}

/// The pod printer's figures for `pod`.
#[must_use]
pub fn summarize(pod: &Value) -> Summary {
    let phase = str_at(pod, "/status/phase");
    let mut reason = match str_at(pod, "/status/reason") {
        "" => phase.to_owned(),
        given => given.to_owned(),
    };
    let gated = items_at(pod, "/status/conditions")
        .iter()
        .any(|c| str_at(c, "/type") == "PodScheduled" && str_at(c, "/reason") == "SchedulingGated");
    if gated {
        reason = "SchedulingGated".into();
    }
    let init_specs = items_at(pod, "/spec/initContainers");
    let is_sidecar = |name: &str| {
        init_specs
            .iter()
            .any(|c| str_at(c, "/name") == name && str_at(c, "/restartPolicy") == "Always")
    };
    let mut total = items_at(pod, "/spec/containers").len();
    total += init_specs
        .iter()
        .filter(|c| str_at(c, "/restartPolicy") == "Always")
        .count();
    let mut ready = 0;
    let mut all = Restarts::default();
    let mut sidecars = Restarts::default();
    let mut initializing = false;
    for (i, status) in items_at(pod, "/status/initContainerStatuses")
        .iter()
        .enumerate()
    {
        all.add(status);
        let sidecar = is_sidecar(str_at(status, "/name"));
        if sidecar {
            sidecars.add(status);
        }
        let terminated = status.pointer("/state/terminated");
        let waiting = str_at(status, "/state/waiting/reason");
        if terminated.is_some_and(|t| t.get("exitCode").and_then(Value::as_i64).unwrap_or(0) == 0) {
            continue;
        }
        if sidecar && is_true(status, "started") {
            ready += usize::from(is_true(status, "ready"));
            continue;
        }
        reason = match terminated {
            Some(t) => format!("Init:{}", terminated_reason(t)),
            None if !waiting.is_empty() && waiting != "PodInitializing" => {
                format!("Init:{waiting}")
            }
            None => format!("Init:{i}/{}", init_specs.len()),
        };
        initializing = true;
        break;
    }
    let mut restarts = all;
    if !initializing || has_condition(pod, "Initialized") {
        restarts = sidecars;
        let mut running = false;
        for status in items_at(pod, "/status/containerStatuses").iter().rev() {
            restarts.add(status);
            let waiting = str_at(status, "/state/waiting/reason");
            if !waiting.is_empty() {
                reason = waiting.into();
            } else if let Some(terminated) = status.pointer("/state/terminated") {
                reason = terminated_reason(terminated);
            } else if is_true(status, "ready") && status.pointer("/state/running").is_some() {
                running = true;
                ready += 1;
            }
        }
        if reason == "Completed" && running {
            reason = if has_condition(pod, "Ready") {
                "Running"
            } else {
                "NotReady"
            }
            .into();
        }
    }
    let deleting = pod
        .pointer("/metadata/deletionTimestamp")
        .is_some_and(|t| !t.is_null());
    if deleting && str_at(pod, "/status/reason") == "NodeLost" {
        reason = "Unknown".into();
    } else if deleting && phase != "Succeeded" && phase != "Failed" {
        reason = "Terminating".into();
    }
    Summary {
        ready,
        total,
        reason,
        restarts: restarts.count,
        last_restart: restarts.last,
    }
}

#[cfg(test)]
#[path = "pod_summary_tests.rs"]
mod tests;
