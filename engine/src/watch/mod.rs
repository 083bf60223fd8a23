//! Watches: an ordered stream of the changes to a key range after a revision.
//!
//! A watch first replays retained history (read from the log in bounded
//! steps), then switches to the live feed under the hub's lock at exactly the
//! next unpublished revision: no gap, no duplicate. It ends with
//! [`Error::Compacted`] if its start revision (or a revision it still had to
//! read) is compacted, with [`Error::Lagged`] if it fell too far behind, and
//! with `None` when the engine closes.

mod history;
pub(crate) mod hub;

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};

use tokio::sync::mpsc;

use crate::error::{Error, Result};
use crate::record::{Event, KeyRange};
use crate::revision::Revision;
use crate::shared::Shared;
use hub::{EventBatch, FeedStatus};

enum Feed {
    History,
    Live {
        rx: mpsc::Receiver<Arc<EventBatch>>,
        status: Arc<FeedStatus>,
    },
    Ended(Option<Error>),
}

/// A batch received but not fully handed out.
struct Queued {
    batch: Arc<EventBatch>,
    /// Events below this revision were already delivered from history.
    from_rev: u64,
    cursor: usize,
}

impl Queued {
    fn matches(&self, e: &Event, range: &KeyRange) -> bool {
        e.revision.get() >= self.from_rev && range.contains(&e.key)
    }

    /// Moves the cursor to the next event for this watch; `false` if none is left.
    fn seek(&mut self, range: &KeyRange) -> bool {
        while let Some(e) = self.batch.events.get(self.cursor) {
            if self.matches(e, range) {
                return true;
            }
            self.cursor += 1;
        }
        false
    }
}

/// The events of one commit batch (or one step of history) for a watch, in
/// revision order, shared with every other watcher of that batch: handing a
/// batch to a thousand watchers copies nothing.
pub struct Events {
    queued: Queued,
    range: Arc<KeyRange>,
}

impl Events {
    /// The events, in revision order.
    pub fn iter(&self) -> impl Iterator<Item = &Event> {
        self.queued.batch.events[self.queued.cursor..]
            .iter()
            .filter(|e| self.queued.matches(e, &self.range))
    }
}

impl Events {
    /// The events with their positions in the whole batch (see [`Events::all`]).
    pub fn iter_indexed(&self) -> impl Iterator<Item = (usize, &Event)> {
        let start = self.queued.cursor;
        self.queued.batch.events[start..]
            .iter()
            .enumerate()
            .filter(|(_, e)| self.queued.matches(e, &self.range))
            .map(move |(i, e)| (start + i, e))
    }

    /// When the writer published the batch.
    #[must_use]
    pub fn built(&self) -> std::time::Instant {
        self.queued.batch.built
    }

    /// Every event of the batch, including those outside this watch.
    #[must_use]
    pub fn all(&self) -> &[Event] {
        &self.queued.batch.events
    }

    /// Whether this watch receives every event of the batch.
    #[must_use]
    pub fn is_whole(&self) -> bool {
        self.iter().count() == self.all().len()
    }

    /// A value derived from the whole batch by `init`, computed by the first
    /// watcher that asks and shared with every other watcher of the same
    /// commit batch. `None` if another type was stored first.
    pub fn memo<T: std::any::Any + Send + Sync>(
        &self,
        init: impl FnOnce(&[Event]) -> T,
    ) -> Option<&T> {
        self.queued
            .batch
            .memo
            .get_or_init(|| Box::new(init(&self.queued.batch.events)))
            .downcast_ref::<T>()
    }
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Whether a watch has something to hand out.
enum Fill {
    Ready,
    Ended(Option<Error>),
    /// Only from the non-blocking variants: nothing yet.
    Empty,
}

enum Step {
    Ready,
    Ended(Option<Error>),
    Receive,
}

/// A stream of events; see the module docs. From async code use
/// [`Watch::next`] / [`Watch::next_batch`] (or [`Watch::poll_next_batch`]
/// from a hand-written future or stream); from plain threads the `blocking_`
/// variants; `try_` variants never wait. The batch forms hand out a whole
/// commit batch without copying an event.
pub struct Watch {
    shared: Arc<Shared>,
    range: Arc<KeyRange>,
    /// Every event with a revision below this has been queued or skipped.
    next_rev: u64,
    feed: Feed,
    queue: VecDeque<Queued>,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch")
            .field("range", &self.range)
            .field("next_revision", &self.next_rev)
            .field("queued_batches", &self.queue.len())
            .finish_non_exhaustive()
    }
}

