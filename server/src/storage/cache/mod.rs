//! The watch cache in front of a networked backend (etcd), as
//! kube-apiserver's cacher: one backend watch over every API object feeds
//! an in-memory window of the data (`memory`) and of its changes
//! (`history`, five minutes), so that
//! - every watch is served from memory: one backend watch however many
//!   watchers, each batch shared by all of them (with what they derive
//!   from it: decoded attributes, encodings);
//! - lists at an exact revision (pages, `resourceVersionMatch=Exact`) are
//!   read from memory when the window holds that revision;
//! - consistent lists ask the backend only for its current revision, wait
//!   (briefly) for the cache to reach it, and read from memory; reads not
//!   older than a revision (`resourceVersion=0`, `NotOlderThan`) ask it
//!   nothing once the cache has reached that revision;
//! - gets and writes go to the backend, as kube-apiserver sends them to
//!   etcd; so does anything the window cannot answer.
//!
//! The backend's semantics are kept: a cached read answers what the
//! backend would have answered at that revision.

mod feed;
mod history;
mod memory;
#[cfg(test)]
mod reads_tests;
mod sleepers;
#[cfg(test)]
mod spy;
mod storage;
#[cfg(test)]
mod tests;
mod watch;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use parking_lot::{Mutex, RwLock};
use tokio::sync::Notify;
use tokio::sync::watch as signal;

use self::history::History;
use self::memory::Memory;
use self::sleepers::Sleepers;
use crate::storage::{Batch, KeyRange, Revision, Storage};

/// How long the window of changes reaches back.
const WINDOW: Duration = Duration::from_secs(300);
/// The most events the window keeps (older ones go first).
const MAX_EVENTS: usize = 100_000;

/// The cache over a backend; see the module docs.
pub struct WatchCache {
    backend: Arc<dyn Storage>,
    /// The keys it holds.
    range: KeyRange,
    shared: Arc<Shared>,
    stop: signal::Sender<bool>,
}

/// What the cache's feed writes and its readers read.
struct Shared {
    state: RwLock<State>,
    /// Bumped after every batch kept, and on every change of load.
    appended: AtomicU64,
    /// The revision applied, for reads waiting on it.
    applied: signal::Sender<Revision>,
    sleepers: Mutex<Sleepers>,
    /// Whether the backend watch is following: `get_recent` answers from
    /// memory only then, so a cache cut off from its backend does not hold
    /// writers in a loop of guarded commits on a record it cannot update.
    following: AtomicBool,
    /// The newest revision a reader waits for: the feed asks the backend
    /// for progress when the cache has not applied it.
    wanted: AtomicU64,
    progress_wanted: Notify,
    /// Reads the cache could not answer in time and passed to the backend.
    fallbacks: AtomicU64,
    /// `get_recent` answers from memory only once the cache has applied
    /// this revision: a commit whose guard failed raises it past what it
    /// found, so the retry reads the record that failed it, not the
    /// cache's older copy again.
    floor: AtomicU64,
}

struct State {
    /// `None` until the first load.
    memory: Option<Memory>,
    history: History,
    closed: bool,
}

impl WatchCache {
    /// A cache of `range` of `backend`; it loads in the background and
    /// passes every call through to the backend until then. Must run
    /// inside a tokio runtime.
    pub fn start(backend: Arc<dyn Storage>, range: KeyRange) -> Arc<WatchCache> {
        let (applied, _) = signal::channel(Revision::ZERO);
        let shared = Arc::new(Shared {
            state: RwLock::new(State {
                memory: None,
                history: History::new(Revision::ZERO),
                closed: false,
            }),
            appended: AtomicU64::new(0),
            applied,
            sleepers: Mutex::new(Sleepers::default()),
            following: AtomicBool::new(false),
            wanted: AtomicU64::new(0),
            progress_wanted: Notify::new(),
            fallbacks: AtomicU64::new(0),
            floor: AtomicU64::new(0),
        });
        let (stop, stopped) = signal::channel(false);
        tokio::spawn(feed::run(
            Arc::clone(&shared),
            Arc::clone(&backend),
            range.clone(),
            stopped,
        ));
        Arc::new(WatchCache {
            backend,
            range,
            shared,
            stop,
        })
    }

    /// Waits for the first load, at most `patience`; whether it is in.
    pub async fn loaded(&self, patience: Duration) -> bool {
        let mut applied = self.shared.applied.subscribe();
        let state = &self.shared.state;
        let check = applied.wait_for(|_| state.read().memory.is_some());
        matches!(tokio::time::timeout(patience, check).await, Ok(Ok(_)))
    }

