//! Tests of the Pod rules: status reset on create, required images and
//! distinct names, the few spec changes an update may make, and the grace
//! period a delete takes.

use serde_json::{Value, json};

use super::pod_strategy::PodStrategy;
use crate::api::kind::Strategy;
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
