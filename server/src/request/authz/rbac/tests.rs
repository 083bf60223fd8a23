//! The RBAC authorizer over fixed policies: who bindings reach, roles
//! by scope, missing roles as reasons, and the rules it reports.

use std::sync::Arc;

use http::Method;
use serde_json::{Value, json};

use super::policy::{Binding, Policy};
use super::rule::PolicyRule;
use super::*;
use crate::request::authz::Attributes;
use crate::request::info::RequestInfo;

fn role(namespace: &str, name: &str, rules: Value) -> (String, String, Arc<[PolicyRule]>) {
    (
        namespace.into(),
        name.into(),
        PolicyRule::all_of(&json!({ "rules": rules })).into(),
    )
}

fn binding(value: Value) -> Arc<Binding> {
    Arc::new(Binding::from_json(&value).expect("a binding"))
}

fn rbac() -> Rbac {
    let roles = [
        role(
            "",
            "reader",
            json!([{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}]),
        ),
        role(
            "",
            "health",
            json!([{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]),
        ),
        role(
            "team",
            "writer",
            json!([{"verbs": ["create"], "apiGroups": [""], "resources": ["configmaps"]}]),
        ),
    ];
    let bindings = [
        binding(
            json!({"metadata": {"name": "readers"}, "roleRef": {"kind": "ClusterRole", "name": "reader"},
            "subjects": [{"kind": "Group", "name": "readers"}]}),
        ),
        binding(
            json!({"metadata": {"name": "everyone-health"}, "roleRef": {"kind": "ClusterRole", "name": "health"},
            "subjects": [{"kind": "Group", "name": "system:authenticated"}]}),
        ),
        binding(
            json!({"metadata": {"name": "writers", "namespace": "team"}, "roleRef": {"kind": "Role", "name": "writer"},
            "subjects": [{"kind": "User", "name": "ann"}, {"kind": "ServiceAccount", "name": "bot"}]}),
        ),
        binding(
            json!({"metadata": {"name": "local-readers", "namespace": "team"}, "roleRef": {"kind": "ClusterRole", "name": "reader"},
            "subjects": [{"kind": "ServiceAccount", "name": "robot", "namespace": "ops"}]}),
        ),
        binding(
            json!({"metadata": {"name": "dangling", "namespace": "team"}, "roleRef": {"kind": "Role", "name": "gone"},
            "subjects": [{"kind": "User", "name": "ann"}]}),
        ),
    ];
    Rbac::new(Policy::new(roles, bindings), "rbac.authorization.k8s.io")
}

fn decide(rbac: &Rbac, user: &UserInfo, method: Method, path: &str) -> Decision {
    let info = RequestInfo::new(&method, path.to_string(), None, None);
    match rbac.authorize(&Attributes { user, info: &info }) {
        MaybeAsync::Ready(answer) => answer.expect("RBAC never fails"),
        MaybeAsync::Pending(_) => panic!("RBAC answers at once"),
    }
}

#[test]
fn cluster_bindings_reach_groups_everywhere() {
    let rbac = rbac();
    let reader = UserInfo::new("rita", &["readers", "system:authenticated"]);
    assert_eq!(
        decide(&rbac, &reader, Method::GET, "/api/v1/namespaces/any/pods"),
        Decision::Allow
    );
    assert_eq!(
        decide(&rbac, &reader, Method::GET, "/api/v1/pods"),
        Decision::Allow
    );
    assert_eq!(
        decide(&rbac, &reader, Method::GET, "/healthz"),
        Decision::Allow
    );
    assert!(matches!(
        decide(
            &rbac,
            &reader,
            Method::DELETE,
            "/api/v1/namespaces/a/pods/p"
        ),
        Decision::NoOpinion(_)
    ));
    let stranger = UserInfo::new("sam", &[]);
    assert!(matches!(
        decide(&rbac, &stranger, Method::GET, "/healthz"),
        Decision::NoOpinion(_)
    ));
}

#[test]
fn role_bindings_grant_only_in_their_namespace() {
    let rbac = rbac();
    let bot = UserInfo::new(
        "system:serviceaccount:team:bot",
        &["system:serviceaccounts"],
    );
    assert_eq!(
        decide(
            &rbac,
            &bot,
            Method::POST,
            "/api/v1/namespaces/team/configmaps"
        ),
        Decision::Allow
    );
    assert!(matches!(
        decide(
            &rbac,
            &bot,
            Method::POST,
            "/api/v1/namespaces/other/configmaps"
        ),
        Decision::NoOpinion(_)
    ));
    let robot = UserInfo::new("system:serviceaccount:ops:robot", &[]);
    assert_eq!(
        decide(&rbac, &robot, Method::GET, "/api/v1/namespaces/team/pods"),
        Decision::Allow
    );
    assert!(matches!(
        decide(&rbac, &robot, Method::GET, "/api/v1/namespaces/ops/pods"),
        Decision::NoOpinion(_)
    ));
    assert!(
        matches!(
            decide(&rbac, &robot, Method::GET, "/api/v1/pods"),
            Decision::NoOpinion(_)
        ),
        "a cluster-wide list needs a cluster binding"
    );
}

#[test]
fn a_missing_role_is_the_reason_when_nothing_allows() {
    let rbac = rbac();
    let ann = UserInfo::new("ann", &[]);
    assert_eq!(
        decide(
            &rbac,
            &ann,
            Method::POST,
            "/api/v1/namespaces/team/configmaps"
        ),
        Decision::Allow
    );
    assert_eq!(
        decide(
            &rbac,
            &ann,
            Method::DELETE,
            "/api/v1/namespaces/team/configmaps/c"
        ),
        Decision::NoOpinion(r#"RBAC: role.rbac.authorization.k8s.io "gone" not found"#.into())
    );
}

#[test]
fn rules_for_lists_what_the_bindings_grant() {
    let rbac = rbac();
    let ann = UserInfo::new("ann", &["readers"]);
    let rules = rbac.rules_for(&ann, "team");
    assert_eq!(
        rules.resource_rules.len(),
        2,
        "reader cluster-wide and writer in team"
    );
    assert!(rules.incomplete, "a binding's role is missing");
    assert!(rules.evaluation_error.contains("\"gone\""));
    let cluster = rbac.rules_for(&ann, "");
    assert_eq!(cluster.resource_rules.len(), 1);
    assert!(!cluster.incomplete);
}