    /// How many reads the cache passed to the backend because it could
    /// not reach the revision they needed in time.
    #[must_use]
    pub fn fallbacks(&self) -> u64 {
        self.shared.fallbacks.load(Ordering::Relaxed)
    }

    /// Whether `range` lies inside the cached keys.
    fn covers(&self, range: &KeyRange) -> bool {
        let within_end = match (range.end.is_empty(), self.range.end.is_empty()) {
            (_, true) => true,
            (true, false) => false,
            (false, false) => range.end <= self.range.end,
        };
        range.start >= self.range.start && within_end
    }
}

impl Drop for WatchCache {
    fn drop(&mut self) {
        self.stop.send_replace(true);
    }
}

impl Shared {
    /// The first load of the data; the revision watches start after.
    fn install(&self, memory: Memory) -> Revision {
        let revision = memory.revision();
        {
            let mut state = self.state.write();
            state.memory = Some(memory);
            state.history = History::new(revision);
        }
        self.applied.send_replace(revision);
        self.wake_all();
        revision
    }

    /// Applies and keeps a batch, and wakes the watchers of its keys.
    fn apply(&self, batch: Arc<Batch>) {
        let kept = self.change(|memory, history| {
            memory.apply(batch.events());
            let number = history.end();
            history.push(Arc::clone(&batch));
            number
        });
        if let Some(number) = kept {
            self.announce(&batch, number);
        }
    }

    /// Takes in a full read made after the backend compacted away changes
    /// the cache never saw (or its first one). Watchers keep their place
    /// and get the difference as one batch: each changed key as it is now,
    /// since the steps between are gone. Watches and exact reads before
    /// the read's revision go to the backend, which answers what it still
    /// has (or that it compacted it). The revision watches follow from.
    fn resync(&self, newer: Memory) -> Revision {
        // Only the feed changes the data, so nothing loads it meanwhile.
        if self.state.read().memory.is_none() {
            return self.install(newer);
        }
        let revision = newer.revision();
        let kept = self.change(move |memory, history| {
            let batch = Arc::new(Batch::new(memory.changes_to(&newer)));
            *memory = newer;
            history.restart_at(revision);
            let number = history.end();
            history.push(Arc::clone(&batch));
            (batch, number)
        });
        if let Some((batch, number)) = kept {
            self.announce(&batch, number);
        }
        revision
    }

    /// A batch was kept as number `number`: its watchers look.
    fn announce(&self, batch: &Batch, number: u64) {
        self.appended.fetch_add(1, Ordering::SeqCst);
        self.sleepers.lock().wake_for(batch, number);
    }

    /// Notes the backend watch's progress, if any, and ages the window.
    /// Watchers at the end report the new progress when they next look.
    fn tidy(&self, progress: Option<Revision>) {
        self.change(|memory, _| {
            if let Some(progress) = progress {
                memory.reached(progress);
            }
        });
    }

    /// Changes the data under the lock, ages the window, and publishes
    /// the revision applied; `None` before the first load.
    fn change<T>(&self, f: impl FnOnce(&mut Memory, &mut History) -> T) -> Option<T> {
        let (out, revision) = {
            let mut state = self.state.write();
            let State {
                memory, history, ..
            } = &mut *state;
            let memory = memory.as_mut()?;
            let out = f(memory, history);
            if let Some(start) = history.trim(WINDOW, MAX_EVENTS) {
                memory.forget_before(start);
            }
            (out, memory.revision())
        };
        self.applied.send_if_modified(|r| {
            let newer = revision > *r;
            *r = (*r).max(revision);
            newer
        });
        Some(out)
    }

    /// Forgets what a compaction at `revision` took from the backend.
    fn forget_before(&self, revision: Revision) {
        let mut state = self.state.write();
        let State {
            memory, history, ..
        } = &mut *state;
        if let Some(memory) = memory.as_mut() {
            let revision = revision.min(memory.revision());
            history.forget_before(revision);
            memory.forget_before(revision);
        }
    }

    /// The revision applied.
    fn applied(&self) -> Revision {
        *self.applied.borrow()
    }

    /// A reader waits for `revision`: the feed asks the backend how far
    /// it is when the cache has not applied that yet.
    fn want(&self, revision: Revision) {
        self.wanted.fetch_max(revision.get(), Ordering::SeqCst);
        self.progress_wanted.notify_one();
    }

    /// The newest revision a reader waited for.
    fn wanted(&self) -> Revision {
        Revision(self.wanted.load(Ordering::SeqCst))
    }

    fn wake_all(&self) {
        self.appended.fetch_add(1, Ordering::SeqCst);
        self.sleepers.lock().wake_all();
    }
}
