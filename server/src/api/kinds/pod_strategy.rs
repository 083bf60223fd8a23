//! Pod rules: defaults on every write; on create the status is reset to
//! `Pending` with the computed QoS class; afterwards the spec is immutable
//! except container images, `activeDeadlineSeconds` (only shortened),
//! added tolerations, removed scheduling gates and a negative grace period
//! raised to 1; status changes only through `/status`; deletes are
//! graceful (`terminationGracePeriodSeconds`, 30 by default).

use std::collections::HashSet;

use serde_json::{Value, json};

use super::checks::{causes, items_at, str_at};
use super::{pod_defaults, pod_qos};
use crate::api::error::Cause;
use crate::api::kind::Strategy;
use crate::api::schema::{ErrorType, FieldError};

pub struct PodStrategy;

/// The grace period of a pod that does not name one.
pub const DEFAULT_GRACE_PERIOD_SECONDS: i64 = 30;

const MAX_INT32: i64 = i32::MAX as i64;

const UPDATABLE_FIELDS: &str = "`spec.containers[*].image`,`spec.initContainers[*].image`,\
`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),\
`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/// Whether a value is "unset" as Go's `omitempty` would drop it.
fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

/// Equality of decoded values: fields that are absent and fields at their
/// zero value are the same thing (neither survives Go's encoding).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: HashSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().all(|k| match (x.get(k), y.get(k)) {
                (Some(p), Some(q)) => same(p, q),
                (Some(v), None) | (None, Some(v)) => is_empty(v),
                (None, None) => true,
            })
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b || (is_empty(a) && is_empty(b)),
    }
}

fn range_error(field: &str, value: &Value, low: i64) -> FieldError {
    FieldError::invalid(
        field,
        value.clone(),
        format!("must be between {low} and {MAX_INT32}, inclusive"),
    )
}

fn spec_errors(pod: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if items_at(pod, "/spec/containers").is_empty() {
        errors.push(FieldError::required("spec.containers", ""));
    }
    for list in ["containers", "initContainers"] {
        let mut seen = HashSet::new();
        for (i, container) in items_at(pod, &format!("/spec/{list}")).iter().enumerate() {
            let name = str_at(container, "/name");
            if !seen.insert(name) {
                errors.push(FieldError {
                    error_type: ErrorType::Duplicate,
                    field: format!("spec.{list}[{i}].name"),
                    value: Some(Value::from(name)),
                    detail: String::new(),
                });
            }
            if str_at(container, "/image").is_empty() {
                errors.push(FieldError::required(format!("spec.{list}[{i}].image"), ""));
            }
        }
    }
    if let Some(deadline) = pod
        .pointer("/spec/activeDeadlineSeconds")
        .filter(|v| !v.is_null())
        && !deadline
            .as_i64()
            .is_some_and(|d| (1..=MAX_INT32).contains(&d))
    {
        errors.push(range_error("spec.activeDeadlineSeconds", deadline, 1));
    }
    errors
}

/// The images of the old containers put into the new list (same length).
fn with_old_images(new: &mut Value, old: &Value, list: &str) {
    let old_containers = items_at(old, &format!("/spec/{list}"));
    if let Some(containers) = new
        .pointer_mut(&format!("/spec/{list}"))
        .and_then(Value::as_array_mut)
    {
        for (container, previous) in containers.iter_mut().zip(old_containers) {
            container["image"] = previous.get("image").cloned().unwrap_or(Value::Null);
        }
    }
}

fn without_seconds(toleration: &Value) -> Value {
    let mut t = toleration.clone();
    if let Some(o) = t.as_object_mut() {
        o.remove("tolerationSeconds");
    }
    t
}

