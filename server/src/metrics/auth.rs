//! Authentication metrics of kube's authentication filter: attempts and
//! their latency by result, and authenticated requests by (compressed)
//! user name.

use std::sync::OnceLock;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::exponential_buckets;

use crate::metrics::histogram::Histogram;

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
    /// Each outcome's series, resolved the first time it happens (a family
    /// lookup per request hashed its labels every time).
    by_outcome: [OnceLock<(Counter, Histogram)>; 3],
    /// Each folded username's series, likewise.
    by_user: [OnceLock<Counter>; USERNAMES.len()],
}

impl AuthnMetrics {
    pub fn register(registry: &mut MetricsRegistry) -> AuthnMetrics {
        let metrics = AuthnMetrics {
            attempts: Family::default(),
            duration: Family::new_with_constructor(|| {
                Histogram::new(exponential_buckets(0.001, 2.0, 15))
            }),
            users: Family::default(),
            by_outcome: Default::default(),
            by_user: Default::default(),
        };
        registry.register(ATTEMPTS, metrics.attempts.clone());
        registry.register(DURATION, metrics.duration.clone());
        registry.register(USER_REQUESTS, metrics.users.clone());
        metrics
    }

    /// Records one attempt; `user` is the authenticated name on success.
    pub fn observe(&self, outcome: Outcome, nanos: u64, user: Option<&str>) {
        let (attempts, duration) = self.by_outcome[outcome as usize].get_or_init(|| {
            let label = ResultLabel {
                result: outcome.label(),
            };
            (
                self.attempts.get_or_create_owned(&label),
                self.duration.get_or_create_owned(&label),
            )
        });
        attempts.inc();
        duration.observe(super::clock::seconds(nanos));
        if let Some(name) = user {
            let at = compressed_username(name);
            self.by_user[at]
                .get_or_init(|| {
                    self.users.get_or_create_owned(&UsernameLabel {
                        username: USERNAMES[at],
                    })
                })
                .inc();
        }
    }
}

/// The username label's values, as kube folds names into them.
const USERNAMES: [&str; 7] = [
    "admin",
    "client",
    "kube_proxy",
    "kubelet",
    "system:serviceaccount:kube-system:default",
    "email_id",
    "other",
];

/// kube keeps a few well-known identities and folds the rest (bounding the
/// label's values): the index of `name`'s value in `USERNAMES`.
fn compressed_username(name: &str) -> usize {
    match USERNAMES[..5].iter().position(|known| *known == name) {
        Some(at) => at,
        None if name.contains('@') => 5,
        None => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folded(name: &str) -> &str {
        USERNAMES[compressed_username(name)]
    }

    #[test]
    fn usernames_are_folded_as_kube_folds_them() {
        assert_eq!(folded("admin"), "admin");
        assert_eq!(folded("jane@example.com"), "email_id");
        assert_eq!(folded("system:admin"), "other");
        assert_eq!(
            folded("system:serviceaccount:kube-system:default"),
            "system:serviceaccount:kube-system:default"
        );
    }
}
