//! The fixed authorizer modes: `AlwaysAllow` (everything, for trusted
//! set-ups and tests) and `AlwaysDeny` (nothing; as in Kubernetes it has
//! no opinion, saying why, so a later authorizer may still allow).

use crate::api::error::ApiError;
use crate::request::authz::rules::{NonResourceRule, ResourceRule, RulesFor};
use crate::request::authz::{Attributes, Authorizer, Decision};
use crate::request::user::UserInfo;
use crate::util::maybe_async::MaybeAsync;

pub struct AlwaysAllow;

impl Authorizer for AlwaysAllow {
    fn authorize<'a>(
        &'a self,
        _attrs: &'a Attributes<'a>,
    ) -> MaybeAsync<'a, Result<Decision, ApiError>> {
        MaybeAsync::Ready(Ok(Decision::Allow))
    }

    fn rules_for(&self, _user: &UserInfo, _namespace: &str) -> RulesFor {
        let every = || vec!["*".to_string()];
        RulesFor {
            resource_rules: vec![ResourceRule {
                verbs: every(),
                api_groups: every(),
                resources: every(),
                resource_names: Vec::new(),
            }],
            non_resource_rules: vec![NonResourceRule {
                verbs: every(),
                non_resource_urls: every(),
            }],
            ..RulesFor::default()
        }
    }
}

pub struct AlwaysDeny;

impl Authorizer for AlwaysDeny {
    fn authorize<'a>(
        &'a self,
        _attrs: &'a Attributes<'a>,
    ) -> MaybeAsync<'a, Result<Decision, ApiError>> {
        MaybeAsync::Ready(Ok(Decision::NoOpinion("Everything is forbidden.".into())))
    }

    fn rules_for(&self, _user: &UserInfo, _namespace: &str) -> RulesFor {
        RulesFor::default()
    }
}
