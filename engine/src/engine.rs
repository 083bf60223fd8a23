//! `Engine`: the public handle — open, commit, read, watch, compact, close.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::SystemTime;

use parking_lot::{Condvar, Mutex, RwLock};
use tokio::sync::oneshot;

use crate::commit::writer::Writer;
use crate::commit::{Pending, Queue};
use crate::compaction::{self, reclaim::ReclaimStats};
use crate::error::{Error, Result};
use crate::housekeeping::{self, Jobs};
use crate::lease::{ExpiryQueue, run_reaper};
use crate::lock::DirLock;
use crate::open::recover;
use crate::options::{Options, SyncMode};
use crate::record::{KeyRange, KeyValue, micros_since_epoch};
use crate::revision::Revision;
use crate::shared::Shared;
use crate::stats::Stats;
use crate::txn::{Committed, Txn};
use crate::watch::Watch;
use crate::watch::hub::Hub;

/// Result of [`Engine::get`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GetResult {
    /// The record, if the key existed at `revision`.
    pub kv: Option<KeyValue>,
    /// The revision the read was served at.
    pub revision: Revision,
}

/// Options of [`Engine::range`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RangeOptions {
    /// Read at this revision instead of the latest.
    pub at: Option<Revision>,
    /// Return at most this many items (0 = no limit).
    pub limit: usize,
    /// Count every key in the range even past `limit` (costs a full walk).
    pub count_total: bool,
}

/// Result of [`Engine::range`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangeResult {
    /// Records in key order.
    pub items: Vec<KeyValue>,
    /// Whether keys remain past the last item.
    pub more: bool,
    /// Keys in the range at `revision`: exact when `count_total` was set or
    /// `more` is false, otherwise the number of items plus one.
    pub count: u64,
    /// The revision the read was served at.
    pub revision: Revision,
}

/// Signals the background reclaimer.
#[derive(Default)]
pub(crate) struct ReclaimSignal {
    requested: Mutex<bool>,
    cv: Condvar,
}

struct Handle {
    shared: Arc<Shared>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    reclaim: Arc<ReclaimSignal>,
    _lock: Option<DirLock>,
}

