//! The answers of SubjectAccessReview, SelfSubjectAccessReview and
//! LocalSubjectAccessReview: the spec checked as kube-apiserver checks it
//! (a 422 naming no kind, as kube's internal objects have none), the chain
//! asked about the request for the spec's subject (or the requester), and
//! the review echoed back with `status {allowed, denied, reason,
//! evaluationError}`.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{asked, go_value};
use crate::api::error::{ApiError, Cause};
use crate::api::kind::{Answerer, Question};
use crate::api::schema::go_quote;
use crate::request::authn::review::echoed_metadata;
use crate::request::authz::{Attributes, Authorizers, Verdict};
use crate::request::user::UserInfo;
use crate::util::maybe_async::MaybeAsync;

/// Which of the three access reviews.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Review {
    /// SubjectAccessReview: any subject, any namespace.
    Subject,
    /// SelfSubjectAccessReview: the requester.
    SelfSubject,
    /// LocalSubjectAccessReview: any subject, the URL's namespace only.
    Local,
}

/// Answers one kind of access review with the chain.
pub struct AccessReviewer {
    review: Review,
    authorizers: Arc<Authorizers>,
    /// `authorization.{domain}`, which validation errors name.
    group: String,
}

impl AccessReviewer {
    #[must_use]
    pub fn new(review: Review, authorizers: Arc<Authorizers>, group: &str) -> AccessReviewer {
        AccessReviewer {
            review,
            authorizers,
            group: group.to_string(),
        }
    }

    /// A LocalSubjectAccessReview's `metadata.namespace`: the URL's when
    /// left out, else it must be the URL's (as for any namespaced create).
    fn settle_namespace(body: &mut Value, namespace: &str) -> Result<(), ApiError> {
        let Some(object) = body.as_object_mut() else {
            return Ok(());
        };
        let metadata = object.entry("metadata").or_insert_with(|| json!({}));
        if metadata.is_null() {
            *metadata = json!({});
        }
        let Some(metadata) = metadata.as_object_mut() else {
            return Ok(());
        };
        match metadata.get("namespace").and_then(Value::as_str) {
            None | Some("") => {
                metadata.insert("namespace".into(), json!(namespace));
                Ok(())
            }
            Some(given) if given == namespace => Ok(()),
            Some(_) => Err(ApiError::BadRequest(
                "the namespace of the provided object does not match the namespace sent on the request"
                    .into(),
            )),
        }
    }

    /// Kube's validation of the review, in kube's order.
    fn causes(&self, body: &Value, spec: &Value) -> Vec<Cause> {
        let mut causes = Vec::new();
        asked::check_attributes(spec, &mut causes);
        if self.review != Review::SelfSubject {
            asked::check_subject(spec, &mut causes);
        }
        asked::check_selectors(spec, &mut causes);
        let local = self.review == Review::Local;
        asked::check_metadata(body, local, &mut causes);
        if local {
            let namespace = body
                .pointer("/metadata/namespace")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if let Some(attrs) = spec.get("resourceAttributes").filter(|v| !v.is_null()) {
                let asked = attrs
                    .get("namespace")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if asked != namespace {
                    causes.push(Cause::new(
                        "FieldValueInvalid",
                        "spec.resourceAttributes.namespace",
                        format!(
                            "Invalid value: {}: must match metadata.namespace",
                            go_quote(asked)
                        ),
                    ));
                }
            }
            if let Some(attrs) = spec.get("nonResourceAttributes").filter(|v| !v.is_null()) {
                causes.push(Cause::new(
                    "FieldValueInvalid",
                    "spec.nonResourceAttributes",
                    format!(
                        "Invalid value: {}: disallowed on this kind of request",
                        go_value::non_resource_attributes(attrs)
                    ),
                ));
            }
        }
        causes
    }
}

/// `status` as kube serializes it: `allowed` always, the rest when set;
/// `extra_errors` (ignored selectors) follow the authorizers' errors.
#[must_use]
pub fn status(verdict: &Verdict, extra_errors: &[String]) -> Value {
    let mut status = Map::new();
    status.insert("allowed".into(), json!(verdict.allowed));
    if verdict.denied {
        status.insert("denied".into(), json!(true));
    }
    if !verdict.reason.is_empty() {
        status.insert("reason".into(), json!(verdict.reason));
    }
    let mut errors: Vec<&str> = Vec::new();
    if !verdict.evaluation_error.is_empty() {
        errors.push(&verdict.evaluation_error);
    }
    errors.extend(extra_errors.iter().map(String::as_str));
    if !errors.is_empty() {
        status.insert("evaluationError".into(), json!(errors.join("; ")));
    }
    Value::Object(status)
}

impl Answerer for AccessReviewer {
    fn answer<'a>(
        &'a self,
        question: Question<'a>,
        mut body: Value,
    ) -> MaybeAsync<'a, Result<Value, ApiError>> {
        if self.review == Review::Local {
            let namespace = question.namespace.unwrap_or_default();
            if let Err(e) = AccessReviewer::settle_namespace(&mut body, namespace) {
                return MaybeAsync::Ready(Err(e));
            }
        }
        let spec = body.get("spec").cloned().unwrap_or_else(|| json!({}));
        let causes = self.causes(&body, &spec);
        if !causes.is_empty() {
            return MaybeAsync::Ready(Err(ApiError::Invalid {
                kind: String::new(),
                group: self.group.clone(),
                name: String::new(),
                causes,
                code: 422,
            }));
        }
        let Some(info) = asked::request(&spec) else {
            return MaybeAsync::Ready(Err(ApiError::Internal(
                "an access review without attributes passed validation".into(),
            )));
        };
        let subject: UserInfo = match self.review {
            Review::SelfSubject => UserInfo::clone(question.user),
            Review::Subject | Review::Local => asked::subject(&spec),
        };
        MaybeAsync::pending(async move {
            let verdict = self
                .authorizers
                .decide(&Attributes {
                    user: &subject,
                    info: &info,
                })
                .await;
            let status = status(&verdict, &asked::selector_errors(&spec));
            let mut out = Map::new();
            out.insert("metadata".into(), echoed_metadata(&body));
            out.insert("spec".into(), spec);
            out.insert("status".into(), status);
            Ok(Value::Object(out))
        })
    }
}
