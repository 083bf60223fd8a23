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

    fn deleted_at_once(&self, obj: &Value) -> bool {
        let unscheduled = obj
            .pointer("/spec/nodeName")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty);
        let finished = matches!(
            obj.pointer("/status/phase").and_then(Value::as_str),
            Some("Succeeded" | "Failed")
        );
        unscheduled || finished
    }

    fn default_grace_period_seconds(&self, obj: &Value) -> Option<i64> {
        Some(
            obj.pointer("/spec/terminationGracePeriodSeconds")
                .and_then(Value::as_i64)
                .unwrap_or(DEFAULT_GRACE_PERIOD_SECONDS),
        )
    }
}
