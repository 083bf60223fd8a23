//! cairn's own storage-engine metrics (the embedded backend only):
//! revisions, segments, bytes, keys, watchers, and the engine's fsync,
//! group-commit, compaction and watch-lag distributions — read on every scrape from
//! the backend's `BackendFigures`.

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, MetricEncoder, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::gauge::ConstGauge;

use crate::metrics::definition::Definition;
use crate::metrics::registry::Described;
use crate::storage::figures::{BackendFigures, Spread};

const REVISION: Definition = Definition::alpha(
    "cairn_engine_revision",
    "Newest committed revision of the embedded store.",
);
const COMPACTED: Definition = Definition::alpha(
    "cairn_engine_compacted_revision",
    "Revision below which the embedded store has compacted its history.",
);
const SEGMENTS: Definition = Definition::alpha(
    "cairn_engine_segments",
    "Segment files of the embedded store.",
);
const BYTES: Definition = Definition::alpha(
    "cairn_engine_bytes",
    "Bytes in the embedded store's segment files.",
);
const KEYS: Definition = Definition::alpha(
    "cairn_engine_live_keys",
    "Keys that exist at the embedded store's current revision.",
);
const WATCHERS: Definition = Definition::alpha(
    "cairn_engine_watchers",
    "Watches of the embedded store receiving live events.",
);
const FSYNC: Definition = Definition::alpha(
    "cairn_engine_fsync_duration_seconds",
    "Latency of the embedded store's fdatasync of a commit batch in seconds.",
);
const GROUP_COMMIT: Definition = Definition::alpha(
    "cairn_engine_group_commit_size",
    "Transactions made durable by one sync of the embedded store.",
);
const COMPACTION: Definition = Definition::alpha(
    "cairn_engine_compaction_duration_seconds",
    "Duration of the embedded store's compaction passes in seconds.",
);

const WATCH_LAG: Definition = Definition::alpha(
    "cairn_engine_watch_lag_seconds",
    "Time from a commit's publication to a live watch of the embedded store taking it, in seconds.",
);

/// A histogram whose buckets were counted elsewhere.
#[derive(Debug)]
struct Counted(Spread);

impl EncodeMetric for Counted {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), std::fmt::Error> {
        encoder.encode_histogram::<NoLabelSet>(self.0.sum, self.0.count, &self.0.buckets, None)
    }

    fn metric_type(&self) -> MetricType {
        MetricType::Histogram
    }
}

/// Reads `figures` on every scrape.
pub struct EngineCollector<F> {
    figures: F,
}

impl<F> std::fmt::Debug for EngineCollector<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EngineCollector")
    }
}

impl<F: Fn() -> BackendFigures + Send + Sync + 'static> EngineCollector<F> {
    pub fn new(figures: F) -> EngineCollector<F> {
        EngineCollector { figures }
    }
}

fn gauge(e: &mut DescriptorEncoder<'_>, d: Definition, v: u64) -> Result<(), std::fmt::Error> {
    let value = i64::try_from(v).unwrap_or(i64::MAX);
    Described::new(d, ConstGauge::new(value)).encode_into(e)
}

impl<F: Fn() -> BackendFigures + Send + Sync + 'static> Collector for EngineCollector<F> {
    fn encode(&self, mut e: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let f = (self.figures)();
        gauge(&mut e, REVISION, f.current_revision)?;
        gauge(&mut e, COMPACTED, f.compacted_revision)?;
        gauge(&mut e, SEGMENTS, f.segments)?;
        gauge(&mut e, BYTES, f.bytes)?;
        gauge(&mut e, KEYS, f.live_keys)?;
        gauge(&mut e, WATCHERS, f.watchers)?;
        Described::new(FSYNC, Counted(f.fsync_seconds)).encode_into(&mut e)?;
        Described::new(GROUP_COMMIT, Counted(f.group_commit_size)).encode_into(&mut e)?;
        Described::new(COMPACTION, Counted(f.compaction_seconds)).encode_into(&mut e)?;
        Described::new(WATCH_LAG, Counted(f.watch_lag_seconds)).encode_into(&mut e)
    }
}
