//! Request metrics of kube's endpoints/metrics package: counts, latencies,
//! response sizes, long-running and in-flight requests. The hot path finds
//! a request's series by a hash of its labels (compared in full on a hit),
//! then only touches atomics and the histograms' own locks.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::Arc;

use parking_lot::RwLock;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::exponential_buckets;

use crate::metrics::histogram::Histogram;

use super::definition::{Definition, Version};
pub use super::inflight::InflightGuard;
use super::inflight::{Inflight, InflightCollector};
use super::registry::MetricsRegistry;
use super::series_key::SeriesKey;

/// kube's `apiserver_request_duration_seconds` buckets.
const LATENCY_BUCKETS: [f64; 23] = [
    0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0,
    10.0, 15.0, 20.0, 30.0, 45.0, 60.0,
];
/// kube's SLI/SLO latency buckets (no sub-50ms resolution).
const SLI_BUCKETS: [f64; 21] = [
    0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 15.0, 20.0,
    30.0, 45.0, 60.0,
];

const COMPONENT: &str = "apiserver";

const REQUEST_TOTAL: Definition = Definition::stable(
    "apiserver_request_total",
    "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
);
const REQUEST_DURATION: Definition = Definition::stable(
    "apiserver_request_duration_seconds",
    "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
);
const REQUEST_SLI: Definition = Definition::alpha(
    "apiserver_request_sli_duration_seconds",
    "Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, group, version, resource, subresource, scope and component.",
);
const REQUEST_SLO: Definition = Definition::alpha(
    "apiserver_request_slo_duration_seconds",
    "Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, group, version, resource, subresource, scope and component.",
)
.deprecated_since(Version::new(1, 27, 0));
const RESPONSE_SIZES: Definition = Definition::stable(
    "apiserver_response_sizes",
    "Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.",
);
const LONGRUNNING: Definition = Definition::stable(
    "apiserver_longrunning_requests",
    "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.",
);
const TERMINATIONS: Definition = Definition::alpha(
    "apiserver_request_terminations_total",
    "Number of requests which apiserver terminated in self-defense.",
);

/// `apiserver_request_total`'s labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CountLabels {
    verb: &'static str,
    dry_run: &'static str,
    group: String,
    version: String,
    resource: String,
    subresource: String,
    scope: &'static str,
    component: &'static str,
    code: String,
}

/// `apiserver_request_terminations_total`'s labels (the count's without
/// `dry_run`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TerminationLabels {
    verb: &'static str,
    group: String,
    version: String,
    resource: String,
    subresource: String,
    scope: &'static str,
    component: &'static str,
    code: String,
}

/// The latency histogram's labels (the count's without `code`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LatencyLabels {
    verb: &'static str,
    dry_run: &'static str,
    group: String,
    version: String,
    resource: String,
    subresource: String,
    scope: &'static str,
    component: &'static str,
}

/// Response sizes, SLI latency and long-running gauge: no dry run, no code.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TargetLabels {
    verb: &'static str,
    group: String,
    version: String,
    resource: String,
    subresource: String,
    scope: &'static str,
    component: &'static str,
}

/// What one finished request is counted under.
#[derive(Clone, Copy, Debug)]
pub struct Observed<'a> {
    /// kube's reported verb (`verb_label`).
    pub verb: &'static str,
    /// `"All"` for a dry run, `""` otherwise.
    pub dry_run: &'static str,
    pub group: &'a str,
    pub version: &'a str,
    pub resource: &'a str,
    pub subresource: &'a str,
    /// `resource`, `namespace` or `cluster`.
    pub scope: &'static str,
    pub code: u16,
}

/// The handles of one series, resolved once.
#[derive(Clone, Debug)]
struct Series {
    count: Counter,
    latency: Histogram,
    sli: Histogram,
    /// Recorded only while the page shows it (hidden since 1.28).
    slo: Option<Histogram>,
    /// Only GET and LIST record their response sizes (as kube).
    sizes: Option<Histogram>,
}

