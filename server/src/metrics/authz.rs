//! Authorization metrics: kube's authorization filter counts each request's
//! verdict and its latency by result, and each configured authorizer counts
//! the terminal decisions (allow or deny) it makes, by its type and name.

use std::sync::OnceLock;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::exponential_buckets;

use crate::metrics::histogram::Histogram;

use super::definition::Definition;
use super::registry::MetricsRegistry;

const ATTEMPTS: Definition = Definition::alpha(
    "authorization_attempts_total",
    "Counter of authorization attempts broken down by result. It can be either 'allowed', 'denied', 'no-opinion' or 'error'.",
);
const DURATION: Definition = Definition::alpha(
    "authorization_duration_seconds",
    "Authorization duration in seconds broken out by result.",
);
const DECISIONS: Definition = Definition::alpha(
    "apiserver_authorization_decisions_total",
    "Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.",
);

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabel {
    result: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DecisionLabels {
    r#type: &'static str,
    name: String,
    decision: &'static str,
}

/// How the authorizer chain answered a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    Denied,
    /// No authorizer had an opinion.
    NoOpinion,
    /// No authorizer allowed or denied and one failed.
    Error,
}

impl Verdict {
    fn label(self) -> &'static str {
        match self {
            Verdict::Allowed => "allowed",
            Verdict::Denied => "denied",
            Verdict::NoOpinion => "no-opinion",
            Verdict::Error => "error",
        }
    }
}

/// The authorization metrics.
pub struct AuthzMetrics {
    attempts: Family<ResultLabel, Counter>,
    duration: Family<ResultLabel, Histogram, fn() -> Histogram>,
    decisions: Family<DecisionLabels, Counter>,
    /// Each verdict's series, resolved the first time it happens.
    by_verdict: [OnceLock<(Counter, Histogram)>; 4],
}

impl AuthzMetrics {
    pub fn register(registry: &mut MetricsRegistry) -> AuthzMetrics {
        let metrics = AuthzMetrics {
            attempts: Family::default(),
            duration: Family::new_with_constructor(|| {
                Histogram::new(exponential_buckets(0.001, 2.0, 15))
            }),
            decisions: Family::default(),
            by_verdict: Default::default(),
        };
        registry.register(ATTEMPTS, metrics.attempts.clone());
        registry.register(DURATION, metrics.duration.clone());
        registry.register(DECISIONS, metrics.decisions.clone());
        metrics
    }

    /// Records one request's authorization.
    // Kept out of line so that bench/callgrind/recording.py can count it.
    #[inline(never)]
    pub fn observe(&self, verdict: Verdict, nanos: u64) {
        let (attempts, duration) = self.by_verdict[verdict as usize].get_or_init(|| {
            let label = ResultLabel {
                result: verdict.label(),
            };
            (
                self.attempts.get_or_create_owned(&label),
                self.duration.get_or_create_owned(&label),
            )
        });
        attempts.inc();
        duration.observe(super::clock::seconds(nanos));
    }

    fn decision(&self, kind: &'static str, name: &str, decision: &'static str) -> Counter {
        self.decisions.get_or_create_owned(&DecisionLabels {
            r#type: kind,
            name: name.to_string(),
            decision,
        })
    }
}

/// One configured authorizer's decision counters, resolved on first use
/// (a series appears once the authorizer has decided something).
pub struct Decisions {
    kind: &'static str,
    name: String,
    allowed: OnceLock<Counter>,
    denied: OnceLock<Counter>,
}

impl Decisions {
    /// The counters of the authorizer of `kind` (`RBAC`, `Webhook`, …)
    /// named `name`.
    #[must_use]
    pub fn new(kind: &'static str, name: &str) -> Decisions {
        Decisions {
            kind,
            name: name.to_string(),
            allowed: OnceLock::new(),
            denied: OnceLock::new(),
        }
    }

    /// Counts a terminal decision: `true` allowed, `false` denied.
    pub fn record(&self, allowed: bool) {
        let (cell, label) = if allowed {
            (&self.allowed, "allowed")
        } else {
            (&self.denied, "denied")
        };
        cell.get_or_init(|| super::global().authz.decision(self.kind, &self.name, label))
            .inc();
    }
}
