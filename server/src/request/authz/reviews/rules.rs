//! The answer of SelfSubjectRulesReview: what the requester may do in
//! `spec.namespace`, as every authorizer of the chain lists it (incomplete
//! when one cannot), in kube's shape — a fresh object whose spec is empty.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::api::error::ApiError;
use crate::api::kind::{Answerer, Question};
use crate::request::authz::Authorizers;
use crate::request::authz::rules::{NonResourceRule, ResourceRule, RulesFor};
use crate::util::maybe_async::MaybeAsync;

/// Answers SelfSubjectRulesReviews with the chain's rules.
pub struct RulesReviewer {
    authorizers: Arc<Authorizers>,
}

impl RulesReviewer {
    #[must_use]
    pub fn new(authorizers: Arc<Authorizers>) -> RulesReviewer {
        RulesReviewer { authorizers }
    }
}

/// A list field, left out when empty (Go's `omitempty`).
fn insert_list(out: &mut Map<String, Value>, key: &str, items: &[String]) {
    if !items.is_empty() {
        out.insert(key.into(), json!(items));
    }
}

fn resource_rule(rule: &ResourceRule) -> Value {
    let mut out = Map::new();
    out.insert("verbs".into(), json!(rule.verbs));
    insert_list(&mut out, "apiGroups", &rule.api_groups);
    insert_list(&mut out, "resources", &rule.resources);
    insert_list(&mut out, "resourceNames", &rule.resource_names);
    Value::Object(out)
}

fn non_resource_rule(rule: &NonResourceRule) -> Value {
    let mut out = Map::new();
    out.insert("verbs".into(), json!(rule.verbs));
    insert_list(&mut out, "nonResourceURLs", &rule.non_resource_urls);
    Value::Object(out)
}

/// `SubjectRulesReviewStatus`: both lists always present, even empty.
#[must_use]
pub fn status(rules: &RulesFor) -> Value {
    let mut status = Map::new();
    status.insert(
        "resourceRules".into(),
        rules.resource_rules.iter().map(resource_rule).collect(),
    );
    status.insert(
        "nonResourceRules".into(),
        rules
            .non_resource_rules
            .iter()
            .map(non_resource_rule)
            .collect(),
    );
    status.insert("incomplete".into(), json!(rules.incomplete));
    if !rules.evaluation_error.is_empty() {
        status.insert("evaluationError".into(), json!(rules.evaluation_error));
    }
    Value::Object(status)
}

impl Answerer for RulesReviewer {
    fn answer<'a>(
        &'a self,
        question: Question<'a>,
        body: Value,
    ) -> MaybeAsync<'a, Result<Value, ApiError>> {
        let namespace = body
            .pointer("/spec/namespace")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if namespace.is_empty() {
            return MaybeAsync::Ready(Err(ApiError::BadRequest("no namespace on request".into())));
        }
        let rules = self.authorizers.rules_for(question.user, namespace);
        MaybeAsync::Ready(Ok(json!({
            "metadata": {"creationTimestamp": null},
            "spec": {},
            "status": status(&rules),
        })))
    }
}