/// Series by the hash of their labels (a rare collision shares the list).
type SeriesMap = HashMap<u64, Vec<(SeriesKey, Series)>, foldhash::fast::RandomState>;

type HistogramFamily<S> = Family<S, Histogram, fn() -> Histogram>;

/// Counts an open long-running request (a watch) until dropped.
#[derive(Debug)]
pub struct LongRunningGuard(Gauge);

impl Drop for LongRunningGuard {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// The request metrics.
pub struct RequestMetrics {
    count: Family<CountLabels, Counter>,
    latency: HistogramFamily<LatencyLabels>,
    sli: HistogramFamily<TargetLabels>,
    slo: HistogramFamily<TargetLabels>,
    sizes: HistogramFamily<TargetLabels>,
    longrunning: Family<TargetLabels, Gauge>,
    terminations: Family<TerminationLabels, Counter>,
    inflight: Arc<Inflight>,
    slo_shown: bool,
    /// Keyed with foldhash: the key is ours, not an attacker's, and SipHash
    /// was most of a lookup.
    series: RwLock<SeriesMap>,
    hasher: foldhash::fast::RandomState,
}

impl RequestMetrics {
    /// The metrics, registered in `registry`.
    pub fn register(registry: &mut MetricsRegistry) -> RequestMetrics {
        let metrics = RequestMetrics {
            count: Family::default(),
            latency: Family::new_with_constructor(|| Histogram::new(LATENCY_BUCKETS)),
            sli: Family::new_with_constructor(|| Histogram::new(SLI_BUCKETS)),
            slo: Family::new_with_constructor(|| Histogram::new(SLI_BUCKETS)),
            // 1 KB to 1 GB, as kube.
            sizes: Family::new_with_constructor(|| {
                Histogram::new(exponential_buckets(1000.0, 10.0, 7))
            }),
            longrunning: Family::default(),
            terminations: Family::default(),
            inflight: Arc::default(),
            slo_shown: false,
            series: RwLock::default(),
            hasher: foldhash::fast::RandomState::default(),
        };
        registry.register(REQUEST_TOTAL, metrics.count.clone());
        registry.register(REQUEST_DURATION, metrics.latency.clone());
        registry.register(REQUEST_SLI, metrics.sli.clone());
        let slo_shown = registry.register(REQUEST_SLO, metrics.slo.clone());
        registry.register(RESPONSE_SIZES, metrics.sizes.clone());
        registry.register(LONGRUNNING, metrics.longrunning.clone());
        registry.register(TERMINATIONS, metrics.terminations.clone());
        registry.register_collector(Box::new(InflightCollector(Arc::clone(&metrics.inflight))));
        RequestMetrics {
            slo_shown,
            ..metrics
        }
    }

    /// Counts a finished request: its count, and for short requests its
    /// latency and (GET and LIST) response size.
    pub fn observe(
        &self,
        o: &Observed<'_>,
        elapsed_nanos: u64,
        long_running: bool,
        size: Option<u64>,
    ) {
        self.with_series(o, |series| {
            series.count.inc();
            if long_running {
                return;
            }
            let seconds = super::clock::seconds(elapsed_nanos);
            series.latency.observe(seconds);
            series.sli.observe(seconds);
            if let Some(slo) = &series.slo {
                slo.observe(seconds);
            }
            if let Some(size) = size {
                Self::size(series, size);
            }
        });
    }

    /// Records the size of a response streamed after `observe` counted it.
    pub fn observe_size(&self, o: &Observed<'_>, size: u64) {
        self.with_series(o, |series| Self::size(series, size));
    }

    fn size(series: &Series, size: u64) {
        if let Some(sizes) = &series.sizes {
            #[allow(clippy::cast_precision_loss)]
            sizes.observe(size as f64);
        }
    }

