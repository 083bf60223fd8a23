//! The answers of the authentication reviews, as kube-apiserver gives them:
//! a TokenReview asks the server's bearer-token authenticators (the cached
//! union, never client certificates or anonymous) about `spec.token` for
//! `spec.audiences` (the API audiences when empty); a SelfSubjectReview
//! tells the requester who they are. Both answer with 201 and store nothing.

use std::sync::Arc;
use std::time::SystemTime;

use serde_json::{Map, Value, json};

use crate::api::error::ApiError;
use crate::api::kind::{Answerer, Question};
use crate::request::authn::audiences::intersect;
use crate::request::authn::token::{TokenAuthenticator, TokenUser};
use crate::request::user::{UserInfo, with_authenticated_group};
use crate::util::maybe_async::MaybeAsync;
use crate::util::time::rfc3339;

/// What a TokenReview reports when no authenticator knows the token
/// (Kubernetes' bearer-token authenticator's words).
const UNKNOWN_TOKEN: &str = "invalid bearer token";

/// `authentication/v1` UserInfo, its empty fields left out.
#[must_use]
pub fn user_info(user: &UserInfo) -> Value {
    let mut out = Map::new();
    if !user.name.is_empty() {
        out.insert("username".into(), json!(user.name));
    }
    if !user.uid.is_empty() {
        out.insert("uid".into(), json!(user.uid));
    }
    if !user.groups.is_empty() {
        out.insert("groups".into(), json!(user.groups));
    }
    if !user.extra.is_empty() {
        out.insert("extra".into(), json!(user.extra));
    }
    Value::Object(out)
}

/// Answers TokenReviews with the server's token authenticators.
pub struct TokenReviewer {
    tokens: Arc<dyn TokenAuthenticator>,
    api_audiences: Vec<String>,
}

impl TokenReviewer {
    /// Reviews tokens with `tokens` (the same, cached, union that requests'
    /// bearer tokens are checked with), for `api_audiences` when a review
    /// names none.
    #[must_use]
    pub fn new(tokens: Arc<dyn TokenAuthenticator>, api_audiences: Vec<String>) -> TokenReviewer {
        TokenReviewer {
            tokens,
            api_audiences,
        }
    }

    /// The review's status for an authenticator's answer.
    fn status(
        audiences: &[String],
        answer: Result<Option<TokenUser>, ApiError>,
    ) -> Result<Value, ApiError> {
        let mut status = Map::new();
        match answer {
            Ok(Some(found)) => {
                if !audiences.is_empty() && intersect(audiences, &found.audiences).is_empty() {
                    // An authenticator that ignored the audiences asked:
                    // Kubernetes refuses to answer rather than mislead.
                    tracing::error!(wanted = ?audiences, got = ?found.audiences, "a token authenticator answered without the audiences asked");
                    return Err(ApiError::Internal("error validating audiences".into()));
                }
                status.insert("authenticated".into(), json!(true));
                let user = with_authenticated_group(found.user);
                status.insert("user".into(), user_info(&user));
                if !found.audiences.is_empty() {
                    status.insert("audiences".into(), json!(found.audiences));
                }
            }
            Ok(None) => {
                status.insert("user".into(), json!({}));
                status.insert("error".into(), json!(UNKNOWN_TOKEN));
            }
            Err(e) => {
                tracing::debug!(error = %e, "token review: token refused");
                status.insert("user".into(), json!({}));
                status.insert("error".into(), json!(e.to_string()));
            }
        }
        Ok(Value::Object(status))
    }
}

/// `metadata` as sent, with Kubernetes' null `creationTimestamp` of an
/// object that was never stored.
pub(crate) fn echoed_metadata(body: &Value) -> Value {
    let mut meta = body
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    meta.entry("creationTimestamp").or_insert(Value::Null);
    Value::Object(meta)
}

impl Answerer for TokenReviewer {
    fn answer<'a>(
        &'a self,
        _question: Question<'a>,
        body: Value,
    ) -> MaybeAsync<'a, Result<Value, ApiError>> {
        let spec = body.get("spec");
        let token = spec
            .and_then(|s| s.get("token"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        if token.is_empty() {
            return MaybeAsync::Ready(Err(ApiError::BadRequest(
                "token is required for TokenReview in authentication".into(),
            )));
        }
        let requested: Vec<String> = spec
            .and_then(|s| s.get("audiences"))
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        let audiences = if requested.is_empty() {
            self.api_audiences.clone()
        } else {
            requested
        };
        MaybeAsync::pending(async move {
            let answer = self
                .tokens
                .authenticate_token(&token, &audiences)
                .resolve()
                .await;
            let status = TokenReviewer::status(&audiences, answer)?;
            let mut out = Map::new();
            out.insert("metadata".into(), echoed_metadata(&body));
            out.insert(
                "spec".into(),
                body.get("spec").cloned().unwrap_or_else(|| json!({})),
            );
            out.insert("status".into(), status);
            Ok(Value::Object(out))
        })
    }
}

