//! Authorization: may this user do this. Authorizers are asked in order
//! and the first with an opinion (allow or deny) decides; when none has
//! one, the request is forbidden. Non-resource requests (health,
//! discovery, `/version`) are authorized by path, with the method as verb.

pub mod authenticated;
pub mod privileged;

use std::sync::Arc;

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
}

/// The authorizers in the order they are asked.
pub struct Authorizers {
    union: Vec<Arc<dyn Authorizer>>,
}

impl Authorizers {
    #[must_use]
    pub fn new(union: Vec<Arc<dyn Authorizer>>) -> Authorizers {
        Authorizers { union }
    }

    /// `Ok` if allowed, else 403 (or 500 if an authorizer failed).
    pub async fn authorize(&self, attrs: &Attributes<'_>) -> Result<(), ApiError> {
        let mut reasons: Vec<String> = Vec::new();
        let mut failure = None;
        for authorizer in &self.union {
            match authorizer.authorize(attrs).resolve().await {
                Ok(Decision::Allow) => return Ok(()),
                Ok(Decision::Deny(reason)) => return Err(forbidden(attrs, &reason)),
                Ok(Decision::NoOpinion(reason)) => {
                    if !reason.is_empty() {
                        reasons.push(reason);
                    }
                }
                Err(e) => failure = Some(e),
            }
        }
        if let Some(e) = failure {
            return Err(ApiError::Internal(e.to_string()));
        }
        Err(forbidden(attrs, &reasons.join("\n")))
    }
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
    let verb = info.verb;
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
