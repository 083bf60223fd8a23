//! A configured authorizer that counts its terminal decisions
//! (`apiserver_authorization_decisions_total{type,name,decision}`), as
//! kube wraps every authorizer of its chain; no-opinion answers and
//! failures are not decisions and are not counted.

use std::sync::Arc;

use super::rules::RulesFor;
use super::{Attributes, Authorizer, Decision};
use crate::api::error::ApiError;
use crate::metrics::authz::Decisions;
use crate::request::user::UserInfo;
use crate::util::maybe_async::MaybeAsync;

pub struct Counted {
    inner: Arc<dyn Authorizer>,
    decisions: Decisions,
}

impl Counted {
    /// `inner`, counted as the authorizer of `kind` (kube's type names:
    /// `RBAC`, `Webhook`, `AlwaysAllow`, `AlwaysDeny`) named `name`.
    #[must_use]
    pub fn wrap(kind: &'static str, name: &str, inner: Arc<dyn Authorizer>) -> Arc<dyn Authorizer> {
        Arc::new(Counted {
            inner,
            decisions: Decisions::new(kind, name),
        })
    }
}

fn count(decisions: &Decisions, answer: &Result<Decision, ApiError>) {
    match answer {
        Ok(Decision::Allow) => decisions.record(true),
        Ok(Decision::Deny(_)) => decisions.record(false),
        Ok(Decision::NoOpinion(_)) | Err(_) => {}
    }
}

impl Authorizer for Counted {
    fn authorize<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
    ) -> MaybeAsync<'a, Result<Decision, ApiError>> {
        let decisions = &self.decisions;
        self.inner.authorize(attrs).map(move |answer| {
            count(decisions, &answer);
            answer
        })
    }

    fn rules_for(&self, user: &UserInfo, namespace: &str) -> RulesFor {
        self.inner.rules_for(user, namespace)
    }
}
