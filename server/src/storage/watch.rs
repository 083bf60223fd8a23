//! Watches: the changes to a key range after a revision, delivered as
//! commit batches in revision order with each key's previous record.
//!
//! A backend delivers a [`Batch`] per commit batch and shares it between
//! every watcher it reaches; each watcher gets an [`Events`] view of its
//! share. Whatever a consumer derives from a whole batch (an encoding, a
//! transformed copy) is computed once through [`Events::memo`] and shared.

use std::any::Any;
use std::future::poll_fn;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::Bytes;

use crate::storage::error::StorageError;
use crate::storage::types::{KeyRange, KeyValue, Revision};

/// What happened to a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// Created or updated.
    Put,
    /// Deleted (explicitly or because its lease expired).
    Delete,
}

/// One change, as etcd's watch reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub kind: EventKind,
    pub key: Bytes,
    /// The revision of the change.
    pub revision: Revision,
    /// The new record (`None` for deletes).
    pub kv: Option<KeyValue>,
    /// The record before the change (`None` when the key did not exist, or
    /// its previous version was compacted away).
    pub prev: Option<KeyValue>,
}

/// The events of one commit batch in revision order, shared by every
/// watcher the batch reaches.
pub struct Batch {
    events: Vec<Event>,
    /// When the backend published it (what a watcher taking it waited since).
    published: Instant,
    /// One value derived from the batch by its consumer. Layers each use the
    /// memo of the batch they receive, so a layer that derives a new batch
    /// keeps it here and hands the new batch's memo on.
    memo: OnceLock<Box<dyn Any + Send + Sync>>,
}

impl Batch {
    #[must_use]
    pub fn new(events: Vec<Event>) -> Batch {
        Batch {
            events,
            published: Instant::now(),
            memo: OnceLock::new(),
        }
    }

    /// The batch as published at `at` (before it was built here).
    #[must_use]
    pub fn published_at(mut self, at: Instant) -> Batch {
        self.published = at;
        self
    }

    /// Every event of the batch.
    #[must_use]
    pub fn events(&self) -> &[Event] {
        &self.events
    }
}

/// One watcher's share of a batch: the events from `start` on that lie in
/// its range (backends filter by revision before `start`).
#[derive(Clone)]
pub struct Events {
    batch: Arc<Batch>,
    start: usize,
    /// `None` when every event from `start` on is this watcher's.
    range: Option<Arc<KeyRange>>,
}

impl Events {
    /// A view of `batch` from event `start`, limited to `range`.
    #[must_use]
    pub fn new(batch: Arc<Batch>, start: usize, range: Option<Arc<KeyRange>>) -> Events {
        Events {
            batch,
            start,
            range,
        }
    }

    /// The same share of another batch with the same events (a transformed
    /// copy of this one).
    #[must_use]
    pub fn with_batch(&self, batch: Arc<Batch>) -> Events {
        debug_assert_eq!(batch.events.len(), self.batch.events.len());
        Events {
            batch,
            start: self.start,
            range: self.range.clone(),
        }
    }

    fn includes(&self, e: &Event) -> bool {
        self.range.as_ref().is_none_or(|r| r.contains(&e.key))
    }

    /// This watcher's events, in revision order.
    pub fn iter(&self) -> impl Iterator<Item = &Event> {
        self.batch.events[self.start..]
            .iter()
            .filter(|e| self.includes(e))
    }

    /// This watcher's events with their positions in the whole batch.
    pub fn iter_indexed(&self) -> impl Iterator<Item = (usize, &Event)> {
        let start = self.start;
        self.batch.events[start..]
            .iter()
            .enumerate()
            .filter(|(_, e)| self.includes(e))
            .map(move |(i, e)| (start + i, e))
    }

    /// When the backend published the batch.
    #[must_use]
    pub fn published(&self) -> Instant {
        self.batch.published
    }

    /// Every event of the batch, including other watchers'.
    #[must_use]
    pub fn all(&self) -> &[Event] {
        &self.batch.events
    }

    /// Whether this watcher receives every event of the batch.
    #[must_use]
    pub fn is_whole(&self) -> bool {
        self.start == 0 && self.iter().count() == self.batch.events.len()
    }

    /// The revision of this watcher's last event.
    #[must_use]
    pub fn last_revision(&self) -> Option<Revision> {
        self.iter().last().map(|e| e.revision)
    }

