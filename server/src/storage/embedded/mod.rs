//! The default backend: cairn-engine on a local data directory. Reads answer
//! at once (values are slices of the mapped segment files); commits wait for
//! the engine's group commit.

mod convert;
pub mod metrics;
#[cfg(test)]
mod tests;
mod watch;

/// The engine's log target (its crate), for verbosity directives.
pub const LOG_TARGET: &str = "cairn_engine";

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use cairn_engine::{Engine, Options};
use parking_lot::Mutex;

use crate::storage::figures::{BackendFigures, Spread};
use crate::storage::{
    Committed, GetResult, KeyRange, RangeOptions, RangeResult, Reply, Revision, Status, Storage,
    StorageError, Txn, Watch,
};
use convert::{engine_revision, error, revision};

/// Engine durations are in microseconds; metrics report seconds.
const MICROS: f64 = 1_000_000.0;

/// A cumulative engine distribution as per-bucket counts scaled by `unit`.
#[allow(clippy::cast_precision_loss)]
fn spread(d: &cairn_engine::timings::DistributionSnapshot, unit: f64) -> Spread {
    let mut below = 0;
    let mut buckets: Vec<(f64, u64)> = d
        .buckets
        .iter()
        .map(|&(bound, cumulative)| {
            let here = cumulative - below;
            below = cumulative;
            (bound as f64 / unit, here)
        })
        .collect();
    // OpenMetrics wants the +Inf bucket written out.
    buckets.push((f64::INFINITY, d.count - below));
    Spread {
        buckets,
        count: d.count,
        sum: d.sum as f64 / unit,
    }
}

/// cairn-engine behind the `Storage` trait.
pub struct Embedded {
    engine: Mutex<Option<Engine>>,
    handle: Engine,
    /// Value bytes bulk ranges have handed out since mapped pages were
    /// last released.
    read_since_release: AtomicU64,
}

/// Value bytes read by bulk ranges after which the pages they mapped in
/// are released by the next range, not at the engine's periodic release
/// (other reads keep their pages until then), so a list
/// streamed page by page through a large store keeps little of it
/// resident. Small, because a read maps more than it reads: a key-ordered
/// list meets values scattered through the log, and each page fault maps
/// the pages around it too (the kernel's fault-around, 64 KiB).
const RELEASE_AFTER_READING: u64 = 2 << 20;

impl Embedded {
    /// Opens (creating) the data directory with durable commits.
    pub fn open(dir: &Path) -> Result<Embedded, StorageError> {
        // A watch whose client stops reading is ended (and re-lists) once this
        // many commit batches wait for it, so one slow client cannot pin much
        // shared memory.
        let engine = Engine::open(
            dir,
            Options {
                watch_buffer_batches: 1024,
                ..Options::default()
            },
        )
        .map_err(error)?;
        Ok(Embedded {
            engine: Mutex::new(Some(engine.clone())),
            handle: engine,
            read_since_release: AtomicU64::new(0),
        })
    }

    /// The engine's counters and distributions, in the server's types.
    #[must_use]
    pub fn figures(&self) -> BackendFigures {
        let stats = self.handle.stats();
        let timings = self.handle.timings();
        BackendFigures {
            current_revision: stats.current_revision.get(),
            compacted_revision: stats.compacted_revision.get(),
            segments: stats.segments,
            bytes: stats.bytes_on_disk,
            live_keys: stats.live_keys,
            watchers: stats.live_watchers,
            fsync_seconds: spread(&timings.fsync.snapshot(), MICROS),
            group_commit_size: spread(&timings.group_commit.snapshot(), 1.0),
            compaction_seconds: spread(&timings.compaction.snapshot(), MICROS),
            watch_lag_seconds: spread(&timings.watch_lag.snapshot(), MICROS),
        }
    }

