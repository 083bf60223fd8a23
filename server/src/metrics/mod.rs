//! `/metrics`: kube-apiserver's metrics, with its names, labels, buckets
//! and stability levels, through `prometheus-client`. One process-wide set
//! (as kube's legacy registry), installed at start-up with the
//! `--show-hidden-metrics-for-version` choice; recording sites reach it
//! through `global()`. Other parts plug their own families in with
//! `register` / `register_collector`.

pub mod admission;
pub mod auth;
pub mod authz;
pub mod clock;
pub mod definition;
pub mod histogram;
pub mod inflight;
pub mod labels;
pub mod metered;
pub mod operations;
pub mod process;
pub mod registry;
pub mod request;
pub mod series_key;
pub mod storage;
pub mod timing_ratio;
pub mod watch;

use std::fmt::Debug;
use std::sync::OnceLock;

use parking_lot::RwLock;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::EncodeMetric;

use auth::AuthnMetrics;
use definition::{CURRENT, Definition};
pub use registry::Format;
use registry::MetricsRegistry;
use request::RequestMetrics;

/// Every metric the server records.
pub struct Metrics {
    registry: RwLock<MetricsRegistry>,
    pub requests: RequestMetrics,
    pub authn: AuthnMetrics,
    pub authz: authz::AuthzMetrics,
    pub storage: storage::StorageMetrics,
    pub admission: admission::AdmissionMetrics,
    pub watch: watch::WatchMetrics,
}

impl Metrics {
    /// The metric set; hidden (long-deprecated) metrics registered only
    /// when `show_hidden`.
    #[must_use]
    pub fn new(show_hidden: bool) -> Metrics {
        let mut registry = MetricsRegistry::new(CURRENT, show_hidden);
        let requests = RequestMetrics::register(&mut registry);
        let authn = AuthnMetrics::register(&mut registry);
        let authz = authz::AuthzMetrics::register(&mut registry);
        let storage = storage::StorageMetrics::register(&mut registry);
        let admission = admission::AdmissionMetrics::register(&mut registry);
        let watch = watch::WatchMetrics::register(&mut registry);
        registry.register_collector(Box::new(process::ProcessCollector));
        Metrics {
            registry: RwLock::new(registry),
            requests,
            authn,
            authz,
            storage,
            admission,
            watch,
        }
    }

    /// Adds a metric from outside this module (deprecated-API gauge, flow
    /// control, audit counters, …); returns whether it shows.
    pub fn register<M>(&self, definition: Definition, metric: M) -> bool
    where
        M: EncodeMetric + Debug + Send + Sync + 'static,
    {
        self.registry.write().register(definition, metric)
    }

    /// Adds a collector read on every scrape (storage counts, engine
    /// figures).
    pub fn register_collector(&self, collector: Box<dyn Collector>) {
        self.registry.write().register_collector(collector);
    }

    /// The page for a request with this `Accept` header, and its
    /// Content-Type.
    #[must_use]
    pub fn scrape(&self, accept: Option<&str>) -> (String, String) {
        let format = Format::negotiate(accept);
        (format.content_type(), self.registry.read().encode(format))
    }
}

static GLOBAL: OnceLock<Metrics> = OnceLock::new();

/// Creates the process's metrics with the start-up choice of hidden
/// metrics. The first call wins (tests that run several servers in one
/// process share one set, as kube's legacy registry is shared).
pub fn install(show_hidden: bool) -> &'static Metrics {
    GLOBAL.get_or_init(|| Metrics::new(show_hidden))
}

/// The process's metrics (installed without hidden metrics if start-up
/// did not install them).
#[must_use]
pub fn global() -> &'static Metrics {
    install(false)
}
