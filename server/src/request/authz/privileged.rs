//! Members of the privileged groups may do everything, before any policy
//! is asked (Kubernetes puts `system:masters` first in every authorizer
//! chain); everyone else is left to the authorizers after it.

use crate::api::error::ApiError;
use crate::request::authz::always::AlwaysAllow;
use crate::request::authz::rules::RulesFor;
use crate::request::authz::{Attributes, Authorizer, Decision};
use crate::request::user::{MASTERS, UserInfo};
use crate::util::maybe_async::MaybeAsync;

pub struct PrivilegedGroups {
    groups: Vec<String>,
}

impl PrivilegedGroups {
    /// `system:masters`.
    #[must_use]
    pub fn masters() -> PrivilegedGroups {
        PrivilegedGroups {
            groups: vec![MASTERS.to_string()],
        }
    }
}

impl Authorizer for PrivilegedGroups {
    fn authorize<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
    ) -> MaybeAsync<'a, Result<Decision, ApiError>> {
        let privileged = self.groups.iter().any(|g| attrs.user.in_group(g));
        MaybeAsync::Ready(Ok(if privileged {
            Decision::Allow
        } else {
            Decision::NoOpinion(String::new())
        }))
    }

    fn rules_for(&self, user: &UserInfo, namespace: &str) -> RulesFor {
        if self.groups.iter().any(|g| user.in_group(g)) {
            AlwaysAllow.rules_for(user, namespace)
        } else {
            RulesFor::default()
        }
    }
}
