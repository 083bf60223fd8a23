//! The in-flight request gauge of kube's max-in-flight filter
//! (`apiserver_current_inflight_requests{request_kind}`): requests being
//! served per kind, reported as the most seen since the previous scrape.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;

use super::definition::Definition;
use super::registry::Described;

const INFLIGHT: Definition = Definition::stable(
    "apiserver_current_inflight_requests",
    "Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
);

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabel {
    request_kind: &'static str,
}

/// Requests being served, per kind, and the most seen since the last scrape.
#[derive(Debug, Default)]
pub struct Inflight {
    current: [AtomicI64; 2],
    peak: [AtomicI64; 2],
}

const REQUEST_KINDS: [&str; 2] = ["readOnly", "mutating"];

impl Inflight {
    pub fn enter(&self, slot: usize) {
        let now = self.current[slot].fetch_add(1, Ordering::Relaxed) + 1;
        self.peak[slot].fetch_max(now, Ordering::Relaxed);
    }

    fn leave(&self, slot: usize) {
        self.current[slot].fetch_sub(1, Ordering::Relaxed);
    }
}

/// Encodes the in-flight peaks and starts a new window at the current count.
#[derive(Debug)]
pub struct InflightCollector(pub Arc<Inflight>);

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
    pub(super) inflight: Arc<Inflight>,
    pub(super) slot: usize,
}

impl Drop for InflightGuard {
    fn drop(&mut self) {
        self.inflight.leave(self.slot);
    }
}
