//! The access reviews of `authorization.{domain}/v1`, answered from the
//! authorizer chain and never stored: SubjectAccessReview (may this user
//! do this), LocalSubjectAccessReview (the same, in the URL's namespace),
//! SelfSubjectAccessReview (may I) and SelfSubjectRulesReview (what may I
//! do in a namespace) — what `kubectl auth can-i` (and `--list`) asks.

pub mod access;
pub mod asked;
pub mod go_value;
pub mod rules;

use std::sync::Arc;

use access::{AccessReviewer, Review};
use rules::RulesReviewer;

use crate::api::kinds::authorization::{self, Answerers};
use crate::api::registry::Registry;
use crate::request::authz::Authorizers;

/// Serves the four review kinds, each answered with `authorizers` (the
/// secure port's chain, whichever port the review arrives on, as
/// kube-apiserver has one authorizer).
pub fn register(registry: &Registry, api_domain: &str, authorizers: Arc<Authorizers>) {
    let group = format!("authorization.{api_domain}");
    let access = |review| {
        Arc::new(AccessReviewer::new(
            review,
            Arc::clone(&authorizers),
            &group,
        )) as Arc<dyn crate::api::kind::Answerer>
    };
    authorization::add(
        registry,
        api_domain,
        Answerers {
            subject_access_review: access(Review::Subject),
            self_subject_access_review: access(Review::SelfSubject),
            local_subject_access_review: access(Review::Local),
            self_subject_rules_review: Arc::new(RulesReviewer::new(Arc::clone(&authorizers))),
        },
    );
}

#[cfg(test)]
mod tests;