/// Drives a watch until an event is queued or it ends: `$recv` receives
/// from the live feed `$rx` (awaiting, blocking or not waiting at all; `None`
/// means "nothing yet").
macro_rules! fill_with {
    ($self:ident, $rx:ident => $recv:expr) => {
        loop {
            match $self.step() {
                Step::Ready => break Fill::Ready,
                Step::Ended(e) => break Fill::Ended(e),
                Step::Receive => {
                    let Feed::Live { rx: $rx, .. } = &mut $self.feed else {
                        unreachable!("receive only when live")
                    };
                    match $recv {
                        Some(batch) => $self.take(batch),
                        None => break Fill::Empty,
                    }
                }
            }
        }
    };
}

impl Watch {
    pub(crate) fn new(shared: Arc<Shared>, range: KeyRange, after: Revision) -> Watch {
        Watch {
            shared,
            range: Arc::new(range),
            next_rev: after.get() + 1,
            feed: Feed::History,
            queue: VecDeque::new(),
        }
    }

    /// The revision of the newest event queued or passed over.
    #[must_use]
    pub fn progress(&self) -> Revision {
        Revision(self.next_rev - 1)
    }

    /// Brings [`Watch::progress`] up to the newest revision published to
    /// watchers, queueing whatever batches of this watch's range were sent
    /// up to it (hand them out with the `try_` variants). A watch only hears
    /// of commits that touch its range, so without this its progress stays
    /// at its own last event however far other keys move; a reader that
    /// keeps state from a watch uses it to know that state is current
    /// through a revision (etcd's progress request). No effect before the
    /// watch has caught up with history or after it ended.
    pub fn sync_progress(&mut self) -> Revision {
        // Every batch through `published` that touches this range was sent
        // under the hub's lock before `published` could be read here.
        let published = self.shared.hub.published();
        loop {
            let Feed::Live { rx, .. } = &mut self.feed else {
                return self.progress();
            };
            match Self::try_recv(rx) {
                Some(batch @ Some(_)) => self.take(batch),
                Some(None) => {
                    self.take(None);
                    return self.progress();
                }
                None => break,
            }
        }
        self.next_rev = self.next_rev.max(published + 1);
        self.progress()
    }

    /// The next event; `None` once the engine has closed.
    pub async fn next(&mut self) -> Option<Result<Event>> {
        let fill = fill_with!(self, rx => Some(rx.recv().await));
        self.pop_event(fill)
    }

    /// The next batch of events; `None` once the engine has closed.
    pub async fn next_batch(&mut self) -> Option<Result<Events>> {
        let fill = fill_with!(self, rx => Some(rx.recv().await));
        self.pop_batch(fill)
    }