    /// Runs `record` on the series' handles (resolved on first use), under
    /// the map's read lock: no handle is cloned per request.
    fn with_series(&self, o: &Observed<'_>, record: impl FnOnce(&Series)) {
        // The labels that tell a server's busy series apart; the rest are
        // compared in full on a hit (`SeriesKey::matches`).
        let hash = self.hasher.hash_one((o.code, o.verb, o.resource));
        if let Some(found) = self
            .series
            .read()
            .get(&hash)
            .and_then(|same| same.iter().find(|(key, _)| key.matches(o)))
        {
            record(&found.1);
            return;
        }
        let series = self.resolve(o);
        let mut all = self.series.write();
        let same = all.entry(hash).or_default();
        let at = match same.iter().position(|(key, _)| key.matches(o)) {
            Some(at) => at,
            None => {
                same.push((SeriesKey::of(o), series));
                same.len() - 1
            }
        };
        record(&same[at].1);
    }

    fn resolve(&self, o: &Observed<'_>) -> Series {
        let latency = LatencyLabels {
            verb: o.verb,
            dry_run: o.dry_run,
            group: o.group.to_string(),
            version: o.version.to_string(),
            resource: o.resource.to_string(),
            subresource: o.subresource.to_string(),
            scope: o.scope,
            component: COMPONENT,
        };
        let target = target_labels(o);
        Series {
            count: self.count.get_or_create_owned(&count_labels(o)),
            latency: self.latency.get_or_create_owned(&latency),
            sli: self.sli.get_or_create_owned(&target),
            slo: self
                .slo_shown
                .then(|| self.slo.get_or_create_owned(&target)),
            sizes: matches!(o.verb, "GET" | "LIST")
                .then(|| self.sizes.get_or_create_owned(&target)),
        }
    }

    /// Counts a request refused in self-defense before any handler (429
    /// past the in-flight limits): in the request count, as kube's dropped
    /// requests are, and among the terminations.
    pub fn dropped(&self, o: &Observed<'_>) {
        self.count.get_or_create(&count_labels(o)).inc();
        self.terminated(o);
    }

    /// Counts a request the server cut short itself (504 past its
    /// deadline, 429); the handler it cut records nothing.
    pub fn terminated(&self, o: &Observed<'_>) {
        let labels = TerminationLabels {
            verb: o.verb,
            group: o.group.to_string(),
            version: o.version.to_string(),
            resource: o.resource.to_string(),
            subresource: o.subresource.to_string(),
            scope: o.scope,
            component: COMPONENT,
            code: o.code.to_string(),
        };
        self.terminations.get_or_create(&labels).inc();
    }

    /// Counts an open long-running request under `o` (its code unused)
    /// until the guard drops.
    #[must_use]
    pub fn long_running(&self, o: &Observed<'_>) -> LongRunningGuard {
        let gauge = self.longrunning.get_or_create_owned(&target_labels(o));
        gauge.inc();
        LongRunningGuard(gauge)
    }

    /// Counts a short request in flight until the guard drops.
    #[must_use]
    pub fn in_flight(&self, mutating: bool) -> InflightGuard {
        let slot = usize::from(mutating);
        self.inflight.enter(slot);
        InflightGuard {
            inflight: Arc::clone(&self.inflight),
            slot,
        }
    }
}

fn count_labels(o: &Observed<'_>) -> CountLabels {
    CountLabels {
        verb: o.verb,
        dry_run: o.dry_run,
        group: o.group.to_string(),
        version: o.version.to_string(),
        resource: o.resource.to_string(),
        subresource: o.subresource.to_string(),
        scope: o.scope,
        component: COMPONENT,
        code: o.code.to_string(),
    }
}

fn target_labels(o: &Observed<'_>) -> TargetLabels {
    TargetLabels {
        verb: o.verb,
        group: o.group.to_string(),
        version: o.version.to_string(),
        resource: o.resource.to_string(),
        subresource: o.subresource.to_string(),
        scope: o.scope,
        component: COMPONENT,
    }
}