/// Rules that stop the check when broken (as Kubernetes returns early).
fn update_stoppers(new: &Value, old: &Value) -> Option<FieldError> {
    for list in ["containers", "initContainers"] {
        let pointer = format!("/spec/{list}");
        if items_at(new, &pointer).len() != items_at(old, &pointer).len() {
            return Some(FieldError::forbidden(
                format!("spec.{list}"),
                "pod updates may not add or remove containers",
            ));
        }
    }
    let field = "spec.activeDeadlineSeconds";
    let deadline = |pod: &Value| {
        pod.pointer("/spec/activeDeadlineSeconds")
            .filter(|v| !v.is_null())
            .cloned()
    };
    match (deadline(new), deadline(old)) {
        (Some(n), old_deadline) => {
            let Some(value) = n.as_i64().filter(|d| (0..=MAX_INT32).contains(d)) else {
                return Some(range_error(field, &n, 0));
            };
            if old_deadline
                .and_then(|o| o.as_i64())
                .is_some_and(|o| o < value)
            {
                return Some(FieldError::invalid(
                    field,
                    n,
                    "must be less than or equal to previous value",
                ));
            }
        }
        (None, Some(_)) => {
            return Some(FieldError::invalid(
                field,
                Value::Null,
                "must not update from a positive integer to nil value",
            ));
        }
        (None, None) => {}
    }
    None
}

fn update_errors(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errors = spec_errors(new);
    if let Some(stop) = update_stoppers(new, old) {
        errors.push(stop);
        return errors;
    }
    let new_tolerations: Vec<Value> = items_at(new, "/spec/tolerations")
        .iter()
        .map(without_seconds)
        .collect();
    let only_added = items_at(old, "/spec/tolerations")
        .iter()
        .all(|t| new_tolerations.iter().any(|n| same(n, &without_seconds(t))));
    if !only_added {
        errors.push(FieldError::forbidden(
            "spec.tolerations",
            "existing toleration can not be modified except its tolerationSeconds",
        ));
    }
    let old_gates = items_at(old, "/spec/schedulingGates");
    for gate in items_at(new, "/spec/schedulingGates") {
        if !old_gates.iter().any(|g| same(g, gate)) {
            let detail = format!(
                "only deletion is allowed, but found new scheduling gate '{}'",
                str_at(gate, "/name")
            );
            errors.push(FieldError::forbidden("spec.schedulingGates", &detail));
        }
    }
    let (new_spec, old_spec) = (
        new.get("spec").unwrap_or(&Value::Null),
        old.get("spec").unwrap_or(&Value::Null),
    );
    if same(new_spec, old_spec) {
        return errors;
    }
    let mut munged = json!({"spec": new_spec.clone()});
    with_old_images(&mut munged, old, "containers");
    with_old_images(&mut munged, old, "initContainers");
    let spec = munged["spec"].as_object_mut().expect("spec is an object");
    for field in ["activeDeadlineSeconds", "tolerations", "schedulingGates"] {
        match old_spec.get(field) {
            Some(v) => spec.insert(field.into(), v.clone()),
            None => spec.remove(field),
        };
    }
    let old_grace = old_spec
        .get("terminationGracePeriodSeconds")
        .and_then(Value::as_i64);
    let new_grace = spec
        .get("terminationGracePeriodSeconds")
        .and_then(Value::as_i64);
    if old_grace.is_some_and(|g| g < 0) && new_grace == Some(1) {
        spec.insert("terminationGracePeriodSeconds".into(), json!(old_grace));
    }
    if !same(&munged["spec"], old_spec) {
        let changed = changed_fields(&munged["spec"], old_spec).join(", ");
        let detail = format!(
            "pod updates may not change fields other than {UPDATABLE_FIELDS}\n  changed: {changed}"
        );
        errors.push(FieldError::forbidden("spec", &detail));
    }
    errors
}

/// The top-level spec fields that differ, for the error message.
fn changed_fields(new: &Value, old: &Value) -> Vec<String> {
    let (Some(n), Some(o)) = (new.as_object(), old.as_object()) else {
        return vec!["spec".into()];
    };
    let mut keys: Vec<&String> = n
        .keys()
        .chain(o.keys().filter(|k| !n.contains_key(*k)))
        .collect();
    keys.retain(|k| {
        !same(
            n.get(*k).unwrap_or(&Value::Null),
            o.get(*k).unwrap_or(&Value::Null),
        )
    });
    keys.into_iter().map(|k| format!("spec.{k}")).collect()
}

