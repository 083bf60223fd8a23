//! Kubernetes 1.32's default RBAC policy for an API server without a
//! controller manager: the ClusterRoles users are granted (cluster-admin,
//! the aggregating admin/edit/view and their `system:aggregate-to-*`
//! parts, discovery, self-reviews, health and version, monitoring,
//! delegated authentication, service-account issuer discovery) and the
//! ClusterRoleBindings that give them to `system:masters`, every
//! (un)authenticated user, `system:monitoring` and every service account.
//!
//! Rules are written with Kubernetes' group names; `*.k8s.io` groups are
//! served under the configured API domain, so they are renamed when the
//! policy is built, as are the `rbac.authorization.<domain>/aggregate-to-*`
//! label keys. `kubernetes.io/...` keys are not the API domain and stay.

use serde_json::{Map, Value, json};

use super::bootstrap_aggregated::{to_admin, to_edit, to_view};
use super::bootstrap_certificates::certificate_roles;
use super::bootstrap_components::{USER_BINDINGS, component_roles};
use crate::request::authz::setup::rbac_group;

/// Marks every object of the default policy.
pub const BOOTSTRAPPING_LABEL: &str = "kubernetes.io/bootstrapping";
pub const BOOTSTRAPPING_VALUE: &str = "rbac-defaults";
/// `"false"` here keeps reconciliation away from an object.
pub const AUTOUPDATE_ANNOTATION: &str = "rbac.authorization.kubernetes.io/autoupdate";

/// The verbs of Kubernetes' rule lists.
pub const READ: &[&str] = &["get", "list", "watch"];
pub const WRITE: &[&str] = &["create", "update", "patch", "delete", "deletecollection"];
pub const READ_WRITE: &[&str] = &[
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
];

/// The suffix of Kubernetes' own API groups, replaced by the API domain.
const KUBERNETES_DOMAIN: &str = "k8s.io";

/// One policy rule as Kubernetes' bootstrap policy spells it.
pub enum Rule {
    /// Verbs on resources of API groups.
    Resources {
        verbs: &'static [&'static str],
        groups: &'static [&'static str],
        resources: &'static [&'static str],
    },
    /// Verbs on the named objects of resources of API groups.
    Named {
        verbs: &'static [&'static str],
        groups: &'static [&'static str],
        resources: &'static [&'static str],
        names: &'static [&'static str],
    },
    /// Verbs on non-resource paths.
    Paths {
        verbs: &'static [&'static str],
        paths: &'static [&'static str],
    },
}

/// Shorthand for a resource rule.
#[must_use]
pub const fn on(
    verbs: &'static [&'static str],
    groups: &'static [&'static str],
    resources: &'static [&'static str],
) -> Rule {
    Rule::Resources {
        verbs,
        groups,
        resources,
    }
}

/// Shorthand for a non-resource rule.
#[must_use]
pub const fn paths(verbs: &'static [&'static str], paths: &'static [&'static str]) -> Rule {
    Rule::Paths { verbs, paths }
}

/// The default policy as objects ready to store, for one API domain.
pub struct BootstrapPolicy {
    /// `rbac.authorization.<domain>`.
    pub group: String,
    pub cluster_roles: Vec<Value>,
    pub cluster_role_bindings: Vec<Value>,
}

/// Which aggregation label a ClusterRole carries or selects.
#[derive(Clone, Copy)]
pub enum Aggregate {
    Admin,
    Edit,
    View,
}

impl Aggregate {
    /// `rbac.authorization.<domain>/aggregate-to-<x>`.
    #[must_use]
    pub fn label(self, rbac_group: &str) -> String {
        let to = match self {
            Aggregate::Admin => "admin",
            Aggregate::Edit => "edit",
            Aggregate::View => "view",
        };
        format!("{rbac_group}/aggregate-to-{to}")
    }
}

/// A ClusterRole of the default policy, before it is made an object.
struct RoleSpec {
    name: &'static str,
    /// The aggregation label it carries, if any.
    aggregates_to: Option<Aggregate>,
    /// The aggregation label it selects (its rules are then computed).
    aggregates: Option<Aggregate>,
    rules: Vec<Rule>,
}