impl Handle {
    fn shutdown(&self) {
        if self.shared.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        self.shared.queue.wake();
        self.shared.expiry.wake();
        {
            let _r = self.reclaim.requested.lock();
            self.reclaim.cv.notify_all();
        }
        let mut threads = std::mem::take(&mut *self.threads.lock());
        let housekeeper = threads.pop();
        for t in threads {
            let _ = t.join();
        }
        // Last: the threads above may still have queued sidecars to write.
        self.shared.housekeeping.stop();
        if let Some(t) = housekeeper {
            let _ = t.join();
        }
        self.shared.hub.close();
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// An open data directory. Cheap to clone; `Send + Sync`. Dropping the last
/// clone (or calling [`Engine::close`]) stops the background threads, ends
/// watches and releases the directory lock.
#[derive(Clone)]
pub struct Engine {
    handle: Arc<Handle>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("dir", &self.handle.shared.dir)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// Opens (creating if needed) a data directory for reading and writing,
    /// taking its exclusive lock.
    pub fn open(dir: impl AsRef<Path>, options: Options) -> Result<Engine> {
        let dir = dir.as_ref().to_path_buf();
        std::fs::create_dir_all(&dir).map_err(|e| Error::io("create directory", &dir, e))?;
        let lock = DirLock::acquire(&dir)?;
        if options.sync == SyncMode::None {
            tracing::warn!(dir = %dir.display(), "SYNC DISABLED: acknowledged writes can be lost on a crash (tests and benchmarks only)");
        }
        Self::start(dir, options, Some(lock))
    }

    /// Opens a data directory for reading only: no lock, no repair, no
    /// background work. Safe while another process has it open; what it sees
    /// is the state at open time.
    pub fn open_read_only(dir: impl AsRef<Path>, options: Options) -> Result<Engine> {
        let dir = dir.as_ref().to_path_buf();
        if !dir.is_dir() {
            return Err(Error::io(
                "open",
                &dir,
                std::io::Error::new(std::io::ErrorKind::NotFound, "no such directory"),
            ));
        }
        Self::start(dir, options, None)
    }

    fn start(dir: PathBuf, options: Options, lock: Option<DirLock>) -> Result<Engine> {
        let read_only = lock.is_none();
        let rec = recover(&dir, &options, read_only)?;
        let shared = Arc::new(Shared {
            dir,
            read_only,
            segments: RwLock::new(rec.segments),
            index: RwLock::new(rec.index),
            current: AtomicU64::new(rec.current),
            compacted: AtomicU64::new(rec.manifest.compacted_revision),
            hub: Hub::new(rec.current),
            manifest: Mutex::new(rec.manifest),
            queue: Queue::default(),
            expiry: ExpiryQueue::default(),
            housekeeping: Jobs::default(),
            compaction: Mutex::new(()),
            closed: AtomicBool::new(false),
            failure: Mutex::new(None),
            timings: crate::timings::Timings::default(),
            options,
        });
        shared.expiry.load(rec.expiring);
        let reclaim = Arc::new(ReclaimSignal::default());
        let mut threads = Vec::new();
        if let Some(active) = rec.active {
            let writer = Writer::new(Arc::clone(&shared), active, rec.current, rec.last_time);
            threads.push(spawn("cairn-writer", move || writer.run())?);
            let s = Arc::clone(&shared);
            threads.push(spawn("cairn-expiry", move || run_reaper(&s))?);
            if shared.options.background_reclaim {
                let (s, r) = (Arc::clone(&shared), Arc::clone(&reclaim));
                threads.push(spawn("cairn-reclaim", move || run_reclaimer(&s, &r))?);
            }
            // Must stay the last thread: shutdown stops it after the others.
            let s = Arc::clone(&shared);
            threads.push(spawn("cairn-housekeeping", move || housekeeping::run(&s))?);
        }
        Ok(Engine {
            handle: Arc::new(Handle {
                shared,
                threads: Mutex::new(threads),
                reclaim,
                _lock: lock,
            }),
        })
    }

    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.handle.shared
    }

    /// The data directory.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.shared().dir
    }

    fn submit(&self, txn: Txn) -> Result<oneshot::Receiver<Result<Committed>>> {
        self.shared().check_writable()?;
        let (reply, rx) = oneshot::channel();
        self.shared().queue.push(Pending { txn, reply });
        Ok(rx)
    }

    /// Commits a transaction atomically at one new revision once it is durable.
    /// A failed guard is [`Error::GuardFailed`] and writes nothing.
    pub async fn commit(&self, txn: Txn) -> Result<Committed> {
        let rx = self.submit(txn)?;
        rx.await.map_err(|_| Error::Closed)?
    }

    /// [`Engine::commit`] for plain threads (must not be called inside an
    /// async runtime: it blocks until the commit is durable).
    pub fn commit_blocking(&self, txn: Txn) -> Result<Committed> {
        let rx = self.submit(txn)?;
        rx.blocking_recv().map_err(|_| Error::Closed)?
    }

    /// The newest committed revision.
    #[must_use]
    pub fn current_revision(&self) -> Revision {
        Revision(self.shared().current())
    }

    /// Reads below this revision fail with [`Error::Compacted`].
    #[must_use]
    pub fn compacted_revision(&self) -> Revision {
        Revision(self.shared().compacted())
    }

    /// The key's record at `at` (latest when `None`).
    pub fn get(&self, key: &[u8], at: Option<Revision>) -> Result<GetResult> {
        let shared = self.shared();
        let segments = shared.segments.read();
        let index = shared.index.read();
        let rev = shared.resolve_locked(at)?;
        let v = index.history(key).and_then(|h| h.live_at(rev));
        drop(index);
        Ok(GetResult {
            kv: v.and_then(|v| Shared::key_value(&segments, v.loc, v.rev)),
            revision: Revision(rev),
        })
    }