impl Strategy for PodStrategy {
    fn prepare_for_create(&self, obj: &mut Value) {
        pod_defaults::apply(obj);
        let qos = pod_qos::qos_class(obj);
        obj["status"] = json!({"phase": "Pending", "qosClass": qos});
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        pod_defaults::apply(new);
        new["status"] = old.get("status").cloned().unwrap_or_else(|| json!({}));
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        causes(&spec_errors(obj))
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<Cause> {
        causes(&update_errors(new, old))
    }

    fn default_grace_period_seconds(&self, obj: &Value) -> Option<i64> {
        Some(
            obj.pointer("/spec/terminationGracePeriodSeconds")
                .and_then(Value::as_i64)
                .unwrap_or(DEFAULT_GRACE_PERIOD_SECONDS),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::kinds::cause_lines as lines;

    fn created(mut pod: Value) -> Value {
        PodStrategy.prepare_for_create(&mut pod);
        pod
    }

    fn nginx() -> Value {
        created(json!({
            "metadata": {"name": "web"},
            "spec": {
                "containers": [{"name": "web", "image": "nginx:1.26", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}],
                "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}],
                "activeDeadlineSeconds": 600
            },
            "status": {"phase": "Running", "podIP": "1.2.3.4"}
        }))
    }

    fn updated(old: &Value, edit: impl Fn(&mut Value)) -> Vec<String> {
        let mut new = old.clone();
        edit(&mut new);
        PodStrategy.prepare_for_update(&mut new, old);
        lines(&PodStrategy.validate_update(&new, old))
    }

    #[test]
    fn create_resets_status_to_pending_with_qos_class() {
        let pod = nginx();
        assert_eq!(
            pod["status"],
            json!({"phase": "Pending", "qosClass": "Guaranteed"})
        );
        assert_eq!(pod["spec"]["restartPolicy"], "Always");
        let best_effort = created(json!({"spec": {"containers": [{"name": "a", "image": "x"}]}}));
        assert_eq!(best_effort["status"]["qosClass"], "BestEffort");
        let burstable = created(
            json!({"spec": {"containers": [{"name": "a", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}),
        );
        assert_eq!(burstable["status"]["qosClass"], "Burstable");
    }

    #[test]
    fn create_requires_images_and_distinct_names() {
        let pod = created(
            json!({"spec": {"containers": [{"name": "a"}, {"name": "a", "image": "x"}], "activeDeadlineSeconds": 0}}),
        );
        assert_eq!(
            lines(&PodStrategy.validate(&pod)),
            [
                "spec.containers[0].image: Required value",
                "spec.containers[1].name: Duplicate value: \"a\"",
                "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive",
            ]
        );
        assert_eq!(
            lines(&PodStrategy.validate(&created(json!({"spec": {"containers": []}})))),
            ["spec.containers: Required value"]
        );
        assert!(PodStrategy.validate(&nginx()).is_empty());
    }

    #[test]
    fn allowed_updates_pass_and_keep_status() {
        let old = nginx();
        assert_eq!(
            updated(&old, |p| p["spec"]["containers"][0]["image"] =
                json!("nginx:1.27")),
            Vec::<String>::new()
        );
        assert_eq!(
            updated(&old, |p| p["spec"]["activeDeadlineSeconds"] = json!(300)),
            Vec::<String>::new()
        );
        let added = |p: &mut Value| {
            p["spec"]["tolerations"]
                .as_array_mut()
                .unwrap()
                .push(json!({"key": "other", "operator": "Exists"}))
        };
        assert_eq!(updated(&old, added), Vec::<String>::new());
        assert_eq!(
            updated(&old, |p| p["spec"]["tolerations"][0]["tolerationSeconds"] =
                json!(30)),
            Vec::<String>::new()
        );
        assert_eq!(
            updated(&old, |p| p["metadata"]["labels"] = json!({"a": "b"})),
            Vec::<String>::new()
        );
        // Defaults a client leaves out are not changes.
        assert_eq!(
            updated(&old, |p| {
                p["spec"].as_object_mut().unwrap().remove("dnsPolicy");
            }),
            Vec::<String>::new()
        );
        let mut new = old.clone();
        new["status"] = json!({"phase": "Failed"});
        PodStrategy.prepare_for_update(&mut new, &old);
        assert_eq!(new["status"], old["status"]);
    }

    #[test]
    fn other_spec_changes_are_forbidden() {
        let old = nginx();
        let errors = updated(&old, |p| p["spec"]["nodeName"] = json!("n2"));
        assert_eq!(errors.len(), 1);
        assert!(errors[0].starts_with("spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n"), "{}", errors[0]);
        assert!(
            errors[0].ends_with("changed: spec.nodeName"),
            "{}",
            errors[0]
        );
        let errors = updated(&old, |p| {
            p["spec"]["containers"][0]["env"] = json!([{"name": "A", "value": "1"}])
        });
        assert!(
            errors[0].ends_with("changed: spec.containers"),
            "{}",
            errors[0]
        );
    }

    #[test]
    fn specific_update_rules_speak_as_kubernetes() {
        let old = nginx();
        let extra = |p: &mut Value| {
            p["spec"]["containers"]
                .as_array_mut()
                .unwrap()
                .push(json!({"name": "b", "image": "x"}))
        };
        assert_eq!(
            updated(&old, extra),
            ["spec.containers: Forbidden: pod updates may not add or remove containers"]
        );
        assert_eq!(
            updated(&old, |p| p["spec"]["activeDeadlineSeconds"] = json!(900)),
            [
                "spec.activeDeadlineSeconds: Invalid value: 900: must be less than or equal to previous value"
            ]
        );
        assert_eq!(
            updated(&old, |p| {
                p["spec"]
                    .as_object_mut()
                    .unwrap()
                    .remove("activeDeadlineSeconds");
            }),
            [
                "spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value"
            ]
        );
        assert_eq!(
            updated(&old, |p| p["spec"]["tolerations"] = json!([])),
            [
                "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"
            ]
        );
        assert_eq!(
            updated(&old, |p| p["spec"]["containers"][0]["image"] = json!("")),
            ["spec.containers[0].image: Required value"]
        );
    }

    #[test]
    fn scheduling_gates_may_only_go_and_negative_grace_may_become_one() {
        let mut old = nginx();
        old["spec"]["schedulingGates"] = json!([{"name": "a"}, {"name": "b"}]);
        old["spec"]["terminationGracePeriodSeconds"] = json!(-1);
        assert_eq!(
            updated(&old, |p| p["spec"]["schedulingGates"] =
                json!([{"name": "b"}])),
            Vec::<String>::new()
        );
        assert_eq!(
            updated(&old, |p| p["spec"]["schedulingGates"] =
                json!([{"name": "c"}])),
            [
                "spec.schedulingGates: Forbidden: only deletion is allowed, but found new scheduling gate 'c'"
            ]
        );
        assert_eq!(
            updated(&old, |p| p["spec"]["terminationGracePeriodSeconds"] =
                json!(1)),
            Vec::<String>::new()
        );
        assert_eq!(
            updated(&old, |p| p["spec"]["terminationGracePeriodSeconds"] =
                json!(2))
            .len(),
            1
        );
    }

    #[test]
    fn grace_period_comes_from_the_spec() {
        assert_eq!(PodStrategy.default_grace_period_seconds(&nginx()), Some(30));
        let quick = json!({"spec": {"terminationGracePeriodSeconds": 5}});
        assert_eq!(PodStrategy.default_grace_period_seconds(&quick), Some(5));
        assert_eq!(
            PodStrategy.default_grace_period_seconds(&json!({})),
            Some(30)
        );
    }
}
