//! Aggregation: the union of the selected roles' rules in name order,
//! each once, never the role's own; the default policy settles into
//! admin ⊇ edit ⊇ view; the controller follows new and deleted parts.

use serde_json::{Value, json};

use super::{ClusterRole, aggregated_rules, outdated};
use crate::controllers::rbac::bootstrap::BootstrapPolicy;
use crate::request::authz::rbac::covers::uncovered;
use crate::request::authz::rbac::rule::PolicyRule;

fn role(name: &str, labels: Value, rules: Value) -> ClusterRole {
    ClusterRole::from_object(json!({
        "metadata": {"name": name, "labels": labels},
        "rules": rules,
    }))
}

fn aggregating(name: &str, selectors: Value) -> ClusterRole {
    ClusterRole::from_object(json!({
        "metadata": {"name": name},
        "aggregationRule": {"clusterRoleSelectors": selectors},
    }))
}

fn rule(resource: &str) -> Value {
    json!({"verbs": ["get"], "apiGroups": [""], "resources": [resource]})
}

#[test]
fn union_in_name_order_without_repeats() {
    let target = aggregating("target", json!([{"matchLabels": {"agg": "yes"}}]));
    let roles = [
        role(
            "b",
            json!({"agg": "yes"}),
            json!([rule("secrets"), rule("pods")]),
        ),
        role("a", json!({"agg": "yes"}), json!([rule("pods")])),
        role("c", json!({"agg": "no"}), json!([rule("nodes")])),
    ];
    let rules = aggregated_rules(&target, roles.iter()).expect("aggregates");
    assert_eq!(rules, [rule("pods"), rule("secrets")]);
}

#[test]
fn expressions_select_and_a_role_never_aggregates_itself() {
    let target = ClusterRole::from_object(json!({
        "metadata": {"name": "target", "labels": {"tier": "x"}},
        "rules": [rule("configmaps")],
        "aggregationRule": {"clusterRoleSelectors": [
            {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["x", "y"]}]},
            {"matchExpressions": [{"key": "extra", "operator": "Exists"}]},
        ]},
    }));
    let roles = [
        role("tier-y", json!({"tier": "y"}), json!([rule("pods")])),
        role("extra", json!({"extra": ""}), json!([rule("nodes")])),
        role("other", json!({"tier": "z"}), json!([rule("secrets")])),
    ];
    let all: Vec<&ClusterRole> = roles.iter().chain([&target]).collect();
    let rules = aggregated_rules(&target, all).expect("aggregates");
    assert_eq!(rules, [rule("nodes"), rule("pods")]);
}

#[test]
fn no_aggregation_rule_or_a_bad_selector_leaves_the_role_alone() {
    let plain = role("plain", json!({}), json!([rule("pods")]));
    assert!(aggregated_rules(&plain, [&plain]).is_none());
    let bad = aggregating(
        "bad",
        json!([{"matchExpressions": [{"key": "a", "operator": "Near"}]}]),
    );
    assert!(aggregated_rules(&bad, [&plain]).is_none());
}

/// The default policy's rules once aggregated, by role name.
fn settled(policy: &BootstrapPolicy) -> Vec<(String, Vec<PolicyRule>)> {
    let mut roles: Vec<ClusterRole> = policy
        .cluster_roles
        .iter()
        .cloned()
        .map(ClusterRole::from_object)
        .collect();
    // view, then edit (which contains view), then admin.
    for _ in 0..3 {
        let updates: Vec<(usize, Vec<Value>)> = roles
            .iter()
            .enumerate()
            .filter_map(|(i, r)| aggregated_rules(r, roles.iter()).map(|rules| (i, rules)))
            .collect();
        for (i, rules) in updates {
            let mut obj = roles[i].object.clone();
            obj["rules"] = Value::Array(rules);
            roles[i] = ClusterRole::from_object(obj);
        }
    }
    roles
        .iter()
        .map(|r| {
            let rules = r.rules().iter().map(PolicyRule::from_json).collect();
            (r.name.clone(), rules)
        })
        .collect()
}

#[test]
fn the_default_policy_settles_into_admin_over_edit_over_view() {
    let roles = settled(&BootstrapPolicy::new("k8s.io"));
    let rules = |name: &str| {
        roles
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, r)| r.clone())
            .expect("role")
    };
    let (admin, edit, view) = (rules("admin"), rules("edit"), rules("view"));
    assert!(!view.is_empty());
    assert!(uncovered(&edit, &view).is_empty(), "edit covers view");
    assert!(uncovered(&admin, &edit).is_empty(), "admin covers edit");
    assert!(
        !uncovered(&view, &edit).is_empty(),
        "view is less than edit"
    );
    assert!(
        !uncovered(&edit, &admin).is_empty(),
        "edit is less than admin"
    );
    assert_eq!(view, rules("system:aggregate-to-view"));
}

#[test]
fn two_roles_aggregating_each_other_agree_instead_of_swapping() {
    let mutual = |name: &str, carries: &str, selects: &str, own: &str| {
        ClusterRole::from_object(json!({
            "metadata": {"name": name, "labels": {carries: "true"}},
            "rules": [rule(own)],
            "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {selects: "true"}}]},
        }))
    };
    let mut roles = [
        mutual("a", "x", "y", "pods"),
        mutual("b", "y", "x", "secrets"),
    ];
    for _ in 0..3 {
        let pending = outdated(&roles.iter().collect::<Vec<_>>());
        if pending.is_empty() {
            assert_eq!(roles[0].rules(), roles[1].rules());
            return;
        }
        for (name, obj) in pending {
            let at = roles.iter().position(|r| r.name == name).expect("role");
            roles[at] = ClusterRole::from_object(obj);
        }
    }
    panic!("aggregation did not settle");
}
