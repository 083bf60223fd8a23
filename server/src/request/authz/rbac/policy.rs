//! The RBAC policy as one immutable snapshot: roles by name and bindings
//! indexed by the principals they name, so a request looks up its user
//! and groups instead of scanning every binding.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::rule::PolicyRule;
use crate::api::object;
use crate::request::user::UserInfo;

/// Whom a subject names, as a user or group name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Principal {
    User(String),
    Group(String),
}

/// The service-account user name Kubernetes gives `ns`/`name`.
#[must_use]
pub fn service_account_user(namespace: &str, name: &str) -> String {
    format!("system:serviceaccount:{namespace}:{name}")
}

/// The role a binding grants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoleRef {
    /// `Role` (in the binding's namespace) or `ClusterRole`.
    pub cluster: bool,
    pub name: String,
}

/// A RoleBinding (with its namespace) or ClusterRoleBinding.
#[derive(Clone, Debug)]
pub struct Binding {
    pub name: String,
    /// `None` for a ClusterRoleBinding.
    pub namespace: Option<String>,
    pub role: RoleRef,
    pub principals: Vec<Principal>,
    /// How the subjects are spelled, for reasons (`User "u"`).
    pub subjects: Vec<String>,
}

impl Binding {
    /// A stored binding; `None` when its roleRef is unusable.
    #[must_use]
    pub fn from_json(value: &Value) -> Option<Binding> {
        let namespace = object::namespace(value).map(str::to_string);
        let role_ref = value.get("roleRef")?;
        let role = RoleRef {
            cluster: role_ref.get("kind")?.as_str()? == "ClusterRole",
            name: role_ref.get("name")?.as_str()?.to_string(),
        };
        let mut principals = Vec::new();
        let mut subjects = Vec::new();
        for subject in value
            .get("subjects")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let kind = subject.get("kind").and_then(Value::as_str).unwrap_or("");
            let name = subject.get("name").and_then(Value::as_str).unwrap_or("");
            let principal = match kind {
                "User" => Principal::User(name.to_string()),
                "Group" => Principal::Group(name.to_string()),
                "ServiceAccount" => {
                    let sa_namespace = subject
                        .get("namespace")
                        .and_then(Value::as_str)
                        .filter(|ns| !ns.is_empty())
                        .or(namespace.as_deref());
                    match sa_namespace {
                        Some(ns) => Principal::User(service_account_user(ns, name)),
                        None => continue,
                    }
                }
                _ => continue,
            };
            principals.push(principal);
            subjects.push(format!("{kind} {name:?}"));
        }
        Some(Binding {
            name: object::name(value).to_string(),
            namespace,
            role,
            principals,
            subjects,
        })
    }
}

/// The bindings of one scope (a namespace, or `""` for cluster bindings)
/// by the names of the users and groups they name.
#[derive(Default)]
struct Scope {
    users: HashMap<String, Vec<Arc<Binding>>>,
    groups: HashMap<String, Vec<Arc<Binding>>>,
}

/// Every role and binding at one moment.
#[derive(Default)]
pub struct Policy {
    /// Roles by namespace (`""`: cluster roles), then name.
    roles: HashMap<String, HashMap<String, Arc<[PolicyRule]>>>,
    scopes: HashMap<String, Scope>,
}

/// What a binding's role turned out to be.
pub enum Granted<'a> {
    Rules(&'a Arc<[PolicyRule]>),
    /// The role does not exist: Kubernetes reports it as an error.
    Missing,
}

impl Policy {
    /// A policy of these roles (`(namespace or "", name, rules)`) and bindings.
    #[must_use]
    pub fn new(
        roles: impl IntoIterator<Item = (String, String, Arc<[PolicyRule]>)>,
        bindings: impl IntoIterator<Item = Arc<Binding>>,
    ) -> Policy {
        let mut policy = Policy::default();
        for (namespace, name, rules) in roles {
            policy
                .roles
                .entry(namespace)
                .or_default()
                .insert(name, rules);
        }
        for binding in bindings {
            let scope = policy
                .scopes
                .entry(binding.namespace.clone().unwrap_or_default())
                .or_default();
            let mut seen: Vec<&Principal> = Vec::new();
            for principal in &binding.principals {
                if seen.contains(&principal) {
                    continue;
                }
                seen.push(principal);
                let (index, name) = match principal {
                    Principal::User(name) => (&mut scope.users, name),
                    Principal::Group(name) => (&mut scope.groups, name),
                };
                index
                    .entry(name.clone())
                    .or_default()
                    .push(Arc::clone(&binding));
            }
        }
        policy
    }

    /// The rules `binding` grants.
    #[must_use]
    pub fn granted<'a>(&'a self, binding: &Binding) -> Granted<'a> {
        let found = match (&binding.namespace, binding.role.cluster) {
            (Some(ns), false) => self.role(ns, &binding.role.name),
            _ => self.cluster_role(&binding.role.name),
        };
        found.map_or(Granted::Missing, Granted::Rules)
    }

    /// The rules of the ClusterRole `name`.
    #[must_use]
    pub fn cluster_role(&self, name: &str) -> Option<&Arc<[PolicyRule]>> {
        self.role("", name)
    }

    /// The rules of the Role `namespace`/`name` (`""`: a ClusterRole).
    #[must_use]
    pub fn role(&self, namespace: &str, name: &str) -> Option<&Arc<[PolicyRule]>> {
        self.roles.get(namespace)?.get(name)
    }

    /// Every binding that applies to `user`: cluster-wide ones, then those
    /// of `namespace` (when not `""`); a binding naming the user twice
    /// (as user and group) comes once.
    #[must_use]
    pub fn bindings_for(&self, user: &UserInfo, namespace: &str) -> Vec<&Arc<Binding>> {
        let mut found: Vec<&Arc<Binding>> = Vec::new();
        let scopes = std::iter::once("").chain((!namespace.is_empty()).then_some(namespace));
        for scope in scopes.filter_map(|s| self.scopes.get(s)) {
            let by_user = scope.users.get(&user.name).into_iter().flatten();
            let by_group = user
                .groups
                .iter()
                .filter_map(|g| scope.groups.get(g))
                .flatten();
            for binding in by_user.chain(by_group) {
                if !found.iter().any(|b| Arc::ptr_eq(b, binding)) {
                    found.push(binding);
                }
            }
        }
        found
    }
}
