//! The secure port's policy until RBAC is enforced: every authenticated
//! user may do everything; anonymous callers may only read what
//! Kubernetes' `system:public-info-viewer` role shows them (health and
//! version), so enabling anonymous authentication exposes nothing else.

use crate::api::error::ApiError;
use crate::request::authz::{Attributes, Authorizer, Decision};
use crate::request::user::AUTHENTICATED;
use crate::util::maybe_async::MaybeAsync;

/// The paths anyone may GET.
const PUBLIC_INFO: [&str; 5] = ["/healthz", "/livez", "/readyz", "/version", "/version/"];

pub struct AuthenticatedUsers;

impl Authorizer for AuthenticatedUsers {
    fn authorize<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
    ) -> MaybeAsync<'a, Result<Decision, ApiError>> {
        let info = attrs.info;
        let public = !info.is_resource_request()
            && info.verb == "get"
            && PUBLIC_INFO.contains(&info.path.as_str());
        MaybeAsync::Ready(Ok(if attrs.user.in_group(AUTHENTICATED) || public {
            Decision::Allow
        } else {
            Decision::NoOpinion(String::new())
        }))
    }
}
