//! Authentication metrics of kube's authentication filter: attempts and
//! their latency by result, and authenticated requests by (compressed)
//! user name.

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};

use super::definition::Definition;
use super::registry::MetricsRegistry;

const ATTEMPTS: Definition = Definition::alpha(
    "authentication_attempts",
    "Counter of authenticated attempts.",
);
const DURATION: Definition = Definition::alpha(
    "authentication_duration_seconds",
    "Authentication duration in seconds broken out by result.",
);
const USER_REQUESTS: Definition = Definition::alpha(
    "authenticated_user_requests",
    "Counter of authenticated requests broken out by username.",
);

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabel {
    result: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct UsernameLabel {
    username: &'static str,
}

/// How an authentication attempt ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Success,
    /// No authenticator recognised the credentials (401).
    Failure,
    /// An authenticator failed to decide.
    Error,
}

impl Outcome {
    fn label(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::Failure => "failure",
            Outcome::Error => "error",
        }
    }
}

/// The authentication metrics.
pub struct AuthnMetrics {
    attempts: Family<ResultLabel, Counter>,
    duration: Family<ResultLabel, Histogram, fn() -> Histogram>,
    users: Family<UsernameLabel, Counter>,
}

impl AuthnMetrics {
    pub fn register(registry: &mut MetricsRegistry) -> AuthnMetrics {
        let metrics = AuthnMetrics {
            attempts: Family::default(),
            duration: Family::new_with_constructor(|| {
                Histogram::new(exponential_buckets(0.001, 2.0, 15))
            }),
            users: Family::default(),
        };
        registry.register(ATTEMPTS, metrics.attempts.clone());
        registry.register(DURATION, metrics.duration.clone());
        registry.register(USER_REQUESTS, metrics.users.clone());
        metrics
    }

    /// Records one attempt; `user` is the authenticated name on success.
    pub fn observe(&self, outcome: Outcome, elapsed: Duration, user: Option<&str>) {
        let label = ResultLabel {
            result: outcome.label(),
        };
        self.attempts.get_or_create(&label).inc();
        self.duration
            .get_or_create(&label)
            .observe(elapsed.as_secs_f64());
        if let Some(name) = user {
            let username = compressed_username(name);
            self.users.get_or_create(&UsernameLabel { username }).inc();
        }
    }
}

/// kube keeps a few well-known identities and folds the rest (bounding the
/// label's values).
fn compressed_username(name: &str) -> &'static str {
    match name {
        "admin" => "admin",
        "client" => "client",
        "kube_proxy" => "kube_proxy",
        "kubelet" => "kubelet",
        "system:serviceaccount:kube-system:default" => "system:serviceaccount:kube-system:default",
        n if n.contains('@') => "email_id",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_are_folded_as_kube_folds_them() {
        assert_eq!(compressed_username("admin"), "admin");
        assert_eq!(compressed_username("jane@example.com"), "email_id");
        assert_eq!(compressed_username("system:admin"), "other");
        assert_eq!(
            compressed_username("system:serviceaccount:kube-system:default"),
            "system:serviceaccount:kube-system:default"
        );
    }
}
