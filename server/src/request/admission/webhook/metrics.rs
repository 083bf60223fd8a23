//! kube's admission webhook metrics: each call's latency, each call by
//! answer code, and each rejection by cause, per webhook name, admission
//! type (`admit` for mutating, `validating`) and operation. Registered
//! once per process, when the first webhook plugin starts.

use std::sync::OnceLock;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;

use crate::metrics::definition::Definition;

const DURATION: Definition = Definition::stable(
    "apiserver_admission_webhook_admission_duration_seconds",
    "Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
);
const REQUESTS: Definition = Definition::alpha(
    "apiserver_admission_webhook_request_total",
    "Admission webhook request total, identified by name and broken out for each admission type (validating or mutating) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.",
);
const REJECTIONS: Definition = Definition::alpha(
    "apiserver_admission_webhook_rejection_count",
    "Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.",
);

/// kube's webhook latency buckets.
const BUCKETS: [f64; 8] = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10.0, 25.0];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DurationLabels {
    name: String,
    r#type: &'static str,
    operation: &'static str,
    rejected: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    name: String,
    r#type: &'static str,
    operation: &'static str,
    code: u16,
    rejected: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RejectionLabels {
    name: String,
    r#type: &'static str,
    operation: &'static str,
    error_type: &'static str,
    rejection_code: u16,
}

/// How a call ended.
#[derive(Clone, Copy, Debug)]
pub enum Outcome {
    Allowed,
    /// The webhook refused, with this code.
    Denied(u16),
    /// The webhook could not be called or answered nonsense.
    CallFailed,
}

pub struct WebhookMetrics {
    duration: Family<DurationLabels, Histogram, fn() -> Histogram>,
    requests: Family<RequestLabels, Counter>,
    rejections: Family<RejectionLabels, Counter>,
}

/// The process's webhook metrics, registered on first use.
pub fn metrics() -> &'static WebhookMetrics {
    static METRICS: OnceLock<WebhookMetrics> = OnceLock::new();
    METRICS.get_or_init(|| {
        let m = WebhookMetrics {
            duration: Family::new_with_constructor(|| Histogram::new(BUCKETS)),
            requests: Family::default(),
            rejections: Family::default(),
        };
        let global = crate::metrics::global();
        global.register(DURATION, m.duration.clone());
        global.register(REQUESTS, m.requests.clone());
        global.register(REJECTIONS, m.rejections.clone());
        m
    })
}

impl WebhookMetrics {
    /// One call of webhook `name`.
    pub fn observe(
        &self,
        name: &str,
        mutating: bool,
        operation: &'static str,
        outcome: Outcome,
        took: Duration,
    ) {
        let r#type = if mutating { "admit" } else { "validating" };
        let rejected = if matches!(outcome, Outcome::Allowed) {
            "false"
        } else {
            "true"
        };
        let code = match outcome {
            Outcome::Allowed => 200,
            Outcome::Denied(code) => code.min(600),
            Outcome::CallFailed => 0,
        };
        self.duration
            .get_or_create(&DurationLabels {
                name: name.into(),
                r#type,
                operation,
                rejected,
            })
            .observe(took.as_secs_f64());
        self.requests
            .get_or_create(&RequestLabels {
                name: name.into(),
                r#type,
                operation,
                code,
                rejected,
            })
            .inc();
        let (error_type, rejection_code) = match outcome {
            Outcome::Allowed => return,
            Outcome::Denied(code) => ("no_error", code.min(600)),
            Outcome::CallFailed => ("calling_webhook_error", 0),
        };
        self.rejections
            .get_or_create(&RejectionLabels {
                name: name.into(),
                r#type,
                operation,
                error_type,
                rejection_code,
            })
            .inc();
    }
}
