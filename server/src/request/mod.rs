//! The pipeline every request passes, resource or not: its `RequestInfo`
//! is built, the caller authenticated (a chain of authenticators) and
//! authorized (a union of authorizers) — as the user it impersonates, if
//! it may (`impersonation`) — before anything is answered —
//! health, discovery, OpenAPI and `/version` included. Writes then pass
//! admission inside the store (mutating plugins, the kind's validation,
//! validating plugins, the commit): see `admission`. Each stage is a
//! trait; see `Pipeline::insecure_port` and `Pipeline::secure_port`.

pub mod admission;
pub mod authn;
pub mod authz;
pub mod impersonation;
pub mod info;
pub mod user;

use std::sync::Arc;

use crate::api::error::ApiError;
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

    /// Who asks, if they may: the user (the impersonated one when the
    /// request impersonates, and may), else 401 or 403. `api_domain`
    /// names the group of impersonated uids and extras.
    pub async fn authorize_request(
        &self,
        head: &RequestHead<'_>,
        info: &RequestInfo,
        api_domain: &str,
    ) -> Result<Arc<UserInfo>, ApiError> {
        let started = std::time::Instant::now();
        let authenticated = self.authenticators.authenticate(head).await;
        record_authentication(&authenticated, started.elapsed());
        let requester = authenticated?;
        let user = impersonation::impersonate(
            &self.authorizers,
            head.headers,
            head.path,
            api_domain,
            requester,
        )
        .await?;
        self.authorizers
            .authorize(&Attributes { user: &user, info })
            .await?;
        Ok(user)
    }
}

/// kube's authentication metrics for one attempt.
fn record_authentication(result: &Result<Arc<UserInfo>, ApiError>, elapsed: std::time::Duration) {
    use crate::metrics::auth::Outcome;
    let (outcome, user) = match result {
        Ok(user) => (Outcome::Success, Some(user.name.as_str())),
        Err(ApiError::Unauthorized) => (Outcome::Failure, None),
        Err(_) => (Outcome::Error, None),
    };
    crate::metrics::global()
        .authn
        .observe(outcome, elapsed, user);
}
