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
pub mod overload;
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

    /// Who asks: the user (the impersonated one when the request
    /// impersonates, and may), else 401 or 403. `api_domain` names the
    /// group of impersonated uids and extras.
    pub async fn authenticate_request(
        &self,
        head: &RequestHead<'_>,
        api_domain: &str,
    ) -> Result<Arc<UserInfo>, ApiError> {
        let requester = self.authenticators.authenticate(head).await?;
        impersonation::impersonate(
            &self.authorizers,
            head.headers,
            head.path,
            api_domain,
            requester,
        )
        .await
    }

    /// Whether `user` may do what `info` says (403 if not). Kube-apiserver
    /// asks after the in-flight limits admitted the request, so a slow
    /// authorizer holds the request's place.
    pub async fn authorize(&self, user: &UserInfo, info: &RequestInfo) -> Result<(), ApiError> {
        self.authorizers.authorize(&Attributes { user, info }).await
    }
}
