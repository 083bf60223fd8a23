//! Watch metrics: watches open and the events sent to them with their
//! sizes, by the watched kind (kube's labels group, version, kind). A watch
//! resolves its handles once; each event then costs an atomic add and a
//! histogram observation.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::exponential_buckets;

use crate::metrics::histogram::Histogram;

use super::definition::Definition;
use super::registry::MetricsRegistry;

// kube-apiserver dropped this gauge after 1.23; cairn keeps it, it being
// the only per-kind count of open watches.
const REGISTERED: Definition = Definition::alpha(
    "apiserver_registered_watchers",
    "Number of currently registered watchers for a given resources",
);
const EVENTS: Definition = Definition::alpha(
    "apiserver_watch_events_total",
    "Number of events sent in watch clients",
);
const SIZES: Definition = Definition::alpha(
    "apiserver_watch_events_sizes",
    "Watch event size distribution in bytes",
);

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabels {
    group: String,
    version: String,
    kind: String,
}

/// The watch event metrics.
pub struct WatchMetrics {
    registered: Family<KindLabels, Gauge>,
    events: Family<KindLabels, Counter>,
    sizes: Family<KindLabels, Histogram, fn() -> Histogram>,
}

/// One open watch's handles; it counts as registered until dropped.
#[derive(Debug)]
pub struct WatchEvents {
    registered: Gauge,
    events: Counter,
    sizes: Histogram,
}

impl Drop for WatchEvents {
    fn drop(&mut self) {
        self.registered.dec();
    }
}

impl WatchEvents {
    /// Counts one event of `bytes` sent (empty frames are no event).
    pub fn sent(&self, bytes: usize) {
        if bytes == 0 {
            return;
        }
        self.events.inc();
        #[allow(clippy::cast_precision_loss)]
        self.sizes.observe(bytes as f64);
    }
}

impl WatchMetrics {
    pub fn register(registry: &mut MetricsRegistry) -> WatchMetrics {
        let metrics = WatchMetrics {
            registered: Family::default(),
            events: Family::default(),
            // 1 KiB to 128 KiB, as kube.
            sizes: Family::new_with_constructor(|| {
                Histogram::new(exponential_buckets(1024.0, 2.0, 8))
            }),
        };
        registry.register(REGISTERED, metrics.registered.clone());
        registry.register(EVENTS, metrics.events.clone());
        registry.register(SIZES, metrics.sizes.clone());
        metrics
    }

    /// The handles of a watch on `group`/`version` `kind`, registered
    /// from now until they drop.
    #[must_use]
    pub fn for_kind(&self, group: &str, version: &str, kind: &str) -> WatchEvents {
        let labels = KindLabels {
            group: group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
        };
        let registered = self.registered.get_or_create_owned(&labels);
        registered.inc();
        WatchEvents {
            registered,
            events: self.events.get_or_create_owned(&labels),
            sizes: self.sizes.get_or_create_owned(&labels),
        }
    }
}
