//! Escalation prevention: a Role or ClusterRole may only be written by
//! someone who holds every permission it grants (or may `escalate` it),
//! and a binding only by someone who holds the permissions of the role it
//! grants (or may `bind` it), as Kubernetes' RBAC storage enforces.
//! `system:masters` and the API server itself are exempt. Runs as a
//! validating admission plugin on the four RBAC kinds.

use std::sync::Arc;

use serde_json::Value;

use super::Rbac;
use super::covers::{describe, uncovered};
use super::rule::PolicyRule;
use crate::api::error::ApiError;
use crate::request::admission::{Attributes, Operation, Pins, ValidatingAdmission};
use crate::request::authz::{self, Authorizers};
use crate::request::info::RequestInfo;
use crate::request::user::{MASTERS, UserInfo};
use crate::util::maybe_async::MaybeAsync;

/// The plugin; it asks the whole authorizer chain for `escalate`/`bind`
/// and RBAC alone for what the writer holds.
pub struct EscalationCheck {
    rbac: Rbac,
    authorizers: Arc<Authorizers>,
    /// `rbac.authorization.<domain>`.
    group: String,
}

impl EscalationCheck {
    #[must_use]
    pub fn new(rbac: Rbac, authorizers: Arc<Authorizers>, group: &str) -> EscalationCheck {
        EscalationCheck {
            rbac,
            authorizers,
            group: group.to_string(),
        }
    }

    /// Whether the chain lets `user` use `verb` on a role.
    async fn may(
        &self,
        user: &UserInfo,
        verb: &'static str,
        resource: &str,
        namespace: &str,
        name: &str,
    ) -> bool {
        let info = RequestInfo::resource_request(verb, &self.group, resource, namespace, name);
        self.authorizers
            .decide(&authz::Attributes { user, info: &info })
            .await
            .allowed
    }

    /// Refuses unless RBAC grants `user` every rule in `wanted`.
    fn confirm_no_escalation(
        &self,
        user: &UserInfo,
        namespace: &str,
        wanted: &[PolicyRule],
        refuse: impl Fn(String) -> ApiError,
    ) -> Result<(), ApiError> {
        let (held, errors) = self.rbac.rules(user, namespace);
        let missing = uncovered(&held, wanted);
        if missing.is_empty() {
            return Ok(());
        }
        let mut message = format!(
            "user {:?} (groups={}) is attempting to grant RBAC permissions not currently held:\n{}",
            user.name,
            go_strings(&user.groups),
            describe(&missing).join("\n")
        );
        if !errors.is_empty() {
            message.push_str(&format!("; resolution errors: [{}]", errors.join(" ")));
        }
        Err(refuse(message))
    }

    async fn check_role(&self, attrs: &Attributes<'_>, role: &Value) -> Result<(), ApiError> {
        let resource = attrs.kind.resource.as_str();
        let namespace = attrs.namespace.unwrap_or_default();
        let unchanged = attrs.old_object.is_some_and(|old| {
            old.get("rules") == role.get("rules")
                && old.get("aggregationRule") == role.get("aggregationRule")
        });
        if unchanged
            || self
                .may(attrs.user, "escalate", resource, namespace, attrs.name)
                .await
        {
            return Ok(());
        }
        let refuse = |reason| self.refusal(attrs, reason);
        self.confirm_no_escalation(attrs.user, namespace, &PolicyRule::all_of(role), refuse)?;
        let aggregates = role
            .pointer("/aggregationRule/clusterRoleSelectors")
            .and_then(Value::as_array)
            .is_some_and(|s| !s.is_empty());
        if aggregates {
            let everything = PolicyRule::from_json(&serde_json::json!({
                "verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]
            }));
            self.confirm_no_escalation(attrs.user, namespace, &[everything], |_| {
                self.refusal(
                    attrs,
                    "must have cluster-admin privileges to use the aggregationRule".into(),
                )
            })?;
        }
        Ok(())
    }

    async fn check_binding(&self, attrs: &Attributes<'_>, binding: &Value) -> Result<(), ApiError> {
        let namespace = attrs.namespace.unwrap_or_default();
        let role_name = binding
            .pointer("/roleRef/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let cluster =
            binding.pointer("/roleRef/kind").and_then(Value::as_str) == Some("ClusterRole");
        let role_resource = if cluster { "clusterroles" } else { "roles" };
        if self
            .may(attrs.user, "bind", role_resource, namespace, role_name)
            .await
        {
            return Ok(());
        }
        let rules = self
            .rbac
            .role_rules(cluster, role_name, namespace)
            .map_err(|e| self.refusal(attrs, e))?;
        self.confirm_no_escalation(attrs.user, namespace, &rules, |reason| {
            self.refusal(attrs, reason)
        })
    }

    fn refusal(&self, attrs: &Attributes<'_>, reason: String) -> ApiError {
        ApiError::Forbidden {
            group: self.group.clone(),
            resource: format!("{}.{}", attrs.kind.resource, self.group),
            name: attrs.name.to_string(),
            reason,
            causes: Vec::new(),
        }
    }
}

/// Strings as Go's `%q` prints a slice: `["a" "b"]`.
fn go_strings(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("{i:?}")).collect();
    format!("[{}]", quoted.join(" "))
}

impl ValidatingAdmission for EscalationCheck {
    fn name(&self) -> &'static str {
        "RBACEscalationPrevention"
    }

    fn handles(&self, operation: Operation) -> bool {
        matches!(operation, Operation::Create | Operation::Update)
    }

    fn validate<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        object: Option<&'a Value>,
        _pins: &'a mut Pins,
    ) -> MaybeAsync<'a, Result<(), ApiError>> {
        let Some(object) = object else {
            return MaybeAsync::Ready(Ok(()));
        };
        if attrs.kind.group != self.group || attrs.user.in_group(MASTERS) {
            return MaybeAsync::Ready(Ok(()));
        }
        match attrs.kind.resource.as_str() {
            "roles" | "clusterroles" => MaybeAsync::pending(self.check_role(attrs, object)),
            "rolebindings" | "clusterrolebindings" => {
                MaybeAsync::pending(self.check_binding(attrs, object))
            }
            _ => MaybeAsync::Ready(Ok(())),
        }
    }
}