    /// A value derived from the whole batch by `init`, computed by the first
    /// watcher that asks and shared with every other watcher of the batch.
    /// `None` if a value of another type was stored first.
    pub fn memo<T: Any + Send + Sync>(&self, init: impl FnOnce(&[Event]) -> T) -> Option<&T> {
        self.batch
            .memo
            .get_or_init(|| Box::new(init(&self.batch.events)))
            .downcast_ref::<T>()
    }
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// What a backend implements to deliver a watch. Dropping it cancels the
/// watch.
pub trait WatchStream: Send {
    /// The next batch; `Pending` registers `cx`. `None` once the backend has
    /// closed; an error (`Compacted`, `Lagged`, ...) ends the watch.
    fn poll_next_batch(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Events, StorageError>>>;

    /// The next batch if one is ready without waiting.
    fn try_next_batch(&mut self) -> Option<Result<Events, StorageError>>;

    /// The revision of the newest event delivered or passed over.
    fn progress(&self) -> Revision;

    /// Brings `progress` up to a revision at least as new as every write
    /// the backend has acknowledged, without waiting: every batch of the
    /// watch's range up to the returned revision has been delivered or is
    /// ready (`try_next_batch`). `None` when the backend cannot vouch for
    /// that (progress then moves only with the watch's own events).
    fn sync_progress(&mut self) -> Option<Revision> {
        None
    }

    /// Asks the backend to bring `progress` up to its current revision
    /// soon, even when nothing in the watch's range changed (etcd's
    /// progress request); the new progress shows after the next poll.
    /// Backends that can vouch at once do it here (`sync_progress`).
    fn request_progress(&mut self) {
        let _ = self.sync_progress();
    }
}

/// A watch; see the module docs.
pub struct Watch {
    stream: Box<dyn WatchStream>,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch")
            .field("progress", &self.progress())
            .finish_non_exhaustive()
    }
}

impl Watch {
    #[must_use]
    pub fn new(stream: impl WatchStream + 'static) -> Watch {
        Watch {
            stream: Box::new(stream),
        }
    }

    /// A watch that could not start: it yields `error` and ends.
    #[must_use]
    pub fn failed(error: StorageError, after: Revision) -> Watch {
        Watch::new(Failed {
            error: Some(error),
            after,
        })
    }

    /// The next batch; `None` once the backend has closed. Cancel-safe.
    pub async fn next_batch(&mut self) -> Option<Result<Events, StorageError>> {
        poll_fn(|cx| self.stream.poll_next_batch(cx)).await
    }

    /// See [`WatchStream::poll_next_batch`].
    pub fn poll_next_batch(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Events, StorageError>>> {
        self.stream.poll_next_batch(cx)
    }

    /// The next batch if one is ready without waiting.
    pub fn try_next_batch(&mut self) -> Option<Result<Events, StorageError>> {
        self.stream.try_next_batch()
    }

    /// The revision of the newest event delivered or passed over.
    #[must_use]
    pub fn progress(&self) -> Revision {
        self.stream.progress()
    }

    /// See [`WatchStream::sync_progress`].
    pub fn sync_progress(&mut self) -> Option<Revision> {
        self.stream.sync_progress()
    }

    /// See [`WatchStream::request_progress`].
    pub fn request_progress(&mut self) {
        self.stream.request_progress();
    }
}

/// A watch that failed to start.
struct Failed {
    error: Option<StorageError>,
    after: Revision,
}

impl WatchStream for Failed {
    fn poll_next_batch(
        &mut self,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Events, StorageError>>> {
        Poll::Ready(self.try_next_batch())
    }

    fn try_next_batch(&mut self) -> Option<Result<Events, StorageError>> {
        self.error.take().map(Err)
    }

    fn progress(&self) -> Revision {
        self.after
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(key: &'static [u8], rev: u64) -> Event {
        Event {
            kind: EventKind::Put,
            key: Bytes::from_static(key),
            revision: Revision(rev),
            kv: None,
            prev: None,
        }
    }

    #[test]
    fn a_share_sees_its_range_from_its_start_and_memos_are_shared() {
        let batch = Arc::new(Batch::new(vec![
            put(b"/a/1", 4),
            put(b"/b/1", 5),
            put(b"/a/2", 5),
        ]));
        let range = Arc::new(KeyRange::prefix(b"/a/"));
        let mine = Events::new(Arc::clone(&batch), 1, Some(range));
        let keys: Vec<(usize, &[u8])> = mine.iter_indexed().map(|(i, e)| (i, &e.key[..])).collect();
        assert_eq!(keys, vec![(2, &b"/a/2"[..])]);
        assert!(!mine.is_whole());
        assert_eq!(mine.last_revision(), Some(Revision(5)));
        let whole = Events::new(Arc::clone(&batch), 0, None);
        assert!(whole.is_whole());
        assert_eq!(whole.memo(|all| all.len()), Some(&3));
        assert_eq!(mine.memo(|_| 0usize), Some(&3), "computed once per batch");
        assert_eq!(mine.memo(|_| "another type"), None);
    }

    #[tokio::test]
    async fn a_failed_watch_yields_its_error_then_ends() {
        let mut w = Watch::failed(StorageError::Lagged, Revision(7));
        assert!(matches!(
            w.next_batch().await,
            Some(Err(StorageError::Lagged))
        ));
        assert!(w.next_batch().await.is_none());
        assert_eq!(w.progress(), Revision(7));
    }
}
