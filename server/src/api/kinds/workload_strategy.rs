//! The apps/v1 workloads' rules (Deployment, ReplicaSet, StatefulSet,
//! DaemonSet): defaults, a non-empty selector that matches the pod
//! template's labels, an immutable selector, and StatefulSet's short list
//! of updatable spec fields.

use serde_json::Value;

use super::label_selector::{self, go_label_selector, go_string_map};
use super::workload_defaults::{self, Workload};
use crate::api::error::Cause;
use crate::api::kind::Strategy;
use crate::api::schema::Schema;

/// Strategy of one apps/v1 workload kind.
pub struct WorkloadStrategy {
    pub workload: Workload,
    /// The kind's `status` schema, for the status a new object starts with.
    pub status: Schema,
}

/// What Kubernetes calls the kind in "empty selector is invalid for ...".
fn noun(workload: Workload) -> &'static str {
    match workload {
        Workload::Deployment => "deployment",
        Workload::ReplicaSet => "replicaset",
        Workload::StatefulSet => "statefulset",
        Workload::DaemonSet => "daemonset",
        Workload::Job => "job",
        Workload::CronJob => "cronjob",
    }
}

/// The selector checks every workload with a pod template shares: present
/// and non-empty, well formed, and selecting the template's labels.
pub fn selector_causes(obj: &Value, workload: Workload) -> Vec<Cause> {
    let Some(selector) = obj.pointer("/spec/selector").filter(|s| s.is_object()) else {
        return vec![Cause::new(
            "FieldValueRequired",
            "spec.selector",
            "Required value",
        )];
    };
    if label_selector::is_empty(selector) {
        return vec![Cause::new(
            "FieldValueInvalid",
            "spec.selector",
            format!(
                "Invalid value: {}: empty selector is invalid for {}",
                go_label_selector(selector),
                noun(workload)
            ),
        )];
    }
    let mut out = label_selector::errors(selector, "spec.selector");
    let labels = obj
        .pointer("/spec/template/metadata/labels")
        .and_then(Value::as_object);
    if out.is_empty() && !label_selector::matches(selector, labels) {
        out.push(Cause::new(
            "FieldValueInvalid",
            "spec.template.metadata.labels",
            format!(
                "Invalid value: {}: `selector` does not match template `labels`",
                go_string_map(labels)
            ),
        ));
    }
    out
}

fn non_negative(obj: &Value, field: &str, out: &mut Vec<Cause>) {
    if let Some(n) = obj
        .pointer(&format!("/spec/{field}"))
        .and_then(Value::as_i64)
        && n < 0
    {
        out.push(Cause::new(
            "FieldValueInvalid",
            format!("spec.{field}"),
            format!("Invalid value: {n}: must be greater than or equal to 0"),
        ));
    }
}

/// `spec.selector: Invalid value: v1.LabelSelector{...}: field is immutable`.
pub fn immutable_selector(new: &Value, old: &Value) -> Option<Cause> {
    let (new_selector, old_selector) =
        (new.pointer("/spec/selector"), old.pointer("/spec/selector"));
    (new_selector != old_selector).then(|| {
        Cause::new(
            "FieldValueInvalid",
            "spec.selector",
            format!(
                "Invalid value: {}: field is immutable",
                go_label_selector(new_selector.unwrap_or(&Value::Null))
            ),
        )
    })
}

/// Spec fields a StatefulSet update may change (Kubernetes 1.32).
const STATEFUL_SET_UPDATABLE: &[&str] = &[
    "replicas",
    "ordinals",
    "template",
    "updateStrategy",
    "revisionHistoryLimit",
    "persistentVolumeClaimRetentionPolicy",
    "minReadySeconds",
];

fn stateful_set_spec_frozen(new: &Value, old: &Value) -> Option<Cause> {
    let rest = |obj: &Value| {
        let mut spec = obj.get("spec").cloned().unwrap_or(Value::Null);
        if let Some(spec) = spec.as_object_mut() {
            spec.retain(|k, _| !STATEFUL_SET_UPDATABLE.contains(&k.as_str()));
        }
        spec
    };
    (rest(new) != rest(old)).then(|| {
        Cause::forbidden(
            "spec",
            "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
        )
    })
}

impl Strategy for WorkloadStrategy {
    fn prepare_for_create(&self, obj: &mut Value) {
        workload_defaults::reset_status(obj, &self.status);
        workload_defaults::apply(self.workload, obj);
    }

    fn prepare_for_update(&self, new: &mut Value, _old: &Value) {
        workload_defaults::apply(self.workload, new);
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        let mut out = selector_causes(obj, self.workload);
        for field in ["replicas", "minReadySeconds", "revisionHistoryLimit"] {
            non_negative(obj, field, &mut out);
        }
        out
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<Cause> {
        let mut out = self.validate(new);
        out.extend(immutable_selector(new, old));
        if self.workload == Workload::StatefulSet {
            out.extend(stateful_set_spec_frozen(new, old));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::api::kinds::cause_lines;

    fn deployments() -> WorkloadStrategy {
        WorkloadStrategy {
            workload: Workload::Deployment,
            status: Schema::default(),
        }
    }

    fn deployment(selector: Value, labels: Value) -> Value {
        json!({"metadata": {"name": "web"}, "spec": {"selector": selector,
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "a", "image": "nginx"}]}}}})
    }

    #[test]
    fn a_matching_selector_is_valid() {
        let d = deployment(
            json!({"matchLabels": {"app": "web"}}),
            json!({"app": "web", "x": "y"}),
        );
        assert_eq!(
            cause_lines(&deployments().validate(&d)),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_selector_must_match_the_template() {
        let d = deployment(
            json!({"matchLabels": {"app": "web"}}),
            json!({"app": "api"}),
        );
        assert_eq!(
            cause_lines(&deployments().validate(&d)),
            [
                "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"api\"}: `selector` does not match template `labels`"
            ]
        );
        let empty = deployment(json!({}), json!({"app": "api"}));
        assert_eq!(
            cause_lines(&deployments().validate(&empty)),
            [
                "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment"
            ]
        );
    }

    #[test]
    fn the_selector_is_immutable() {
        let old = deployment(
            json!({"matchLabels": {"app": "web"}}),
            json!({"app": "web", "v": "2"}),
        );
        let new = deployment(
            json!({"matchLabels": {"app": "web", "v": "2"}}),
            json!({"app": "web", "v": "2"}),
        );
        assert_eq!(
            cause_lines(&deployments().validate_update(&new, &old)),
            [
                "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"web\", \"v\":\"2\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable"
            ]
        );
    }

    #[test]
    fn a_stateful_set_keeps_its_service_name() {
        let sets = WorkloadStrategy {
            workload: Workload::StatefulSet,
            status: Schema::default(),
        };
        let mut old = deployment(json!({"matchLabels": {"app": "db"}}), json!({"app": "db"}));
        old["spec"]["serviceName"] = json!("db");
        let mut scaled = old.clone();
        scaled["spec"]["replicas"] = json!(3);
        assert_eq!(
            cause_lines(&sets.validate_update(&scaled, &old)),
            Vec::<String>::new()
        );
        let mut renamed = old.clone();
        renamed["spec"]["serviceName"] = json!("other");
        let lines = cause_lines(&sets.validate_update(&renamed, &old));
        assert_eq!(lines.len(), 1);
        assert!(lines[0].starts_with("spec: Forbidden: updates to statefulset spec"));
    }
}
