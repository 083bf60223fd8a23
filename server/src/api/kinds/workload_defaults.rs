//! The defaults Kubernetes 1.32 gives apps/v1 and batch/v1 objects when it
//! decodes them, applied on every create and update; pod templates get a
//! Pod's spec defaults.

use serde_json::{Map, Value, json};

use super::checks::{default_field, object_field};
use super::pod_defaults;
use crate::api::schema::{self, Schema};

/// Which apps/batch kind an object is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    Deployment,
    ReplicaSet,
    StatefulSet,
    DaemonSet,
    Job,
    CronJob,
}

fn template_defaults(template: Option<&mut Value>) {
    if let Some(template) = template.filter(|t| t.is_object()) {
        pod_defaults::apply(template);
    }
}

/// `field` of `map` as an object, created when missing.
fn child<'a>(map: &'a mut Map<String, Value>, field: &str) -> &'a mut Map<String, Value> {
    if !map.get(field).is_some_and(Value::is_object) {
        map.insert(field.to_owned(), json!({}));
    }
    map[field].as_object_mut().expect("just made an object")
}

fn rolling_strategy(spec: &mut Map<String, Value>, field: &str, rolling: &[(&str, Value)]) {
    let strategy = child(spec, field);
    default_field(strategy, "type", json!("RollingUpdate"));
    if strategy.get("type") == Some(&json!("RollingUpdate")) {
        let update = child(strategy, "rollingUpdate");
        for (name, value) in rolling {
            default_field(update, name, value.clone());
        }
    }
}

fn deployment(spec: &mut Map<String, Value>) {
    default_field(spec, "replicas", json!(1));
    rolling_strategy(
        spec,
        "strategy",
        &[("maxUnavailable", json!("25%")), ("maxSurge", json!("25%"))],
    );
    default_field(spec, "revisionHistoryLimit", json!(10));
    default_field(spec, "progressDeadlineSeconds", json!(600));
}

fn stateful_set(spec: &mut Map<String, Value>) {
    default_field(spec, "replicas", json!(1));
    default_field(spec, "podManagementPolicy", json!("OrderedReady"));
    rolling_strategy(spec, "updateStrategy", &[("partition", json!(0))]);
    default_field(spec, "revisionHistoryLimit", json!(10));
    let retention = child(spec, "persistentVolumeClaimRetentionPolicy");
    default_field(retention, "whenDeleted", json!("Retain"));
    default_field(retention, "whenScaled", json!("Retain"));
    if let Some(claims) = spec
        .get_mut("volumeClaimTemplates")
        .and_then(Value::as_array_mut)
    {
        for claim in claims.iter_mut().filter(|c| c.is_object()) {
            default_field(
                object_field(claim, "spec"),
                "volumeMode",
                json!("Filesystem"),
            );
            default_field(object_field(claim, "status"), "phase", json!("Pending"));
        }
    }
}

fn daemon_set(spec: &mut Map<String, Value>) {
    rolling_strategy(
        spec,
        "updateStrategy",
        &[("maxUnavailable", json!(1)), ("maxSurge", json!(0))],
    );
    default_field(spec, "revisionHistoryLimit", json!(10));
}

/// A Job's spec defaults (also what a CronJob's template does not get:
/// Kubernetes defaults a JobSpec only inside a Job).
fn job(spec: &mut Map<String, Value>) {
    let unset = |spec: &Map<String, Value>, f: &str| spec.get(f).is_none_or(Value::is_null);
    if unset(spec, "completions") && unset(spec, "parallelism") {
        spec.insert("completions".into(), json!(1));
    }
    default_field(spec, "parallelism", json!(1));
    let backoff = if unset(spec, "backoffLimitPerIndex") {
        json!(6)
    } else {
        json!(i32::MAX)
    };
    default_field(spec, "backoffLimit", backoff);
    default_field(spec, "completionMode", json!("NonIndexed"));
    default_field(spec, "suspend", json!(false));
    let replacement = if unset(spec, "podFailurePolicy") {
        "TerminatingOrFailed"
    } else {
        "Failed"
    };
    default_field(spec, "podReplacementPolicy", json!(replacement));
    if let Some(rules) = spec
        .get_mut("podFailurePolicy")
        .and_then(|p| p.get_mut("rules"))
        .and_then(Value::as_array_mut)
    {
        let conditions = rules
            .iter_mut()
            .filter_map(|r| r.get_mut("onPodConditions"))
            .filter_map(Value::as_array_mut)
            .flatten()
            .filter_map(Value::as_object_mut);
        for condition in conditions {
            default_field(condition, "status", json!("True"));
        }
    }
}

