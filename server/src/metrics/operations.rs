//! What operators watch beside the request metrics, read on every scrape
//! from the parts that keep them: the deprecated APIs requested since
//! start (`apiserver_requested_deprecated_apis`), requests the in-flight
//! limits refused (`apiserver_dropped_requests_total`) and how full they
//! ran (`apiserver_flowcontrol_read_vs_write_current_requests`), and the audit
//! log's events and failures (`apiserver_audit_event_total`,
//! `apiserver_audit_error_total`), and the writes paced by watch delivery
//! (`cairn_watch_paced_writes_total`, `cairn_watch_paced_seconds_total`).

use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;

use super::definition::Definition;
use super::registry::Described;
use super::timing_ratio::TimingRatioFamily;
use crate::api::registry::Registry;
use crate::api::watch::lag::DeliveryLag;
use crate::request::audit::Auditor;
use crate::request::overload::inflight::InflightLimiter;

const DEPRECATED: Definition = Definition::stable(
    "apiserver_requested_deprecated_apis",
    "Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.",
);
const DROPPED: Definition = Definition::alpha(
    "apiserver_dropped_requests_total",
    "Number of requests dropped with 'Try again later' response",
);
const READ_VS_WRITE: Definition = Definition::alpha(
    "apiserver_flowcontrol_read_vs_write_current_requests",
    "Observations, at the end of every nanosecond, of the number of requests (as a fraction of the relevant limit) waiting or in regular stage of execution",
);
const AUDIT_EVENTS: Definition = Definition::alpha(
    "apiserver_audit_event_total",
    "Counter of audit events generated and sent to the audit backend.",
);
const AUDIT_ERRORS: Definition = Definition::alpha(
    "apiserver_audit_error_total",
    "Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.",
);

const PACED_WRITES: Definition = Definition::alpha(
    "cairn_watch_paced_writes_total",
    "Number of writes that waited before committing because watch delivery ran behind",
);
const PACED_SECONDS: Definition = Definition::alpha(
    "cairn_watch_paced_seconds_total",
    "Seconds writes waited in all before committing because watch delivery ran behind",
);

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DeprecatedLabels {
    group: String,
    version: String,
    resource: String,
    subresource: String,
    removed_release: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestKind {
    request_kind: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PhaseKind {
    phase: &'static str,
    request_kind: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Plugin {
    plugin: &'static str,
}

/// Reads the registry's record of deprecated requests, the in-flight
/// limiter's refusals and the audit log's counts.
pub struct OperationsCollector {
    /// Its `requested_deprecated` record.
    pub registry: Arc<Registry>,
    pub inflight: Arc<InflightLimiter>,
    pub auditor: Option<Arc<Auditor>>,
    pub watch_lag: Arc<DeliveryLag>,
}

impl std::fmt::Debug for OperationsCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OperationsCollector")
    }
}

impl Collector for OperationsCollector {
    fn encode(&self, mut e: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let deprecated: Family<DeprecatedLabels, Gauge> = Family::default();
        for api in self.registry.requested_deprecated.snapshot() {
            let labels = DeprecatedLabels {
                group: api.group,
                version: api.version,
                resource: api.resource,
                subresource: api.subresource,
                removed_release: api.removed_release,
            };
            deprecated.get_or_create(&labels).set(1);
        }
        Described::new(DEPRECATED, deprecated).encode_into(&mut e)?;

        let counts = self.inflight.counters();
        let dropped: Family<RequestKind, Counter> = Family::default();
        for (kind, n) in [
            ("readOnly", counts.read_only_dropped),
            ("mutating", counts.mutating_dropped),
        ] {
            dropped
                .get_or_create(&RequestKind { request_kind: kind })
                .inc_by(n);
        }
        Described::new(DROPPED, dropped).encode_into(&mut e)?;
        // The max-in-flight filter executes or refuses: nothing waits, so
        // only the executing phase exists (as in kube).
        let series = self
            .inflight
            .executing_ratios()
            .into_iter()
            .map(|(request_kind, ratio)| {
                let phase = "executing";
                (
                    PhaseKind {
                        phase,
                        request_kind,
                    },
                    ratio,
                )
            })
            .collect();
        Described::new(READ_VS_WRITE, TimingRatioFamily { series }).encode_into(&mut e)?;

        let (events, errors) = self
            .auditor
            .as_ref()
            .map_or((0, 0), |a| (a.events_total(), a.errors_total()));
        let audit_events: Counter = Counter::default();
        audit_events.inc_by(events);
        Described::new(AUDIT_EVENTS, audit_events).encode_into(&mut e)?;
        let audit_errors: Family<Plugin, Counter> = Family::default();
        audit_errors
            .get_or_create(&Plugin { plugin: "log" })
            .inc_by(errors);
        Described::new(AUDIT_ERRORS, audit_errors).encode_into(&mut e)?;

        let (writes, waited) = self.watch_lag.paced();
        let paced: Counter = Counter::default();
        paced.inc_by(writes);
        Described::new(PACED_WRITES, paced).encode_into(&mut e)?;
        let seconds: Counter<f64, std::sync::atomic::AtomicU64> = Counter::default();
        seconds.inc_by(waited.as_secs_f64());
        Described::new(PACED_SECONDS, seconds).encode_into(&mut e)
    }
}
