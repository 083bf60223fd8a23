//! The default policy's shape: every binding names one of its roles, the
//! aggregation labels and selectors line up, groups follow the API domain,
//! and rules are stored as Kubernetes' builder leaves them.

use serde_json::{Value, json};

use super::{AUTOUPDATE_ANNOTATION, BOOTSTRAPPING_LABEL, BootstrapPolicy};
use crate::api::object;

fn named<'a>(objects: &'a [Value], name: &str) -> &'a Value {
    objects
        .iter()
        .find(|o| object::name(o) == name)
        .unwrap_or_else(|| panic!("{name} is in the default policy"))
}

#[test]
fn every_binding_grants_a_default_cluster_role_of_its_own_name() {
    let policy = BootstrapPolicy::new("k8s.io");
    assert_eq!(policy.cluster_role_bindings.len(), 8);
    for binding in &policy.cluster_role_bindings {
        let role = binding["roleRef"]["name"].as_str().expect("roleRef.name");
        assert_eq!(role, object::name(binding));
        assert_eq!(binding["roleRef"]["kind"], "ClusterRole");
        named(&policy.cluster_roles, role);
        assert!(!binding["subjects"].as_array().expect("subjects").is_empty());
    }
    let public = named(&policy.cluster_role_bindings, "system:public-info-viewer");
    let groups: Vec<&str> = public["subjects"]
        .as_array()
        .expect("subjects")
        .iter()
        .map(|s| s["name"].as_str().expect("name"))
        .collect();
    assert_eq!(groups, ["system:authenticated", "system:unauthenticated"]);
}

#[test]
fn every_object_is_labelled_and_open_to_autoupdate() {
    let policy = BootstrapPolicy::new("k8s.io");
    for obj in policy
        .cluster_roles
        .iter()
        .chain(&policy.cluster_role_bindings)
    {
        assert_eq!(
            obj["metadata"]["labels"][BOOTSTRAPPING_LABEL], "rbac-defaults",
            "{obj}"
        );
        assert_eq!(
            obj["metadata"]["annotations"][AUTOUPDATE_ANNOTATION],
            "true"
        );
    }
}

#[test]
fn admin_edit_and_view_select_the_labels_their_parts_carry() {
    let policy = BootstrapPolicy::new("k8s.io");
    let roles = &policy.cluster_roles;
    let selects = |name: &str| {
        named(roles, name)["aggregationRule"]["clusterRoleSelectors"][0]["matchLabels"].clone()
    };
    let carries = |name: &str| named(roles, name)["metadata"]["labels"].clone();
    let key = "rbac.authorization.k8s.io/aggregate-to-";
    for to in ["admin", "edit", "view"] {
        let label = format!("{key}{to}");
        assert_eq!(selects(to)[&label], "true");
        assert_eq!(
            carries(&format!("system:aggregate-to-{to}"))[&label],
            "true"
        );
        assert!(named(roles, to).get("rules").is_none(), "{to} starts empty");
    }
    assert_eq!(carries("edit")[format!("{key}admin")], "true");
    assert_eq!(carries("view")[format!("{key}edit")], "true");
}

#[test]
fn kubernetes_groups_and_label_keys_follow_the_api_domain() {
    let policy = BootstrapPolicy::new("svc.io");
    // Role names stay Kubernetes' (`system:certificates.k8s.io:…`).
    let served: Vec<Value> = policy
        .cluster_roles
        .iter()
        .map(|r| json!([r["rules"], r["metadata"]["labels"], r["aggregationRule"]]))
        .collect();
    let text = serde_json::to_string(&served).expect("json");
    assert!(!text.contains("k8s.io"), "{text}");
    let basic = named(&policy.cluster_roles, "system:basic-user");
    assert_eq!(basic["rules"][0]["apiGroups"][0], "authorization.svc.io");
    assert_eq!(basic["rules"][1]["apiGroups"][0], "authentication.svc.io");
    let view = named(&policy.cluster_roles, "view");
    assert_eq!(
        view["aggregationRule"]["clusterRoleSelectors"][0]["matchLabels"]["rbac.authorization.svc.io/aggregate-to-view"],
        "true"
    );
    assert_eq!(
        named(&policy.cluster_role_bindings, "cluster-admin")["subjects"][0]["apiGroup"],
        "rbac.authorization.svc.io"
    );
    // Groups that are not Kubernetes' domain keep their names.
    let edit = serde_json::to_string(named(&policy.cluster_roles, "system:aggregate-to-edit"))
        .expect("json");
    assert!(edit.contains("\"apps\"") && edit.contains("\"batch\""));
}

#[test]
fn rules_hold_sorted_lists_and_only_the_fields_they_use() {
    let policy = BootstrapPolicy::new("k8s.io");
    let discovery = named(&policy.cluster_roles, "system:discovery");
    assert_eq!(
        discovery["rules"],
        serde_json::json!([{"verbs": ["get"], "nonResourceURLs": [
            "/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez",
            "/openapi", "/openapi/*", "/readyz", "/version", "/version/"
        ]}])
    );
    let admin = named(&policy.cluster_roles, "system:aggregate-to-admin");
    assert_eq!(
        admin["rules"][1],
        serde_json::json!({
            "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
            "apiGroups": ["rbac.authorization.k8s.io"],
            "resources": ["rolebindings", "roles"],
        })
    );
    let cluster_admin = named(&policy.cluster_roles, "cluster-admin");
    assert_eq!(
        cluster_admin["rules"],
        serde_json::json!([
            {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]},
            {"verbs": ["*"], "nonResourceURLs": ["*"]},
        ])
    );
}