    /// Records in `range` at a revision, in key order.
    pub fn range(&self, range: &KeyRange, opts: RangeOptions) -> Result<RangeResult> {
        let shared = self.shared();
        let segments = shared.segments.read();
        let index = shared.index.read();
        let rev = shared.resolve_locked(opts.at)?;
        let found = index.range(&range.start, &range.end, rev, opts.limit, opts.count_total);
        drop(index);
        let items: Vec<KeyValue> = found
            .items
            .iter()
            .filter_map(|&(loc, mod_rev)| Shared::key_value(&segments, loc, mod_rev))
            .collect();
        let count = if found.more && !opts.count_total {
            items.len() as u64 + 1
        } else {
            found.count
        };
        Ok(RangeResult {
            items,
            more: found.more,
            count,
            revision: Revision(rev),
        })
    }

    /// Changes to keys in `range` with revisions after `after`, in revision
    /// order: first retained history, then live. Fails with
    /// [`Error::Compacted`] when `after` is below the compaction point.
    pub fn watch(&self, range: KeyRange, after: Revision) -> Result<Watch> {
        let compacted = self.shared().compacted();
        if after.get() < compacted {
            return Err(Error::Compacted {
                requested: after,
                compacted: Revision(compacted),
            });
        }
        Ok(Watch::new(Arc::clone(self.shared()), range, after))
    }

    /// Forgets versions older than `at` (reads below it then fail) and, with
    /// background reclaim on, starts reclaiming their space.
    pub fn compact(&self, at: Revision) -> Result<()> {
        compaction::compact(self.shared(), at.get())?;
        if self.shared().options.background_reclaim {
            *self.handle.reclaim.requested.lock() = true;
            self.handle.reclaim.cv.notify_one();
        }
        Ok(())
    }

    /// Rewrites old segments now, on this thread, if at least
    /// `Options::reclaim_min_ratio` of them is reclaimable (always, with `force`).
    pub fn reclaim(&self, force: bool) -> Result<ReclaimStats> {
        compaction::reclaim::reclaim(self.shared(), force)
    }

    /// The newest retained revision committed at or before `time`; `None` when
    /// no retained revision is that old.
    #[must_use]
    pub fn revision_at(&self, time: SystemTime) -> Option<Revision> {
        let t = micros_since_epoch(time);
        self.shared()
            .index
            .read()
            .revlog
            .newest_at_or_before(t)
            .map(|r| Revision(r.rev))
    }

    /// Unmaps the segment pages readers faulted in now (the housekeeper also
    /// does so every `release_mapped_every`); see that option.
    pub fn release_mapped_pages(&self) {
        housekeeping::release_mapped_pages(self.shared());
    }

    /// Distributions of fsync latency, group-commit sizes and compaction
    /// durations since open.
    #[must_use]
    pub fn timings(&self) -> &crate::timings::Timings {
        &self.shared().timings
    }

    /// Counters describing the store.
    #[must_use]
    pub fn stats(&self) -> Stats {
        Stats::collect(self.shared())
    }

    /// Stops background work, ends watches and releases the lock once every
    /// clone of this handle is gone; waits for the writer to finish what was
    /// queued.
    pub fn close(self) {
        self.handle.shutdown();
    }
}

fn spawn(name: &str, f: impl FnOnce() + Send + 'static) -> Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name(name.into())
        .spawn(f)
        .map_err(|e| Error::io("spawn thread", name, e))
}

fn run_reclaimer(shared: &Arc<Shared>, signal: &ReclaimSignal) {
    loop {
        {
            let mut requested = signal.requested.lock();
            while !*requested {
                if shared.closed.load(Ordering::Acquire) {
                    return;
                }
                signal.cv.wait(&mut requested);
            }
            *requested = false;
        }
        if shared.closed.load(Ordering::Acquire) {
            return;
        }
        match compaction::reclaim::reclaim(shared, false) {
            Ok(s) if s.segments_in > 0 => {
                tracing::info!(
                    segments = s.segments_in,
                    reclaimed = s.reclaimed(),
                    "reclaimed compacted space"
                );
            }
            Ok(_) => {}
            Err(e) => {
                tracing::error!(error = %e, "space reclaim failed; will retry after the next compaction")
            }
        }
    }
}