fn role(name: &'static str, rules: Vec<Rule>) -> RoleSpec {
    RoleSpec {
        name,
        aggregates_to: None,
        aggregates: None,
        rules,
    }
}

fn aggregating(
    name: &'static str,
    selects: Aggregate,
    carries: Option<Aggregate>,
    rules: Vec<Rule>,
) -> RoleSpec {
    RoleSpec {
        name,
        aggregates_to: carries,
        aggregates: Some(selects),
        rules,
    }
}

fn part_of(name: &'static str, carries: Aggregate, rules: Vec<Rule>) -> RoleSpec {
    RoleSpec {
        name,
        aggregates_to: Some(carries),
        aggregates: None,
        rules,
    }
}

/// The ClusterRoles, in Kubernetes' order.
fn roles() -> Vec<RoleSpec> {
    let mut roles = vec![
        role(
            "cluster-admin",
            vec![on(&["*"], &["*"], &["*"]), paths(&["*"], &["*"])],
        ),
        role(
            "system:discovery",
            vec![paths(
                &["get"],
                &[
                    "/livez",
                    "/readyz",
                    "/healthz",
                    "/version",
                    "/version/",
                    "/openapi",
                    "/openapi/*",
                    "/api",
                    "/api/*",
                    "/apis",
                    "/apis/*",
                ],
            )],
        ),
        role(
            "system:monitoring",
            vec![paths(
                &["get"],
                &[
                    "/metrics",
                    "/metrics/slis",
                    "/livez",
                    "/readyz",
                    "/healthz",
                    "/livez/*",
                    "/readyz/*",
                    "/healthz/*",
                ],
            )],
        ),
        role(
            "system:basic-user",
            vec![
                on(
                    &["create"],
                    &["authorization.k8s.io"],
                    &["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
                ),
                on(
                    &["create"],
                    &["authentication.k8s.io"],
                    &["selfsubjectreviews"],
                ),
            ],
        ),
        role(
            "system:public-info-viewer",
            vec![paths(
                &["get"],
                &["/livez", "/readyz", "/healthz", "/version", "/version/"],
            )],
        ),
        aggregating("admin", Aggregate::Admin, None, Vec::new()),
        aggregating("edit", Aggregate::Edit, Some(Aggregate::Admin), Vec::new()),
        aggregating("view", Aggregate::View, Some(Aggregate::Edit), Vec::new()),
        part_of("system:aggregate-to-admin", Aggregate::Admin, to_admin()),
        part_of("system:aggregate-to-edit", Aggregate::Edit, to_edit()),
        part_of("system:aggregate-to-view", Aggregate::View, to_view()),
        role(
            "system:auth-delegator",
            vec![
                on(&["create"], &["authentication.k8s.io"], &["tokenreviews"]),
                on(
                    &["create"],
                    &["authorization.k8s.io"],
                    &["subjectaccessreviews"],
                ),
            ],
        ),
        role(
            "system:service-account-issuer-discovery",
            vec![paths(
                &["get"],
                &[
                    "/.well-known/openid-configuration",
                    "/.well-known/openid-configuration/",
                    "/openid/v1/jwks",
                    "/openid/v1/jwks/",
                ],
            )],
        ),
    ];
    roles.extend(
        certificate_roles()
            .into_iter()
            .chain(component_roles())
            .map(|(name, rules)| role(name, rules)),
    );
    roles
}

/// The ClusterRoleBindings: (binding and role name, groups bound), in
/// Kubernetes' order.
const BINDINGS: &[(&str, &[&str])] = &[
    ("cluster-admin", &["system:masters"]),
    ("system:monitoring", &["system:monitoring"]),
    ("system:discovery", &["system:authenticated"]),
    ("system:basic-user", &["system:authenticated"]),
    (
        "system:public-info-viewer",
        &["system:authenticated", "system:unauthenticated"],
    ),
    (
        "system:service-account-issuer-discovery",
        &["system:serviceaccounts"],
    ),
];

/// `*.k8s.io` as served under `domain`; other groups (`apps`, `""`, `*`)
/// unchanged.
fn served_group(group: &str, domain: &str) -> String {
    match group.strip_suffix(KUBERNETES_DOMAIN) {
        Some(prefix) if prefix.ends_with('.') => format!("{prefix}{domain}"),
        _ => group.to_string(),
    }
}

/// A list as Kubernetes' rule builder leaves it: sorted, without repeats.
fn sorted(items: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut items: Vec<String> = items.into_iter().collect();
    items.sort();
    items.dedup();
    items
}

fn owned(items: &[&str]) -> impl Iterator<Item = String> {
    items.iter().map(|s| (*s).to_string())
}

impl Rule {
    /// The rule as stored: only the fields it uses, each list sorted.
    #[must_use]
    pub fn to_json(&self, domain: &str) -> Value {
        match self {
            Rule::Resources {
                verbs,
                groups,
                resources,
            } => json!({
                "verbs": sorted(owned(verbs)),
                "apiGroups": sorted(groups.iter().map(|g| served_group(g, domain))),
                "resources": sorted(owned(resources)),
            }),
            Rule::Named {
                verbs,
                groups,
                resources,
                names,
            } => json!({
                "verbs": sorted(owned(verbs)),
                "apiGroups": sorted(groups.iter().map(|g| served_group(g, domain))),
                "resources": sorted(owned(resources)),
                "resourceNames": sorted(owned(names)),
            }),
            Rule::Paths { verbs, paths } => json!({
                "verbs": sorted(owned(verbs)),
                "nonResourceURLs": sorted(owned(paths)),
            }),
        }
    }
}

/// Labels and annotations every default object carries, plus `extra`
/// labels.
fn metadata(name: &str, extra: Option<(String, &str)>) -> Value {
    let mut labels = Map::new();
    labels.insert(BOOTSTRAPPING_LABEL.into(), json!(BOOTSTRAPPING_VALUE));
    if let Some((key, value)) = extra {
        labels.insert(key, json!(value));
    }
    json!({
        "name": name,
        "labels": labels,
        "annotations": {AUTOUPDATE_ANNOTATION: "true"},
    })
}

impl RoleSpec {
    fn to_json(&self, domain: &str, group: &str) -> Value {
        let carried = self.aggregates_to.map(|a| (a.label(group), "true"));
        let mut role = json!({
            "apiVersion": format!("{group}/v1"),
            "kind": "ClusterRole",
            "metadata": metadata(self.name, carried),
        });
        if !self.rules.is_empty() {
            role["rules"] = self.rules.iter().map(|r| r.to_json(domain)).collect();
        }
        if let Some(selects) = self.aggregates {
            role["aggregationRule"] = json!({
                "clusterRoleSelectors": [{"matchLabels": {selects.label(group): "true"}}]
            });
        }
        role
    }
}

/// A ClusterRoleBinding of the role `name` to `subjects` (kind, name).
fn binding(name: &str, subjects: &[(&str, &str)], group: &str) -> Value {
    let subjects: Vec<Value> = subjects
        .iter()
        .map(|(kind, who)| json!({"kind": kind, "apiGroup": group, "name": who}))
        .collect();
    json!({
        "apiVersion": format!("{group}/v1"),
        "kind": "ClusterRoleBinding",
        "metadata": metadata(name, None),
        "roleRef": {"apiGroup": group, "kind": "ClusterRole", "name": name},
        "subjects": subjects,
    })
}

impl BootstrapPolicy {
    /// The default policy for the API domain `domain` (`k8s.io` gives
    /// Kubernetes' own objects).
    #[must_use]
    pub fn new(domain: &str) -> BootstrapPolicy {
        let group = rbac_group(domain);
        BootstrapPolicy {
            cluster_roles: roles().iter().map(|r| r.to_json(domain, &group)).collect(),
            cluster_role_bindings: BINDINGS
                .iter()
                .map(|(name, groups)| {
                    let subjects: Vec<_> = groups.iter().map(|g| ("Group", *g)).collect();
                    binding(name, &subjects, &group)
                })
                .chain(
                    USER_BINDINGS
                        .iter()
                        .map(|(name, user)| binding(name, &[("User", user)], &group)),
                )
                .collect(),
            group,
        }
    }
}

#[cfg(test)]
#[path = "bootstrap_tests.rs"]
mod tests;
