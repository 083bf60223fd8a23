//! Authorization: may this user do this. Authorizers are asked in order
//! and the first with an opinion (allow or deny) decides; when none has
//! one, the request is forbidden. Non-resource requests (health,
//! discovery, `/version`) are authorized by path, with the method as verb.
//! Each authorizer can also say what it would allow a user in a namespace
//! (SelfSubjectRulesReview, escalation checks).

pub mod always;
pub mod configured;
pub mod counted;
pub mod create_on_update;
pub mod privileged;
pub mod rbac;
pub mod reviews;
pub mod rules;
pub mod setup;
pub mod webhook;

use std::sync::Arc;

use parking_lot::RwLock;

use crate::api::error::ApiError;
use crate::request::info::RequestInfo;
use crate::request::user::UserInfo;
use crate::util::maybe_async::MaybeAsync;

/// What is asked: who, and the request.
#[derive(Clone, Copy)]
pub struct Attributes<'a> {
    pub user: &'a UserInfo,
    pub info: &'a RequestInfo,
}

/// One authorizer's answer; reasons end up in the 403's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Allow,
    Deny(String),
    NoOpinion(String),
}

/// One source of permissions.
pub trait Authorizer: Send + Sync {
    /// An error (a policy that cannot be evaluated) counts as no opinion;
    /// if nobody allows the request, it makes the answer a 500.
    fn authorize<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
    ) -> MaybeAsync<'a, Result<Decision, ApiError>>;

    /// What this authorizer would allow `user` in `namespace` (`""`: at
    /// the cluster scope). Authorizers that cannot enumerate their policy
    /// (webhooks) say the list is incomplete.
    fn rules_for(&self, _user: &UserInfo, _namespace: &str) -> rules::RulesFor {
        rules::RulesFor::incomplete()
    }
}

/// The chain's verdict with what led to it, as access reviews report it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    pub allowed: bool,
    /// Denied by an authorizer (not merely allowed by none).
    pub denied: bool,
    /// The denying authorizer's reason, or every reason given when none
    /// had an opinion.
    pub reason: String,
    /// Authorizers that failed, joined.
    pub evaluation_error: String,
}

/// The authorizers in the order they are asked. The list can be replaced
/// while serving (a reloaded `--authorization-config`).
pub struct Authorizers {
    union: RwLock<Arc<[Arc<dyn Authorizer>]>>,
}

impl Authorizers {
    #[must_use]
    pub fn new(union: Vec<Arc<dyn Authorizer>>) -> Authorizers {
        Authorizers {
            union: RwLock::new(union.into()),
        }
    }

    /// Swaps in a new chain; requests already being decided finish with
    /// the old one.
    pub fn replace(&self, union: Vec<Arc<dyn Authorizer>>) {
        *self.union.write() = union.into();
    }

    /// The chain as it is now.
    #[must_use]
    pub fn current(&self) -> Arc<[Arc<dyn Authorizer>]> {
        Arc::clone(&self.union.read())
    }

    /// `Ok` if allowed, else 403 (or 500 if an authorizer failed).
    pub async fn authorize(&self, attrs: &Attributes<'_>) -> Result<(), ApiError> {
        let verdict = self.decide(attrs).await;
        conclude(attrs, &verdict)
    }

    /// Asks the chain in order; the first opinion decides.
    pub async fn decide(&self, attrs: &Attributes<'_>) -> Verdict {
        let union = self.current();
        let mut reasons: Vec<String> = Vec::new();
        let mut errors: Vec<String> = Vec::new();
        for authorizer in union.iter() {
            match authorizer.authorize(attrs).resolve().await {
                Ok(Decision::Allow) => {
                    return Verdict {
                        allowed: true,
                        reason: String::new(),
                        evaluation_error: errors.join("; "),
                        ..Verdict::default()
                    };
                }
                Ok(Decision::Deny(reason)) => {
                    return Verdict {
                        denied: true,
                        reason,
                        evaluation_error: errors.join("; "),
                        ..Verdict::default()
                    };
                }
                Ok(Decision::NoOpinion(reason)) => {
                    if !reason.is_empty() {
                        reasons.push(reason);
                    }
                }
                Err(e) => errors.push(e.to_string()),
            }
        }
        Verdict {
            reason: reasons.join("\n"),
            evaluation_error: errors.join("; "),
            ..Verdict::default()
        }
    }

    /// What the chain would allow `user` in `namespace`: every
    /// authorizer's rules, incomplete if any is.
    #[must_use]
    pub fn rules_for(&self, user: &UserInfo, namespace: &str) -> rules::RulesFor {
        let mut all = rules::RulesFor::default();
        for authorizer in self.current().iter() {
            all.absorb(authorizer.rules_for(user, namespace));
        }
        all
    }
}

/// A verdict as the request's answer: `Ok` if allowed, else 403 (or 500
/// if an authorizer failed and none denied).
pub fn conclude(attrs: &Attributes<'_>, verdict: &Verdict) -> Result<(), ApiError> {
    if verdict.allowed {
        return Ok(());
    }
    if !verdict.denied && !verdict.evaluation_error.is_empty() {
        return Err(ApiError::Internal(verdict.evaluation_error.clone()));
    }
    Err(forbidden(attrs, &verdict.reason))
}

/// Kubernetes' 403 for a refused request: `<resource> "<name>" is
/// forbidden: User "<u>" cannot <verb> resource "<res>" in API group "<g>"
/// in the namespace "<ns>"` (or `at the cluster scope`), and for other
/// paths `forbidden: User "<u>" cannot <verb> path "<path>"`; a reason, if
/// any, after a colon.
#[must_use]
pub fn forbidden(attrs: &Attributes<'_>, reason: &str) -> ApiError {
    let user = &attrs.user.name;
    let info = attrs.info;
    let verb = &info.verb;
    let (group, qualified, mut message) = match &info.resource {
        None => (
            String::new(),
            String::new(),
            format!("User {user:?} cannot {verb} path {:?}", info.path),
        ),
        Some(r) => {
            let resource = match &r.subresource {
                Some(sub) => format!("{}/{sub}", r.resource),
                None => r.resource.clone(),
            };
            let scope = match info.namespace() {
                "" => "at the cluster scope".to_string(),
                ns => format!("in the namespace {ns:?}"),
            };
            let qualified = if r.group.is_empty() {
                r.resource.clone()
            } else {
                format!("{}.{}", r.resource, r.group)
            };
            let message = format!(
                "User {user:?} cannot {verb} resource {resource:?} in API group {:?} {scope}",
                r.group
            );
            (r.group.clone(), qualified, message)
        }
    };
    if !reason.is_empty() {
        message = format!("{message}: {reason}");
    }
    ApiError::Forbidden {
        group,
        resource: qualified,
        name: info.name().to_string(),
        reason: message,
        causes: Vec::new(),
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
