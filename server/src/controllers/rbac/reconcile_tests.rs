//! Reconciliation of the default policy against a real store: what is
//! missing comes back, what users added stays, `autoupdate: "false"` is
//! respected, and a binding with another role reference is recreated.

use std::sync::Arc;

use clap::Parser;
use serde_json::{Value, json};

use super::{Plan, plan_binding, plan_role, reconcile};
use crate::api::decode::Decoded;
use crate::api::kind::KindSpec;
use crate::api::kinds;
use crate::api::store::{Store, WriteOptions};
use crate::config::{Config, Flags};
use crate::controllers::rbac::bootstrap::BootstrapPolicy;
use crate::request::admission::Chain;
use crate::storage::embedded::Embedded;

const GROUP: &str = "rbac.authorization.k8s.io";

struct Fixture {
    store: Store,
    policy: BootstrapPolicy,
    _dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = Config::from(Flags::parse_from(["cairn-apiserver"]));
        let storage = Arc::new(Embedded::open(dir.path()).expect("store"));
        let registry = Arc::new(kinds::builtin(&config));
        Fixture {
            store: Store::new(storage, registry, Arc::new(Chain::default())),
            policy: BootstrapPolicy::new("k8s.io"),
            _dir: dir,
        }
    }

    fn kind(&self, resource: &str) -> Arc<KindSpec> {
        self.store
            .registry
            .lookup(GROUP, "v1", resource)
            .expect("rbac kind")
    }

    async fn get(&self, resource: &str, name: &str) -> Option<Value> {
        self.store
            .get(&self.kind(resource), None, name, None)
            .await
            .ok()
    }

    async fn update(&self, resource: &str, obj: Value) {
        let name = obj["metadata"]["name"].as_str().expect("name").to_string();
        let decoded = Decoded {
            value: obj,
            duplicates: Vec::new(),
        };
        self.store
            .update(
                &self.kind(resource),
                None,
                &name,
                decoded,
                &WriteOptions::default(),
            )
            .await
            .expect("updated");
    }

    async fn delete(&self, resource: &str, name: &str) {
        self.store
            .delete(&self.kind(resource), None, name, &Default::default())
            .await
            .expect("deleted");
    }

    async fn reconcile(&self) {
        reconcile(&self.store, &self.policy)
            .await
            .expect("reconciled");
    }
}

fn rules(role: &Value) -> Vec<Value> {
    role["rules"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn a_deleted_role_and_binding_come_back_and_a_second_pass_writes_nothing() {
    let f = Fixture::new();
    f.reconcile().await;
    let discovery = f
        .get("clusterroles", "system:discovery")
        .await
        .expect("role");
    f.delete("clusterroles", "system:discovery").await;
    f.delete("clusterrolebindings", "system:basic-user").await;
    f.reconcile().await;
    let back = f
        .get("clusterroles", "system:discovery")
        .await
        .expect("back");
    assert_eq!(rules(&back), rules(&discovery));
    assert!(
        f.get("clusterrolebindings", "system:basic-user")
            .await
            .is_some()
    );
    let before = f.store.current_revision().await.expect("revision");
    f.reconcile().await;
    assert_eq!(f.store.current_revision().await.expect("revision"), before);
}

#[tokio::test]
async fn a_removed_rule_is_added_back_and_rules_users_added_stay() {
    let f = Fixture::new();
    f.reconcile().await;
    let mut basic = f
        .get("clusterroles", "system:basic-user")
        .await
        .expect("role");
    let own = json!({"verbs": ["get"], "apiGroups": [""], "resources": ["configmaps"]});
    // The self-review rule is dropped, one of the user's own is added.
    basic["rules"] = json!([basic["rules"][1].clone(), own.clone()]);
    basic["metadata"]["labels"] = json!({"team": "a"});
    f.update("clusterroles", basic).await;
    f.reconcile().await;
    let basic = f
        .get("clusterroles", "system:basic-user")
        .await
        .expect("role");
    let rules = rules(&basic);
    assert!(rules.contains(&own), "{rules:?}");
    // Added back as single permissions, as Kubernetes does.
    for resource in ["selfsubjectaccessreviews", "selfsubjectrulesreviews"] {
        let single = json!({"verbs": ["create"], "apiGroups": ["authorization.k8s.io"], "resources": [resource]});
        assert!(rules.contains(&single), "{resource} in {rules:?}");
    }
    let labels = &basic["metadata"]["labels"];
    assert_eq!(labels["team"], "a");
    assert_eq!(labels["kubernetes.io/bootstrapping"], "rbac-defaults");
}

#[tokio::test]
async fn autoupdate_false_leaves_a_role_as_its_owner_made_it() {
    let f = Fixture::new();
    f.reconcile().await;
    let mut view = f
        .get("clusterroles", "system:aggregate-to-view")
        .await
        .expect("role");
    view["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"] = json!("false");
    view["rules"] = json!([{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]);
    f.update("clusterroles", view.clone()).await;
    f.reconcile().await;
    let after = f
        .get("clusterroles", "system:aggregate-to-view")
        .await
        .expect("role");
    assert_eq!(rules(&after), rules(&view));
}

#[tokio::test]
async fn a_binding_to_another_role_is_recreated_with_its_subjects_kept() {
    let f = Fixture::new();
    f.reconcile().await;
    f.delete("clusterrolebindings", "system:discovery").await;
    let kind = f.kind("clusterrolebindings");
    let custom = json!({
        "metadata": {"name": "system:discovery"},
        "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": "view"},
        "subjects": [{"kind": "User", "apiGroup": GROUP, "name": "alice"}],
    });
    let decoded = Decoded {
        value: custom,
        duplicates: Vec::new(),
    };
    f.store
        .create(&kind, None, decoded, &WriteOptions::default())
        .await
        .expect("created");
    f.reconcile().await;
    let binding = f
        .get("clusterrolebindings", "system:discovery")
        .await
        .expect("binding");
    assert_eq!(binding["roleRef"]["name"], "system:discovery");
    let names: Vec<&str> = binding["subjects"]
        .as_array()
        .expect("subjects")
        .iter()
        .map(|s| s["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["alice", "system:authenticated"]);
}

#[test]
fn aggregated_roles_get_their_selectors_back_and_keep_computed_rules() {
    let policy = BootstrapPolicy::new("k8s.io");
    let expected = policy
        .cluster_roles
        .iter()
        .find(|r| r["metadata"]["name"] == "view")
        .expect("view");
    let mut existing = expected.clone();
    existing["aggregationRule"] =
        json!({"clusterRoleSelectors": [{"matchLabels": {"mine": "true"}}]});
    existing["rules"] = json!([{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]);
    let Plan::Update(result) = plan_role(expected, Some(&existing)) else {
        panic!("an update");
    };
    assert_eq!(
        result["aggregationRule"]["clusterRoleSelectors"],
        json!([
            {"matchLabels": {"mine": "true"}},
            {"matchLabels": {"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
        ])
    );
    assert_eq!(result["rules"], existing["rules"]);
    assert_eq!(plan_role(&result, Some(&result)), Plan::Unchanged);
}

#[test]
fn a_protected_binding_is_left_alone_even_with_another_role() {
    let policy = BootstrapPolicy::new("k8s.io");
    let expected = &policy.cluster_role_bindings[0];
    let mut existing = expected.clone();
    existing["roleRef"]["name"] = json!("view");
    existing["subjects"] = json!([]);
    existing["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"] =
        json!("false");
    assert_eq!(plan_binding(expected, Some(&existing)), Plan::Unchanged);
    assert_eq!(plan_binding(expected, None), Plan::Create(expected.clone()));
}
