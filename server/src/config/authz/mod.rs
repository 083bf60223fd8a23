//! `--authorization-config`: the AuthorizationConfiguration file (spec
//! 2.7), read strictly (`decode`), validated with kube-apiserver's rules and
//! wording (`validate`) and compiled into typed values: the ordered
//! authorizers, webhooks with their match conditions compiled. Every
//! problem is reported as one line.

mod decode;
mod validate;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::config::document;
pub use crate::config::document::Problem;

use super::authn::{aggregate, check_type};
use crate::api::cel::Expression;

pub use decode::{DEFAULT_AUTHORIZED_TTL, DEFAULT_UNAUTHORIZED_TTL};

const KIND: &str = "AuthorizationConfiguration";

/// A validated configuration: the authorizers in the order they are asked.
#[derive(Debug)]
pub struct AuthorizationConfig {
    pub authorizers: Vec<AuthorizerConfig>,
}

/// One `authorizers[]` entry.
#[derive(Debug)]
pub struct AuthorizerConfig {
    pub name: String,
    pub kind: AuthorizerKind,
}

/// The authorizer types cairn provides (Kubernetes' Node and ABAC are not).
#[derive(Debug)]
pub enum AuthorizerKind {
    Rbac,
    AlwaysAllow,
    AlwaysDeny,
    Webhook(Arc<WebhookConfig>),
}

/// A webhook authorizer's settings.
#[derive(Debug)]
pub struct WebhookConfig {
    /// The authorizer's name (logs).
    pub name: String,
    /// The longest one exchange with the webhook may take, retries included.
    pub timeout: Duration,
    /// How long allowed answers are reused; `None`: not cached.
    pub authorized_ttl: Option<Duration>,
    /// How long other answers are reused; `None`: not cached.
    pub unauthorized_ttl: Option<Duration>,
    pub review_version: ReviewVersion,
    pub failure_policy: FailurePolicy,
    pub connection: Connection,
    /// All must be true for the webhook to be asked.
    pub match_conditions: Vec<Expression>,
}

/// The SubjectAccessReview version sent to the webhook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReviewVersion {
    V1,
    V1beta1,
}

impl ReviewVersion {
    /// `v1` or `v1beta1`.
    pub fn parse(text: &str) -> Option<ReviewVersion> {
        match text {
            "v1" => Some(ReviewVersion::V1),
            "v1beta1" => Some(ReviewVersion::V1beta1),
            _ => None,
        }
    }

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewVersion::V1 => "v1",
            ReviewVersion::V1beta1 => "v1beta1",
        }
    }
}

/// What a webhook that cannot answer (timeout, error status, malformed
/// answer, failing match condition) decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailurePolicy {
    NoOpinion,
    Deny,
}

/// How the webhook is reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Connection {
    /// The cluster, user and context of a kubeconfig file.
    KubeConfigFile(PathBuf),
    /// The service-account environment of a pod (`KUBERNETES_SERVICE_HOST`).
    InCluster,
}

/// Reads and validates the file at `path` (apiVersion at `domain`).
pub fn load(path: &Path, domain: &str) -> Result<AuthorizationConfig, String> {
    document::load(
        path,
        "authorization configuration",
        "AuthorizationConfiguration",
        |data| parse(data, domain),
    )
}

/// Reads and validates a document (YAML or JSON).
pub fn parse(data: &[u8], domain: &str) -> Result<AuthorizationConfig, Problem> {
    let doc = document::decode(data)?;
    let raw = decode::decode(&doc).map_err(Problem::Load)?;
    check_type(&raw.api_version, &raw.kind, KIND, domain).map_err(Problem::Load)?;
    let mut errors = Vec::new();
    let config = validate::validate(raw, &mut errors);
    if errors.is_empty() {
        Ok(config)
    } else {
        Err(Problem::Invalid(aggregate(&errors)))
    }
}