/// Answers SelfSubjectReviews: the requester, as authenticated.
pub struct SelfSubjectReviewer;

impl Answerer for SelfSubjectReviewer {
    fn answer<'a>(
        &'a self,
        question: Question<'a>,
        _body: Value,
    ) -> MaybeAsync<'a, Result<Value, ApiError>> {
        MaybeAsync::Ready(Ok(json!({
            "metadata": {"creationTimestamp": rfc3339(SystemTime::now())},
            "status": {"userInfo": user_info(question.user)},
        })))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::request::authn::token::Audiences;

    /// "good" is jane (valid for the audiences asked, or "api" when none
    /// are); "deaf" answers without audiences; "expired" is refused.
    struct Fixed;

    impl TokenAuthenticator for Fixed {
        fn authenticate_token<'a>(
            &'a self,
            token: &'a str,
            audiences: Audiences<'a>,
        ) -> MaybeAsync<'a, Result<Option<TokenUser>, ApiError>> {
            let mut jane = UserInfo::new("jane", &["devs"]);
            jane.uid = "42".into();
            jane.extra = BTreeMap::from([("team".to_string(), vec!["a".to_string()])]);
            MaybeAsync::Ready(match token {
                "good" => Ok(Some(TokenUser {
                    user: Arc::new(jane),
                    audiences: audiences.to_vec(),
                })),
                "deaf" => Ok(Some(TokenUser {
                    user: Arc::new(jane),
                    audiences: Vec::new(),
                })),
                "expired" => Err(ApiError::BadRequest("token has expired".into())),
                _ => Ok(None),
            })
        }
    }

    async fn review(body: Value) -> Result<Value, (u16, String)> {
        let reviewer = TokenReviewer::new(Arc::new(Fixed), vec!["api".into()]);
        let user = Arc::new(UserInfo::new("admin", &[]));
        let question = Question {
            user: &user,
            namespace: None,
            store: None,
            dry_run: false,
        };
        reviewer
            .answer(question, body)
            .resolve()
            .await
            .map_err(|e| (e.code(), e.to_string()))
    }

    #[tokio::test]
    async fn good_bad_and_empty_tokens() {
        let good = review(json!({"metadata": {"name": "r"}, "spec": {"token": "good"}}))
            .await
            .expect("answered");
        assert_eq!(
            good,
            json!({
                "metadata": {"name": "r", "creationTimestamp": null},
                "spec": {"token": "good"},
                "status": {
                    "authenticated": true,
                    "user": {"username": "jane", "uid": "42", "groups": ["devs", "system:authenticated"], "extra": {"team": ["a"]}},
                    "audiences": ["api"]
                }
            })
        );
        let asked = review(json!({"spec": {"token": "good", "audiences": ["vault"]}}))
            .await
            .expect("answered");
        assert_eq!(asked["status"]["audiences"], json!(["vault"]));
        let unknown = review(json!({"spec": {"token": "nobody"}}))
            .await
            .expect("answered");
        assert_eq!(
            unknown["status"],
            json!({"user": {}, "error": "invalid bearer token"})
        );
        let expired = review(json!({"spec": {"token": "expired"}}))
            .await
            .expect("answered");
        assert_eq!(
            expired["status"],
            json!({"user": {}, "error": "token has expired"})
        );
        for empty in [
            json!({"spec": {"token": ""}}),
            json!({"spec": {}}),
            json!({}),
        ] {
            assert_eq!(
                review(empty).await,
                Err((
                    400,
                    "token is required for TokenReview in authentication".into()
                ))
            );
        }
        assert_eq!(
            review(json!({"spec": {"token": "deaf"}})).await,
            Err((
                500,
                "Internal error occurred: error validating audiences".into()
            ))
        );
    }

    #[tokio::test]
    async fn a_self_subject_review_tells_the_requester_who_they_are() {
        let mut user = UserInfo::new("jane", &["devs", "system:authenticated"]);
        user.extra = BTreeMap::from([("scopes".to_string(), vec!["x".to_string()])]);
        let user = Arc::new(user);
        let answer = SelfSubjectReviewer
            .answer(
                Question {
                    user: &user,
                    namespace: None,
                    store: None,
                    dry_run: false,
                },
                json!({}),
            )
            .resolve()
            .await
            .expect("answered");
        assert_eq!(
            answer["status"],
            json!({"userInfo": {"username": "jane", "groups": ["devs", "system:authenticated"], "extra": {"scopes": ["x"]}}})
        );
        let created = answer["metadata"]["creationTimestamp"]
            .as_str()
            .expect("a time");
        assert!(created.ends_with('Z') && created.len() == 20, "{created}");
    }
}
