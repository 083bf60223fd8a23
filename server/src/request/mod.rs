//! The pipeline every request passes, resource or not: its `RequestInfo`
//! is built, the caller authenticated (a chain of authenticators) and
//! authorized (a union of authorizers) — as the user it impersonates, if
//! it may (`impersonation`) — before anything is answered —
//! health, discovery, OpenAPI and `/version` included. Writes then pass
//! admission inside the store (mutating plugins, the kind's validation,
//! validating plugins, the commit): see `admission`. Each stage is a
//! trait; see `Pipeline::insecure_port` and `Pipeline::secure_port`.

pub mod admission;
pub mod audit;
pub mod authn;
pub mod authz;
pub mod impersonation;
pub mod info;
pub mod notes;
pub mod overload;
pub mod user;

use std::sync::Arc;

use crate::api::error::ApiError;
use crate::metrics::clock::Stamp;
use audit::Trail;
use authn::{Authenticators, RequestHead, insecure::InsecurePort};
use authz::{Attributes, Authorizers, privileged::PrivilegedGroups};
use info::RequestInfo;
use user::UserInfo;

/// Authentication and authorization, as one listener configures them.
pub struct Pipeline {
    pub authenticators: Authenticators,
    /// Shared with what else asks the chain (access reviews, escalation
    /// checks, CEL's authorizer library).
    pub authorizers: Arc<Authorizers>,
}

impl Pipeline {
    /// The plain-HTTP port: every request is `system:admin` in
    /// `system:masters`, which may do everything.
    #[must_use]
    pub fn insecure_port() -> Pipeline {
        Pipeline {
            authenticators: Authenticators::new(vec![Arc::new(InsecurePort::new())], None),
            authorizers: Arc::new(Authorizers::new(vec![
                Arc::new(PrivilegedGroups::masters()),
            ])),
        }
    }

    /// The HTTPS port: the given authenticators and authorizer chain
    /// (`authz::setup`).
    #[must_use]
    pub fn secure_port(authenticators: Authenticators, authorizers: Arc<Authorizers>) -> Pipeline {
        Pipeline {
            authenticators,
            authorizers,
        }
    }

    /// Who asks: the user (the impersonated one when the request
    /// impersonates, and may), else 401 or 403. `api_domain` names the
    /// group of impersonated uids and extras. Each step is told to the
    /// request's audit `trail`, as kube's audit filter sees them.
    pub async fn authenticate_request(
        &self,
        head: &RequestHead<'_>,
        info: &RequestInfo,
        api_domain: &str,
        trail: &mut Trail,
    ) -> Result<Arc<UserInfo>, ApiError> {
        let started = Stamp::now();
        let authenticated = self.authenticators.authenticate(head).await;
        record_authentication(&authenticated, started.elapsed_nanos());
        let requester = match authenticated {
            Ok(user) => user,
            Err(e) => {
                trail.authentication_failed(info);
                return Err(e);
            }
        };
        trail.authenticated(&requester, info);
        let user = impersonation::impersonate(
            &self.authorizers,
            head.headers,
            head.path,
            api_domain,
            Arc::clone(&requester),
        )
        .await?;
        if !Arc::ptr_eq(&user, &requester) {
            trail.impersonated(&user);
        }
        Ok(user)
    }

    /// Whether `user` may do what `info` says (403 if not), told to the
    /// audit `trail`. Kube-apiserver asks after the in-flight limits
    /// admitted the request, so a slow authorizer holds the request's place.
    pub async fn authorize(
        &self,
        user: &UserInfo,
        info: &RequestInfo,
        trail: &mut Trail,
    ) -> Result<(), ApiError> {
        let attrs = Attributes { user, info };
        let started = Stamp::now();
        let verdict = self.authorizers.decide(&attrs).await;
        record_authorization(&verdict, started.elapsed_nanos());
        trail.authorized(&verdict);
        authz::conclude(&attrs, &verdict)
    }
}

/// kube's authorization metrics for one request: an error counts only
/// when no authorizer allowed or denied.
fn record_authorization(verdict: &authz::Verdict, nanos: u64) {
    use crate::metrics::authz::Verdict;
    let result = if verdict.allowed {
        Verdict::Allowed
    } else if verdict.denied {
        Verdict::Denied
    } else if !verdict.evaluation_error.is_empty() {
        Verdict::Error
    } else {
        Verdict::NoOpinion
    };
    crate::metrics::global().authz.observe(result, nanos);
}

/// kube's authentication metrics for one attempt.
fn record_authentication(result: &Result<Arc<UserInfo>, ApiError>, nanos: u64) {
    use crate::metrics::auth::Outcome;
    let (outcome, user) = match result {
        Ok(user) => (Outcome::Success, Some(user.name.as_str())),
        Err(ApiError::Unauthorized) => (Outcome::Failure, None),
        Err(_) => (Outcome::Error, None),
    };
    crate::metrics::global().authn.observe(outcome, nanos, user);
}