    fn range_now(&self, range: KeyRange, opts: RangeOptions) -> Result<RangeResult, StorageError> {
        let engine_range = cairn_engine::KeyRange {
            start: range.start,
            end: range.end,
        };
        if self.read_since_release.load(Ordering::Relaxed) >= RELEASE_AFTER_READING {
            // Before this range maps pages in, those earlier ranges mapped
            // go (records still held map them again when read), so a list
            // streamed page by page keeps about a page of the log resident.
            self.read_since_release.store(0, Ordering::Relaxed);
            self.handle.release_mapped_pages();
        }
        let found = self
            .handle
            .range(
                &engine_range,
                cairn_engine::RangeOptions {
                    at: opts.at.map(engine_revision),
                    // One item is enough to count them all.
                    limit: if opts.count_only { 1 } else { opts.limit },
                    count_total: opts.count_total || opts.count_only,
                },
            )
            .map_err(error)?;
        if opts.count_only {
            return Ok(RangeResult {
                items: Vec::new(),
                more: false,
                count: found.count,
                revision: revision(found.revision),
            });
        }
        let keys_only = opts.keys_only;
        if opts.bulk {
            let read: u64 = found.items.iter().map(|kv| kv.value.len() as u64).sum();
            self.read_since_release.fetch_add(read, Ordering::Relaxed);
        }
        let items = found
            .items
            .into_iter()
            .map(|kv| {
                let mut kv = convert::key_value(kv);
                if keys_only {
                    kv.value = bytes::Bytes::new();
                }
                kv
            })
            .collect();
        Ok(RangeResult {
            items,
            more: found.more,
            count: found.count,
            revision: revision(found.revision),
        })
    }
}

impl Storage for Embedded {
    fn pages_cheaply(&self) -> bool {
        true
    }

    fn get(&self, key: &[u8], at: Option<Revision>) -> Reply<'_, Result<GetResult, StorageError>> {
        Reply::ready(
            self.handle
                .get(key, at.map(engine_revision))
                .map(convert::get_result)
                .map_err(error),
        )
    }

    fn range(
        &self,
        range: KeyRange,
        opts: RangeOptions,
    ) -> Reply<'_, Result<RangeResult, StorageError>> {
        Reply::ready(self.range_now(range, opts))
    }

    fn commit(&self, txn: Txn) -> Reply<'_, Result<Committed, StorageError>> {
        let pending = self.handle.commit(convert::txn(txn));
        Reply::pending(async move {
            pending
                .await
                .map(|c| Committed {
                    revision: revision(c.revision),
                })
                .map_err(error)
        })
    }

    fn watch(&self, range: KeyRange, after: Revision) -> Watch {
        // The engine filters by its own copy; ours filters the shared batches.
        let engine_range = cairn_engine::KeyRange::between(&range.start, &range.end);
        match self.handle.watch(engine_range, engine_revision(after)) {
            Ok(inner) => Watch::new(watch::EngineWatch {
                inner,
                range: Arc::new(range),
            }),
            Err(e) => Watch::failed(error(e), after),
        }
    }

    fn current_revision(&self) -> Reply<'_, Result<Revision, StorageError>> {
        Reply::ready(Ok(revision(self.handle.current_revision())))
    }

    fn status(&self) -> Reply<'_, Result<Status, StorageError>> {
        let stats = self.handle.stats();
        Reply::ready(Ok(Status {
            current_revision: revision(stats.current_revision),
            compacted_revision: revision(stats.compacted_revision),
            size_bytes: stats.bytes_on_disk,
            keys: stats.live_keys,
        }))
    }

    fn compact(&self, at: Revision) -> Reply<'_, Result<(), StorageError>> {
        Reply::ready(self.handle.compact(engine_revision(at)).map_err(error))
    }

    fn health(&self) -> Result<(), String> {
        if self.engine.lock().is_none() {
            return Err("storage closed".into());
        }
        Ok(())
    }

    fn close(&self) {
        if let Some(e) = self.engine.lock().take() {
            e.close();
        }
    }
}
