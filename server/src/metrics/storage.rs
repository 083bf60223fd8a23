//! Storage metrics: `apiserver_storage_objects` per resource and
//! `apiserver_storage_size_bytes`, refreshed by a background task (as kube
//! refreshes its object counts), and kube's etcd request latency
//! (`etcd_request_duration_seconds{operation,type}`) recorded by
//! `MeteredStorage` around whichever backend serves.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use crate::metrics::histogram::Histogram;
use parking_lot::RwLock;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;

use super::definition::Definition;
use super::registry::MetricsRegistry;
use crate::api::registry::Registry;
use crate::storage::Storage;
use crate::storage::types::{KeyRange, RangeOptions};

const OBJECTS: Definition = Definition::stable(
    "apiserver_storage_objects",
    "Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
);
const SIZE: Definition = Definition::stable(
    "apiserver_storage_size_bytes",
    "Size of the storage database file physically allocated in bytes.",
);
const LATENCY: Definition = Definition::alpha(
    "etcd_request_duration_seconds",
    "Etcd request latency in seconds for each operation and object type.",
);

/// kube's etcd request latency buckets.
const LATENCY_BUCKETS: [f64; 23] = [
    0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0,
    10.0, 15.0, 20.0, 30.0, 45.0, 60.0,
];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResourceLabel {
    resource: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ClusterLabel {
    storage_cluster_id: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OperationLabels {
    operation: &'static str,
    r#type: String,
}

/// Collections a thread recorded lately: (the metrics they belong to,
/// operation, collection prefix, histogram), so a request on one of them
/// skips the lookups.
const RECENT: usize = 8;

/// One remembered collection: (metrics' address, operation, prefix, series).
type Recent = (usize, &'static str, Box<[u8]>, Histogram);

thread_local! {
    static KEY: RefCell<Vec<u8>> = RefCell::new(Vec::with_capacity(64));
    static RECENT_SERIES: RefCell<Vec<Recent>> =
        RefCell::new(Vec::with_capacity(RECENT));
}

/// The storage metrics.
pub struct StorageMetrics {
    objects: Family<ResourceLabel, Gauge>,
    size: Family<ClusterLabel, Gauge>,
    latency: Family<OperationLabels, Histogram, fn() -> Histogram>,
    /// Histogram handles by `operation\0type`.
    series: RwLock<HashMap<Box<[u8]>, Histogram, foldhash::fast::RandomState>>,
    /// Collection prefixes (`/registry/configmaps/`) → their `type` label.
    prefixes: RwLock<HashMap<Box<[u8]>, String, foldhash::fast::RandomState>>,
}

impl StorageMetrics {
    pub fn register(registry: &mut MetricsRegistry) -> StorageMetrics {
        let metrics = StorageMetrics {
            objects: Family::default(),
            size: Family::default(),
            latency: Family::new_with_constructor(|| Histogram::new(LATENCY_BUCKETS)),
            series: RwLock::default(),
            prefixes: RwLock::default(),
        };
        registry.register(OBJECTS, metrics.objects.clone());
        registry.register(SIZE, metrics.size.clone());
        registry.register(LATENCY, metrics.latency.clone());
        metrics
    }

    /// Counts every stored resource's objects and reads the backend's size.
    pub async fn refresh(&self, storage: &dyn Storage, registry: &Registry, cluster_id: &str) {
        let mut prefixes = HashMap::default();
        let mut seen = HashSet::new();
        for kind in registry.storage_kinds() {
            let resource = resource_label(&kind.group, &kind.resource);
            prefixes.insert(kind.storage.prefix.as_bytes().into(), resource.clone());
            if !seen.insert(resource.clone()) {
                continue;
            }
            let opts = RangeOptions {
                count_only: true,
                ..RangeOptions::default()
            };
            let count = match storage
                .range(KeyRange::prefix(kind.storage.prefix.as_bytes()), opts)
                .resolve()
                .await
            {
                Ok(r) => i64::try_from(r.count).unwrap_or(i64::MAX),
                Err(_) => -1,
            };
            self.objects
                .get_or_create(&ResourceLabel { resource })
                .set(count);
        }
        *self.prefixes.write() = prefixes;
        if let Ok(status) = storage.status().resolve().await {
            let label = ClusterLabel {
                storage_cluster_id: cluster_id.to_string(),
            };
            self.size
                .get_or_create(&label)
                .set(i64::try_from(status.size_bytes).unwrap_or(i64::MAX));
        }
    }

    /// Records one backend request on `key` (its collection names `type`).
    pub fn observe(&self, operation: &'static str, key: &[u8], elapsed: Duration) {
        self.series(operation, key).observe(elapsed.as_secs_f64());
    }

    /// The series a backend request on `key` is recorded in, found before
    /// the request so the key need not be kept for after it. Works on the
    /// key's bytes under the map's read lock: no string is decoded.
    pub fn series(&self, operation: &'static str, key: &[u8]) -> Histogram {
        let owner = std::ptr::from_ref(self) as usize;
        let recent = RECENT_SERIES.with(|recent| {
            let recent = recent.borrow();
            recent
                .iter()
                .find(|(of, op, prefix, _)| {
                    *of == owner && std::ptr::eq(*op, operation) && key.starts_with(prefix)
                })
                .map(|(_, _, _, h)| h.clone())
        });
        if let Some(histogram) = recent {
            return histogram;
        }
        KEY.with(|buf| {
            let mut buf = buf.borrow_mut();
            buf.clear();
            buf.extend_from_slice(operation.as_bytes());
            buf.push(0);
            let collection = self.push_type(key, &mut buf);
            if let Some(h) = self.series.read().get(buf.as_slice()) {
                if let Some(prefix) = collection {
                    remember(owner, operation, prefix, h);
                }
                return h.clone();
            }
            let labels = OperationLabels {
                operation,
                r#type: String::from_utf8_lossy(&buf[operation.len() + 1..]).into_owned(),
            };
            let h = self.latency.get_or_create_owned(&labels);
            self.series
                .write()
                .entry(buf.as_slice().into())
                .or_insert(h)
                .clone()
        })
    }

    /// Appends the `type` of a key: its resource when the key lies in a
    /// known collection (whose prefix it returns), else its first segment
    /// after `/registry/`.
    fn push_type<'k>(&self, key: &'k [u8], out: &mut Vec<u8>) -> Option<&'k [u8]> {
        let prefixes = self.prefixes.read();
        let mut end = 0;
        let slashes = key
            .iter()
            .enumerate()
            .filter_map(|(i, b)| (*b == b'/').then_some(i));
        for (depth, i) in slashes.enumerate() {
            end = i + 1;
            if let Some(kind) = prefixes.get(&key[..end]) {
                out.extend_from_slice(kind.as_bytes());
                return Some(&key[..end]);
            }
            // Collections are at most four segments deep.
            if depth >= 4 {
                break;
            }
        }
        let rest = key.strip_prefix(b"/registry/").unwrap_or(&key[..end]);
        out.extend_from_slice(rest.split(|b| *b == b'/').next().unwrap_or_default());
        None
    }
}

/// Keeps `histogram` as this thread's series of `owner`'s metrics for
/// `operation` on keys under `prefix`, dropping the oldest past `RECENT`.
fn remember(owner: usize, operation: &'static str, prefix: &[u8], histogram: &Histogram) {
    RECENT_SERIES.with(|recent| {
        let mut recent = recent.borrow_mut();
        if recent.len() == RECENT {
            recent.remove(0);
        }
        recent.push((owner, operation, prefix.into(), histogram.clone()));
    });
}

/// kube's `resource` label: `configmaps`, `deployments.apps`.
fn resource_label(group: &str, resource: &str) -> String {
    if group.is_empty() {
        resource.to_string()
    } else {
        format!("{resource}.{group}")
    }
}

/// Refreshes the object counts and size every `every` until `stop` flips.
pub async fn track(
    metrics: &'static StorageMetrics,
    storage: Arc<dyn Storage>,
    registry: Arc<Registry>,
    cluster_id: String,
    every: Duration,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    loop {
        metrics
            .refresh(storage.as_ref(), &registry, &cluster_id)
            .await;
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            _ = stop.changed() => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn type_of(metrics: &StorageMetrics, key: &str) -> String {
        let mut out = Vec::new();
        let _ = metrics.push_type(key.as_bytes(), &mut out);
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn keys_are_typed_by_their_collection_else_their_first_segment() {
        let mut registry = MetricsRegistry::new(super::super::definition::CURRENT, false);
        let metrics = StorageMetrics::register(&mut registry);
        metrics.prefixes.write().extend([
            (
                b"/registry/configmaps/".as_slice().into(),
                "configmaps".to_string(),
            ),
            (
                b"/registry/apps/deployments/".as_slice().into(),
                "deployments.apps".to_string(),
            ),
        ]);
        assert_eq!(
            type_of(&metrics, "/registry/configmaps/default/a"),
            "configmaps"
        );
        assert_eq!(
            type_of(&metrics, "/registry/apps/deployments/ns/web"),
            "deployments.apps"
        );
        assert_eq!(type_of(&metrics, "/registry/unknown/x/y"), "unknown");
        metrics.observe(
            "get",
            b"/registry/configmaps/default/a",
            Duration::from_millis(1),
        );
        metrics.observe(
            "get",
            b"/registry/configmaps/default/b",
            Duration::from_millis(1),
        );
        // Now remembered by this thread: the third is counted the short way.
        let ms = Duration::from_millis(1);
        metrics.observe("get", b"/registry/configmaps/other/c", ms);
        metrics.observe("create", b"/registry/unknown/x/y", ms);
        let page = registry.encode(super::super::Format::PrometheusText);
        assert!(
            page.contains(
                "etcd_request_duration_seconds_count{operation=\"get\",type=\"configmaps\"} 3\n"
            ) && page.contains(
                "etcd_request_duration_seconds_count{operation=\"create\",type=\"unknown\"} 1\n"
            ),
            "{page}"
        );
    }

    #[test]
    fn resource_labels_name_the_group() {
        assert_eq!(resource_label("", "configmaps"), "configmaps");
        assert_eq!(resource_label("apps", "deployments"), "deployments.apps");
    }
}
