//! What RBAC costs per request, under the auth phase's policy: the default
//! policy (edit aggregated as the controller leaves it), 1,000 Roles and
//! 1,000 RoleBindings over 10 namespaces (1 in 20 bound to
//! system:authenticated), and a service account bound to `edit`
//! cluster-wide and to a role that creates Events in its namespace. The
//! decision measured is that service account creating an Event — the
//! create the auth phase of cairn-bench times end to end — and, for the
//! worst case, a request nothing allows (every binding consulted).
//!
//! Run: `cargo bench -p cairn-apiserver --bench rbac`

use std::hint::black_box;
use std::sync::Arc;

use cairn_apiserver::controllers::rbac::aggregation::{ClusterRole, aggregated_rules};
use cairn_apiserver::controllers::rbac::bootstrap::BootstrapPolicy;
use cairn_apiserver::request::authz::rbac::Rbac;
use cairn_apiserver::request::authz::rbac::policy::{Binding, Policy};
use cairn_apiserver::request::authz::rbac::rule::PolicyRule;
use cairn_apiserver::request::authz::{Attributes, Authorizer, Decision};
use cairn_apiserver::request::info::RequestInfo;
use cairn_apiserver::request::user::UserInfo;
use cairn_apiserver::util::maybe_async::MaybeAsync;
use criterion::{Criterion, criterion_group, criterion_main};
use http::Method;
use serde_json::{Value, json};

const DOMAIN: &str = "k8s.io";
const NAMESPACES: u64 = 10;
const NOISE: u64 = 1_000;

type RoleEntry = (String, String, Arc<[PolicyRule]>);

fn role_entry(namespace: &str, role: &Value) -> RoleEntry {
    (
        namespace.to_string(),
        role["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        PolicyRule::all_of(role).into(),
    )
}

fn binding(value: &Value) -> Arc<Binding> {
    Arc::new(Binding::from_json(value).expect("a binding"))
}

/// The default ClusterRoles with aggregated rules filled in.
fn default_roles(policy: &BootstrapPolicy) -> Vec<RoleEntry> {
    let all: Vec<ClusterRole> = policy
        .cluster_roles
        .iter()
        .cloned()
        .map(ClusterRole::from_object)
        .collect();
    policy
        .cluster_roles
        .iter()
        .zip(&all)
        .map(|(object, parsed)| {
            let mut object = object.clone();
            if let Some(rules) = aggregated_rules(parsed, &all) {
                object["rules"] = Value::Array(rules);
            }
            role_entry("", &object)
        })
        .collect()
}

fn policy() -> Policy {
    let defaults = BootstrapPolicy::new(DOMAIN);
    let mut roles = default_roles(&defaults);
    let mut bindings: Vec<Arc<Binding>> =
        defaults.cluster_role_bindings.iter().map(binding).collect();
    let sa = json!({"kind": "ServiceAccount", "name": "default", "namespace": "default"});
    bindings.push(binding(&json!({"metadata": {"name": "sa-edit"},
        "roleRef": {"kind": "ClusterRole", "name": "edit"}, "subjects": [sa]})));
    roles.push(role_entry(
        "",
        &json!({"metadata": {"name": "events"},
        "rules": [{"verbs": ["create"], "apiGroups": [""], "resources": ["events"]}]}),
    ));
    for k in 0..NAMESPACES {
        bindings.push(binding(
            &json!({"metadata": {"name": "events", "namespace": format!("ns-{k}")},
            "roleRef": {"kind": "ClusterRole", "name": "events"}, "subjects": [sa]}),
        ));
    }
    for i in 0..NOISE {
        let ns = format!("ns-{}", i % NAMESPACES);
        roles.push(role_entry(&ns, &json!({"metadata": {"name": format!("noise-{i}")}, "rules": [
            {"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["configmaps", "secrets"]},
            {"verbs": ["update"], "apiGroups": ["apps"], "resources": ["deployments/scale"], "resourceNames": [format!("app-{i}")]},
            {"verbs": ["*"], "apiGroups": ["batch"], "resources": ["jobs"]}]})));
        let subject = if i % 20 == 0 {
            json!({"kind": "Group", "name": "system:authenticated"})
        } else {
            json!({"kind": "User", "name": format!("user-{i}")})
        };
        bindings.push(binding(
            &json!({"metadata": {"name": format!("noise-{i}"), "namespace": ns},
            "roleRef": {"kind": "Role", "name": format!("noise-{i}")}, "subjects": [subject]}),
        ));
    }
    Policy::new(roles, bindings)
}

fn decide(rbac: &Rbac, user: &UserInfo, info: &RequestInfo) -> bool {
    match rbac.authorize(&Attributes { user, info }) {
        MaybeAsync::Ready(Ok(decision)) => decision == Decision::Allow,
        _ => unreachable!("RBAC answers at once"),
    }
}

fn bench(c: &mut Criterion) {
    let rbac = Rbac::new(policy(), &format!("rbac.authorization.{DOMAIN}"));
    let sa = UserInfo::new(
        "system:serviceaccount:default:default",
        &[
            "system:serviceaccounts",
            "system:serviceaccounts:default",
            "system:authenticated",
        ],
    );
    let create = RequestInfo::new(
        &Method::POST,
        "/api/v1/namespaces/ns-3/events".into(),
        None,
        None,
    );
    let refused = RequestInfo::new(
        &Method::DELETE,
        "/api/v1/namespaces/ns-3/nodes/n".into(),
        None,
        None,
    );
    assert!(decide(&rbac, &sa, &create));
    assert!(!decide(&rbac, &sa, &refused));
    c.bench_function("rbac/sa_create_event", |b| {
        b.iter(|| black_box(decide(&rbac, black_box(&sa), black_box(&create))));
    });
    c.bench_function("rbac/sa_refused", |b| {
        b.iter(|| black_box(decide(&rbac, black_box(&sa), black_box(&refused))));
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