fn cron_job(spec: &mut Map<String, Value>) {
    default_field(spec, "concurrencyPolicy", json!("Allow"));
    default_field(spec, "suspend", json!(false));
    default_field(spec, "successfulJobsHistoryLimit", json!(3));
    default_field(spec, "failedJobsHistoryLimit", json!(1));
    let job_template = spec.get_mut("jobTemplate").and_then(|t| t.get_mut("spec"));
    template_defaults(job_template.and_then(|s| s.get_mut("template")));
}

/// A new object starts with an empty status whatever the client sent, as
/// Kubernetes' create strategies for these kinds do (controllers fill it),
/// with the counts Go always writes at zero (`status_schema`'s defaults).
pub fn reset_status(obj: &mut Value, status_schema: &Schema) {
    if let Some(obj) = obj.as_object_mut() {
        let mut status = json!({});
        schema::apply_defaults(status_schema, &mut status);
        obj.insert("status".into(), status);
    }
}

/// Fills in `obj`'s defaults as Kubernetes does for `workload`.
pub fn apply(workload: Workload, obj: &mut Value) {
    let spec = object_field(obj, "spec");
    match workload {
        Workload::Deployment => deployment(spec),
        Workload::ReplicaSet => default_field(spec, "replicas", json!(1)),
        Workload::StatefulSet => stateful_set(spec),
        Workload::DaemonSet => daemon_set(spec),
        Workload::Job => job(spec),
        Workload::CronJob => cron_job(spec),
    }
    if workload != Workload::CronJob {
        template_defaults(spec.get_mut("template"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_deployment_gets_kubernetes_defaults() {
        let mut d = json!({"spec": {"template": {"spec": {"containers": [{"name": "a", "image": "nginx"}]}}}});
        apply(Workload::Deployment, &mut d);
        let spec = &d["spec"];
        assert_eq!(spec["replicas"], 1);
        assert_eq!(spec["revisionHistoryLimit"], 10);
        assert_eq!(spec["progressDeadlineSeconds"], 600);
        assert_eq!(
            spec["strategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})
        );
        let pod = &spec["template"]["spec"];
        assert_eq!(pod["restartPolicy"], "Always");
        assert_eq!(pod["dnsPolicy"], "ClusterFirst");
        assert_eq!(pod["containers"][0]["imagePullPolicy"], "Always");
    }

    #[test]
    fn a_recreate_strategy_gets_no_rolling_update() {
        let mut d = json!({"spec": {"strategy": {"type": "Recreate"}, "replicas": 0}});
        apply(Workload::Deployment, &mut d);
        assert_eq!(d["spec"]["strategy"], json!({"type": "Recreate"}));
        assert_eq!(d["spec"]["replicas"], 0);
    }

    #[test]
    fn stateful_and_daemon_sets_roll_by_default() {
        let mut s =
            json!({"spec": {"volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {}}]}});
        apply(Workload::StatefulSet, &mut s);
        assert_eq!(
            s["spec"]["updateStrategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})
        );
        assert_eq!(s["spec"]["podManagementPolicy"], "OrderedReady");
        assert_eq!(
            s["spec"]["volumeClaimTemplates"][0]["spec"]["volumeMode"],
            "Filesystem"
        );
        let mut d = json!({"spec": {}});
        apply(Workload::DaemonSet, &mut d);
        assert_eq!(
            d["spec"]["updateStrategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}})
        );
    }

    #[test]
    fn job_and_cron_job_defaults() {
        let mut j = json!({"spec": {"completions": 5}});
        apply(Workload::Job, &mut j);
        assert_eq!(j["spec"]["completions"], 5);
        assert_eq!(j["spec"]["parallelism"], 1);
        assert_eq!(j["spec"]["backoffLimit"], 6);
        assert_eq!(j["spec"]["completionMode"], "NonIndexed");
        assert_eq!(j["spec"]["suspend"], false);
        assert_eq!(j["spec"]["podReplacementPolicy"], "TerminatingOrFailed");
        let mut c = json!({"spec": {"schedule": "@hourly", "jobTemplate": {"spec": {"template": {"spec": {}}}}}});
        apply(Workload::CronJob, &mut c);
        assert_eq!(c["spec"]["concurrencyPolicy"], "Allow");
        assert_eq!(c["spec"]["successfulJobsHistoryLimit"], 3);
        assert_eq!(c["spec"]["failedJobsHistoryLimit"], 1);
        assert_eq!(
            c["spec"]["jobTemplate"]["spec"]["template"]["spec"]["schedulerName"],
            "default-scheduler"
        );
        assert!(
            c["spec"]["jobTemplate"]["spec"]
                .get("backoffLimit")
                .is_none()
        );
    }
}
