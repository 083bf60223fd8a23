//! Request metrics of kube's endpoints/metrics package: counts, latencies,
//! response sizes, long-running and in-flight requests. The hot path looks
//! each series up once per (verb, dry run, target, code) in a map keyed by
//! one joined string built in a reused buffer, then only touches atomics and
//! the histograms' own locks.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use parking_lot::RwLock;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};

use super::definition::{Definition, Version};
use super::registry::{Described, MetricsRegistry};

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
const INFLIGHT: Definition = Definition::stable(
    "apiserver_current_inflight_requests",
    "Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
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

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabel {
    request_kind: &'static str,
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
    slo: Histogram,
    /// Only GET and LIST record their response sizes (as kube).
    sizes: Option<Histogram>,
}

type HistogramFamily<S> = Family<S, Histogram, fn() -> Histogram>;

/// Requests being served, per kind, and the most seen since the last scrape.
#[derive(Debug, Default)]
struct Inflight {
    current: [AtomicI64; 2],
    peak: [AtomicI64; 2],
}

const REQUEST_KINDS: [&str; 2] = ["readOnly", "mutating"];

impl Inflight {
    fn enter(&self, slot: usize) {
        let now = self.current[slot].fetch_add(1, Ordering::Relaxed) + 1;
        self.peak[slot].fetch_max(now, Ordering::Relaxed);
    }

    fn leave(&self, slot: usize) {
        self.current[slot].fetch_sub(1, Ordering::Relaxed);
    }
}

/// Encodes the in-flight peaks and starts a new window at the current count.
#[derive(Debug)]
struct InflightCollector(Arc<Inflight>);

impl Collector for InflightCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let family = Family::<KindLabel, Gauge>::default();
        for (slot, kind) in REQUEST_KINDS.iter().enumerate() {
            let now = self.0.current[slot].load(Ordering::Relaxed);
            let peak = self.0.peak[slot].swap(now, Ordering::Relaxed).max(now);
            family
                .get_or_create(&KindLabel { request_kind: kind })
                .set(peak);
        }
        Described::new(INFLIGHT, family).encode_into(&mut encoder)
    }
}

/// Counts a request in flight until dropped.
#[derive(Debug)]
pub struct InflightGuard {
    inflight: Arc<Inflight>,
    slot: usize,
}

impl Drop for InflightGuard {
    fn drop(&mut self) {
        self.inflight.leave(self.slot);
    }
}

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
    inflight: Arc<Inflight>,
    /// Keyed with foldhash: the key is ours, not an attacker's, and SipHash
    /// was most of a lookup.
    series: RwLock<HashMap<Box<str>, Series, foldhash::fast::RandomState>>,
}

thread_local! {
    static KEY: RefCell<String> = RefCell::new(String::with_capacity(128));
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
            inflight: Arc::default(),
            series: RwLock::default(),
        };
        registry.register(REQUEST_TOTAL, metrics.count.clone());
        registry.register(REQUEST_DURATION, metrics.latency.clone());
        registry.register(REQUEST_SLI, metrics.sli.clone());
        registry.register(REQUEST_SLO, metrics.slo.clone());
        registry.register(RESPONSE_SIZES, metrics.sizes.clone());
        registry.register(LONGRUNNING, metrics.longrunning.clone());
        registry.register_collector(Box::new(InflightCollector(Arc::clone(&metrics.inflight))));
        metrics
    }

    /// Counts a finished request: its count, and for short requests its
    /// latency and (GET and LIST) response size.
    pub fn observe(
        &self,
        o: &Observed<'_>,
        elapsed: Duration,
        long_running: bool,
        size: Option<u64>,
    ) {
        let series = self.series(o);
        series.count.inc();
        if long_running {
            return;
        }
        let seconds = elapsed.as_secs_f64();
        series.latency.observe(seconds);
        series.sli.observe(seconds);
        series.slo.observe(seconds);
        if let Some(size) = size {
            Self::size(&series, size);
        }
    }

    /// Records the size of a response streamed after `observe` counted it.
    pub fn observe_size(&self, o: &Observed<'_>, size: u64) {
        Self::size(&self.series(o), size);
    }

    fn size(series: &Series, size: u64) {
        if let Some(sizes) = &series.sizes {
            #[allow(clippy::cast_precision_loss)]
            sizes.observe(size as f64);
        }
    }

    /// The series' handles, resolved on first use.
    fn series(&self, o: &Observed<'_>) -> Series {
        KEY.with(|key| {
            let mut key = key.borrow_mut();
            key.clear();
            let _ = write!(
                key,
                "{}\0{}\0{}\0{}\0{}\0{}\0{}\0{}",
                o.verb, o.dry_run, o.group, o.version, o.resource, o.subresource, o.scope, o.code
            );
            if let Some(series) = self.series.read().get(key.as_str()) {
                return series.clone();
            }
            let series = self.resolve(o);
            self.series
                .write()
                .entry(key.as_str().into())
                .or_insert(series)
                .clone()
        })
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
        let count = CountLabels {
            verb: o.verb,
            dry_run: o.dry_run,
            group: latency.group.clone(),
            version: latency.version.clone(),
            resource: latency.resource.clone(),
            subresource: latency.subresource.clone(),
            scope: o.scope,
            component: COMPONENT,
            code: o.code.to_string(),
        };
        let target = target_labels(o);
        Series {
            count: self.count.get_or_create_owned(&count),
            latency: self.latency.get_or_create_owned(&latency),
            sli: self.sli.get_or_create_owned(&target),
            slo: self.slo.get_or_create_owned(&target),
            sizes: matches!(o.verb, "GET" | "LIST")
                .then(|| self.sizes.get_or_create_owned(&target)),
        }
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
