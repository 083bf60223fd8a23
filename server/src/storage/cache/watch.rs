//! A watch served by the cache: it reads the kept batches from its start
//! at its own pace, each batch shared with every other watcher (so are the
//! encodings derived from it), and sleeps until a batch with a key of its
//! range arrives. A watcher the window leaves behind ends `Lagged`, and
//! re-lists.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};

use super::Shared;

/// Batches a watcher may leave unread past where it was before it stops
/// reading is ended `Lagged` (the etcd backend's bound): a client that
/// stalls re-lists instead of holding the window.
const MAX_BEHIND: u64 = 1024;
use crate::storage::{Events, KeyRange, Revision, StorageError, WatchStream};

/// See the module docs.
pub struct CacheWatch {
    shared: Arc<Shared>,
    /// `None` when the range holds every cached key.
    range: Option<Arc<KeyRange>>,
    /// The number of the next batch to read.
    next: u64,
    /// Events at or before it are not this watch's.
    after: Revision,
    /// The history's end when the watch began: the catch-up before it is
    /// not lag.
    began: u64,
    progress: Revision,
    /// Its place among the sleeping watchers.
    id: u64,
    ended: bool,
}

impl CacheWatch {
    pub(super) fn new(
        shared: Arc<Shared>,
        range: Option<Arc<KeyRange>>,
        next: u64,
        after: Revision,
        began: u64,
    ) -> CacheWatch {
        let id = shared.sleepers.lock().id();
        CacheWatch {
            shared,
            range,
            next,
            after,
            began,
            progress: after,
            id,
            ended: false,
        }
    }

    /// The next batch with events of this watch, if one is kept.
    fn take(&mut self) -> Option<Result<Events, StorageError>> {
        if self.ended {
            return None;
        }
        if let Some(n) = self.shared.sleepers.lock().passed(self.id) {
            self.next = self.next.max(n);
        }
        let state = self.shared.state.read();
        if state
            .history
            .end()
            .saturating_sub(self.next.max(self.began))
            > MAX_BEHIND
        {
            self.ended = true;
            return Some(Err(StorageError::Lagged));
        }
        loop {
            let kept = match state.history.get(self.next) {
                Ok(Some(kept)) => kept,
                Ok(None) => {
                    let applied = state
                        .memory
                        .as_ref()
                        .map_or(self.progress, |m| m.revision());
                    self.progress = self.progress.max(applied);
                    return None;
                }
                Err(()) => {
                    self.ended = true;
                    return Some(Err(StorageError::Lagged));
                }
            };
            self.next += 1;
            let events = kept.batch.events();
            let start = events.partition_point(|e| e.revision <= self.after);
            let mine = Events::new(Arc::clone(&kept.batch), start, self.range.clone());
            self.progress = self.progress.max(kept.last);
            if mine.iter().next().is_some() {
                return Some(Ok(mine));
            }
        }
    }
}

impl Drop for CacheWatch {
    fn drop(&mut self) {
        self.shared.sleepers.lock().remove(self.id);
    }
}

impl WatchStream for CacheWatch {
    fn poll_next_batch(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Events, StorageError>>> {
        loop {
            let seen = self.shared.appended.load(Ordering::SeqCst);
            if let Some(got) = self.take() {
                return Poll::Ready(Some(got));
            }
            if self.ended || self.shared.state.read().closed {
                return Poll::Ready(None);
            }
            self.shared
                .sleepers
                .lock()
                .sleep(self.id, self.range.clone(), cx.waker());
            // A batch that arrived since `take` looked woke nobody: look again.
            if self.shared.appended.load(Ordering::SeqCst) == seen {
                return Poll::Pending;
            }
        }
    }

    fn try_next_batch(&mut self) -> Option<Result<Events, StorageError>> {
        self.take()
    }

    fn progress(&self) -> Revision {
        self.progress
    }
}
