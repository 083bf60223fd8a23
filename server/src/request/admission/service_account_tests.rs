//! The ServiceAccount plugin's pod changes and refusals.

use serde_json::json;

use super::*;
use crate::api::schema::Schema;
use crate::api::store::WriteOptions;

fn pods() -> KindSpec {
    KindSpec::new(
        "",
        "v1",
        "Pod",
        "pods",
        true,
        Schema::resource::<[(&str, Schema); 0], &str>([]),
    )
}

#[test]
fn every_container_mounts_one_token_volume() {
    let mut pod = json!({"spec": {
        "initContainers": [{"name": "init"}],
        "containers": [
            {"name": "app", "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
            {"name": "own", "volumeMounts": [{"name": "mine", "mountPath": MOUNT_PATH}]}
        ],
        "volumes": [{"name": "data", "emptyDir": {}}]
    }});
    mount_token(&mut pod);
    let volumes = items_at(&pod, "/spec/volumes");
    assert_eq!(volumes.len(), 2);
    let name = str_at(&volumes[1], "/name").to_string();
    assert!(name.starts_with(VOLUME_PREFIX) && name.len() == VOLUME_PREFIX.len() + 5);
    assert_eq!(volumes[1], token_volume(&name));
    let mount = json!({"name": name, "readOnly": true, "mountPath": MOUNT_PATH});
    assert_eq!(
        pod["spec"]["initContainers"][0]["volumeMounts"],
        json!([mount])
    );
    assert_eq!(pod["spec"]["containers"][0]["volumeMounts"][1], mount);
    // A container with its own mount at the path keeps it alone.
    assert_eq!(items_at(&pod, "/spec/containers/1/volumeMounts").len(), 1);
    // Mounting again adds nothing: the volume is found by its prefix.
    let before = pod.clone();
    mount_token(&mut pod);
    assert_eq!(pod, before);
}

#[test]
fn the_pod_then_the_account_decide_automounting() {
    let on = json!({"automountServiceAccountToken": true});
    let off = json!({"automountServiceAccountToken": false});
    let silent = json!({});
    let pod = |v: Option<bool>| json!({"spec": {"automountServiceAccountToken": v}});
    assert!(automounts(&silent, &json!({"spec": {}})));
    assert!(!automounts(&off, &json!({"spec": {}})));
    assert!(automounts(&off, &pod(Some(true))));
    assert!(!automounts(&on, &pod(Some(false))));
}

#[test]
fn enforced_accounts_limit_the_secrets_and_mirror_pods_name_none() {
    let kind = pods();
    let opts = WriteOptions::default();
    let attrs = Attributes::create(&kind, Some("ns"), "p", &opts);
    let account = json!({"metadata": {"name": "sa", "annotations": {ENFORCE_ANNOTATION: "true"}},
        "secrets": [{"name": "ok"}]});
    let pod = |secret: &str| {
        json!({"spec": {"containers": [{"name": "c",
        "env": [{"name": "E", "valueFrom": {"secretKeyRef": {"name": secret, "key": "k"}}}]}]}})
    };
    assert!(mountable_secrets(&attrs, &account, &pod("ok")).is_ok());
    let refused = mountable_secrets(&attrs, &account, &pod("other")).unwrap_err();
    assert_eq!(refused.code(), 403);
    assert!(
        refused.to_string().contains(
            "env with valueFrom.secretKeyRef.name=\"other\" is not allowed because service account sa does not reference that secret"
        ),
        "{refused}"
    );
    let lax = json!({"metadata": {"name": "sa"}});
    assert!(mountable_secrets(&attrs, &lax, &pod("other")).is_ok());

    let mirror = json!({"metadata": {"annotations": {MIRROR_ANNOTATION: "x"}},
        "spec": {"serviceAccountName": "default"}});
    assert!(is_mirror(&mirror));
    let e = mirror_rules(&attrs, &mirror).unwrap_err();
    assert!(
        e.to_string()
            .contains("a mirror pod may not reference service accounts"),
        "{e}"
    );
    assert!(mirror_rules(&attrs, &json!({"spec": {}})).is_ok());
    let e = mirror_rules(&attrs, &pod("s")).unwrap_err();
    assert!(
        e.to_string()
            .contains("a mirror pod may not reference secrets"),
        "{e}"
    );
}
