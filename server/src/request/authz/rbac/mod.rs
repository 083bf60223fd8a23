//! Role-based access control: Roles, ClusterRoles and their bindings,
//! read from informer caches (no storage read per request), decide who may
//! do what. A request is allowed when a ClusterRoleBinding, or a
//! RoleBinding of the request's namespace, that names the user (or one of
//! its groups, or its service account) grants a role with a rule that
//! matches; RBAC never denies, it only has no opinion.

pub mod covers;
pub mod escalation;
pub mod freshness;
pub mod informers;
pub mod policy;
pub mod rule;

use std::sync::Arc;

use parking_lot::RwLock;
use tokio::sync::watch;

use crate::api::error::ApiError;
use crate::request::authz::rules::RulesFor;
use crate::request::authz::{Attributes, Authorizer, Decision};
use crate::request::user::UserInfo;
use crate::util::maybe_async::MaybeAsync;
use policy::{Binding, Granted, Policy};
use rule::PolicyRule;

/// The RBAC resources, in the order `Seen` keeps their revisions.
pub const RESOURCES: [&str; 4] = [
    "roles",
    "clusterroles",
    "rolebindings",
    "clusterrolebindings",
];

/// The storage revision each RBAC resource's cache had reached when the
/// current policy was built.
pub type Seen = [crate::storage::Revision; 4];

/// The RBAC authorizer: the current policy, replaced whole as the caches
/// change.
#[derive(Clone)]
pub struct Rbac {
    policy: Arc<RwLock<Arc<Policy>>>,
    /// `rbac.authorization.<domain>`, for error messages.
    group: Arc<str>,
    /// What the current policy reflects; changes after each rebuild.
    seen: Arc<watch::Sender<Seen>>,
}

impl Rbac {
    /// An authorizer over `policy` (tests; `informers::start` keeps one
    /// current).
    #[must_use]
    pub fn new(policy: Policy, group: &str) -> Rbac {
        Rbac {
            policy: Arc::new(RwLock::new(Arc::new(policy))),
            group: group.into(),
            seen: Arc::new(watch::Sender::new(Seen::default())),
        }
    }

    /// The policy as it is now.
    #[must_use]
    pub fn policy(&self) -> Arc<Policy> {
        Arc::clone(&self.policy.read())
    }

    fn replace(&self, policy: Policy, seen: Seen) {
        *self.policy.write() = Arc::new(policy);
        self.seen.send_replace(seen);
    }

    /// Waits (at most `limit`) until the policy reflects `resource` as
    /// stored at `revision`; whether it does.
    pub async fn caught_up(
        &self,
        resource: &str,
        revision: crate::storage::Revision,
        limit: std::time::Duration,
    ) -> bool {
        let Some(at) = RESOURCES.iter().position(|r| *r == resource) else {
            return true;
        };
        let mut seen = self.seen.subscribe();
        tokio::time::timeout(limit, seen.wait_for(|s| s[at] >= revision))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// Why a binding granted nothing: its role is missing.
    fn missing(&self, binding: &Binding) -> String {
        self.not_found(binding.role.cluster, &binding.role.name)
    }

    /// Kubernetes' error for a role that does not exist.
    fn not_found(&self, cluster: bool, name: &str) -> String {
        let kind = if cluster { "clusterrole" } else { "role" };
        format!("{kind}.{} {name:?} not found", self.group)
    }

    /// Every rule RBAC grants `user` in `namespace` (`""`: cluster-wide
    /// bindings only), and the errors met on the way (missing roles).
    #[must_use]
    pub fn rules(&self, user: &UserInfo, namespace: &str) -> (Vec<PolicyRule>, Vec<String>) {
        let policy = self.policy();
        let mut rules = Vec::new();
        let mut errors = Vec::new();
        for binding in policy.bindings_for(user, namespace) {
            match policy.granted(binding) {
                Granted::Rules(granted) => rules.extend(granted.iter().cloned()),
                Granted::Missing => errors.push(self.missing(binding)),
            }
        }
        (rules, errors)
    }

    /// The rules of the role a binding in `namespace` refers to.
    pub fn role_rules(
        &self,
        cluster: bool,
        name: &str,
        namespace: &str,
    ) -> Result<Arc<[PolicyRule]>, String> {
        let policy = self.policy();
        let found = if cluster {
            policy.cluster_role(name)
        } else {
            policy.role(namespace, name)
        };
        found.cloned().ok_or_else(|| self.not_found(cluster, name))
    }
}

/// Several errors as Kubernetes' aggregate prints them.
fn aggregate(errors: &[String]) -> String {
    match errors {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

impl Authorizer for Rbac {
    fn authorize<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
    ) -> MaybeAsync<'a, Result<Decision, ApiError>> {
        let policy = self.policy();
        let mut errors = Vec::new();
        for binding in policy.bindings_for(attrs.user, attrs.info.namespace()) {
            match policy.granted(binding) {
                Granted::Rules(rules) => {
                    if rules.iter().any(|rule| rule.allows(attrs.info)) {
                        return MaybeAsync::Ready(Ok(Decision::Allow));
                    }
                }
                Granted::Missing => errors.push(self.missing(binding)),
            }
        }
        let reason = if errors.is_empty() {
            String::new()
        } else {
            format!("RBAC: {}", aggregate(&errors))
        };
        MaybeAsync::Ready(Ok(Decision::NoOpinion(reason)))
    }

    fn rules_for(&self, user: &UserInfo, namespace: &str) -> RulesFor {
        let (rules, errors) = self.rules(user, namespace);
        let mut answer = RulesFor {
            evaluation_error: if errors.is_empty() {
                String::new()
            } else {
                aggregate(&errors)
            },
            incomplete: !errors.is_empty(),
            ..RulesFor::default()
        };
        for rule in &rules {
            let (resource, non_resource) = rule.reported();
            answer.resource_rules.extend(resource);
            answer.non_resource_rules.extend(non_resource);
        }
        answer
    }
}

#[cfg(test)]
mod tests;