    /// [`Watch::next_batch`] as a poll: `Pending` registers `cx` for the next
    /// commit batch. Lets a wrapper drive the watch without boxing a future
    /// per batch.
    pub fn poll_next_batch(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Events>>> {
        let fill = fill_with!(self, rx => match rx.poll_recv(cx) {
            Poll::Ready(batch) => Some(batch),
            Poll::Pending => return Poll::Pending,
        });
        Poll::Ready(self.pop_batch(fill))
    }

    /// The next event, blocking the thread (not for use inside an async runtime).
    pub fn blocking_next(&mut self) -> Option<Result<Event>> {
        let fill = fill_with!(self, rx => Some(rx.blocking_recv()));
        self.pop_event(fill)
    }

    /// The next batch, blocking the thread (not for use inside an async runtime).
    pub fn blocking_next_batch(&mut self) -> Option<Result<Events>> {
        let fill = fill_with!(self, rx => Some(rx.blocking_recv()));
        self.pop_batch(fill)
    }

    /// The next event if one is ready without waiting.
    pub fn try_next(&mut self) -> Option<Result<Event>> {
        let fill = fill_with!(self, rx => Self::try_recv(rx));
        self.pop_event(fill)
    }

    /// The next batch if one is ready without waiting.
    pub fn try_next_batch(&mut self) -> Option<Result<Events>> {
        let fill = fill_with!(self, rx => Self::try_recv(rx));
        self.pop_batch(fill)
    }

    fn try_recv(rx: &mut mpsc::Receiver<Arc<EventBatch>>) -> Option<Option<Arc<EventBatch>>> {
        match rx.try_recv() {
            Ok(batch) => Some(Some(batch)),
            Err(mpsc::error::TryRecvError::Empty) => None,
            Err(mpsc::error::TryRecvError::Disconnected) => Some(None),
        }
    }

    fn pop_event(&mut self, fill: Fill) -> Option<Result<Event>> {
        match fill {
            Fill::Ready => {
                let q = self.queue.front_mut().expect("ready means queued");
                let e = q.batch.events[q.cursor].clone();
                q.cursor += 1;
                Some(Ok(e))
            }
            Fill::Ended(e) => e.map(Err),
            Fill::Empty => None,
        }
    }

    fn pop_batch(&mut self, fill: Fill) -> Option<Result<Events>> {
        match fill {
            Fill::Ready => {
                let queued = self.queue.pop_front().expect("ready means queued");
                Some(Ok(Events {
                    queued,
                    range: Arc::clone(&self.range),
                }))
            }
            Fill::Ended(e) => e.map(Err),
            Fill::Empty => None,
        }
    }

    fn step(&mut self) -> Step {
        loop {
            while let Some(q) = self.queue.front_mut() {
                if q.seek(&self.range) {
                    return Step::Ready;
                }
                self.queue.pop_front();
            }
            match &mut self.feed {
                Feed::Ended(err) => return Step::Ended(err.take()),
                Feed::Live { .. } => return Step::Receive,
                Feed::History => {
                    if self.shared.closed.load(Ordering::Acquire) {
                        self.feed = Feed::Ended(None);
                        continue;
                    }
                    let buffer = self.shared.options.watch_buffer_batches;
                    if let Some((rx, status)) =
                        self.shared.hub.go_live(self.next_rev, &self.range, buffer)
                    {
                        self.feed = Feed::Live { rx, status };
                        continue;
                    }
                    if let Err(e) = self.read_history() {
                        self.feed = Feed::Ended(Some(e));
                    }
                }
            }
        }
    }

    fn take(&mut self, batch: Option<Arc<EventBatch>>) {
        match batch {
            Some(batch) => {
                // Only live batches are taken here (history is queued as
                // it is read): the wait is the watcher's lag behind commits.
                self.shared
                    .timings
                    .watch_lag
                    .record_duration(batch.built.elapsed());
                let from_rev = self.next_rev;
                if let Some(last) = batch.events.last() {
                    self.next_rev = self.next_rev.max(last.revision.get() + 1);
                }
                self.queue.push_back(Queued {
                    batch,
                    from_rev,
                    cursor: 0,
                });
            }
            None => {
                let lagged = matches!(&self.feed, Feed::Live { status, .. } if status.lagged.load(Ordering::Acquire));
                let err = lagged.then_some(Error::Lagged {
                    buffered: self.shared.options.watch_buffer_batches,
                });
                self.feed = Feed::Ended(err);
            }
        }
    }
}
