//! A webhook authorizer: each request becomes a SubjectAccessReview POSTed
//! to a server named by a kubeconfig (or the in-cluster environment), whose
//! `status` decides — allowed, denied (with its reason) or no opinion.
//! Match conditions (CEL over the v1 review spec, `request`) pick which
//! requests are asked at all; answers are cached by spec; a webhook that
//! cannot answer decides by its failure policy: `Deny` refuses the request,
//! `NoOpinion` leaves it to the next authorizers and, as in Kubernetes,
//! makes the request fail with an internal error when none allows it.

mod cache;
pub(crate) mod client;
pub(crate) mod kubeconfig;
mod review;
pub(crate) mod tls;

#[cfg(test)]
pub mod test_hook;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::api::cel::expression::all_match;
use hyper::body::Bytes;
use serde_json::Value;

use crate::api::cel::RUNTIME_CEL_COST_BUDGET;
use crate::api::error::ApiError;
use crate::config::authz::{FailurePolicy, WebhookConfig};
use crate::request::authz::{Attributes, Authorizer, Decision};
use crate::util::maybe_async::MaybeAsync;

/// The variable match conditions see.
const REQUEST: &str = "request";

pub struct Webhook {
    config: Arc<WebhookConfig>,
    /// `authorization.<domain>`, the reviews' group.
    group: String,
    client: client::Client,
    cache: cache::Cache,
}

impl Webhook {
    /// Reads the connection (the kubeconfig file, or the in-cluster
    /// environment) and prepares the client; the error is one line.
    pub fn new(config: Arc<WebhookConfig>, domain: &str) -> Result<Webhook, String> {
        let settings = kubeconfig::settings(&config.connection)?;
        let client = client::Client::new(&settings)?;
        Ok(Webhook {
            cache: cache::Cache::new(config.authorized_ttl, config.unauthorized_ttl),
            config,
            group: format!("authorization.{domain}"),
            client,
        })
    }

    /// The authorizer's name in its configuration.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// Whether every match condition holds for `request`. A false one
    /// decides at once; errors otherwise make the whole evaluation fail.
    fn matches(&self, request: &Value) -> Result<bool, String> {
        let mut budget = RUNTIME_CEL_COST_BUDGET;
        all_match(&self.config.match_conditions, |condition| {
            condition.evaluate_verbatim(&[(REQUEST, request)], &mut budget)
        })
    }

    /// The failure policy's decision when the webhook could not decide.
    fn failed(&self, error: &str) -> Result<Decision, ApiError> {
        let name = &self.config.name;
        tracing::warn!(authorizer = %name, url = %self.client.url(), "webhook authorizer failed: {error}");
        match self.config.failure_policy {
            FailurePolicy::Deny => Ok(Decision::Deny(format!(
                "the webhook authorizer {name:?} could not decide"
            ))),
            FailurePolicy::NoOpinion => Err(ApiError::Internal(format!(
                "webhook authorizer {name:?}: {error}"
            ))),
        }
    }

    /// Asks the webhook (no cached answer was fresh) and remembers its answer.
    async fn ask(&self, request: Value, key: String) -> Result<Decision, ApiError> {
        let body = review::body(&request, self.config.review_version, &self.group);
        let answer = self
            .client
            .post(Bytes::from(body.to_string()), self.config.timeout)
            .await
            .and_then(|bytes| review::read_answer(&bytes, &self.group));
        match answer {
            Ok(status) => {
                if !status.evaluation_error.is_empty() {
                    tracing::debug!(authorizer = %self.config.name, "webhook evaluation error: {}", status.evaluation_error);
                }
                self.cache.put(key, &status);
                Ok(status.decision())
            }
            Err(e) => self.failed(&e),
        }
    }
}

impl Authorizer for Webhook {
    fn authorize<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
    ) -> MaybeAsync<'a, Result<Decision, ApiError>> {
        let request = review::spec(attrs);
        if !self.config.match_conditions.is_empty() {
            match self.matches(&request) {
                Ok(true) => {}
                Ok(false) => return MaybeAsync::Ready(Ok(Decision::NoOpinion(String::new()))),
                Err(e) => return MaybeAsync::Ready(self.failed(&e)),
            }
        }
        let key = request.to_string();
        if let Some(status) = self.cache.get(&key) {
            return MaybeAsync::Ready(Ok(status.decision()));
        }
        MaybeAsync::pending(self.ask(request, key))
    }
}
