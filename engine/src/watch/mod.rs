//! Watches: an ordered stream of the changes to a key range after a revision.
//!
//! A watch first replays retained history (read from the log in bounded
//! steps), then switches to the live feed under the hub's lock at exactly the
//! next unpublished revision: no gap, no duplicate. It ends with
//! [`Error::Compacted`] if its start revision (or a revision it still had to
//! read) is compacted, with [`Error::Lagged`] if it fell too far behind, and
//! with `None` when the engine closes.

pub(crate) mod hub;

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::mpsc;

use crate::codec::{OpKind, RECORD_PREFIX_LEN, u32_at, walk_body};
use crate::error::{Error, Result};
use crate::index::Loc;
use crate::record::{Event, EventKind, KeyRange};
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

#[expect(
    clippy::large_enum_variant,
    reason = "a transient return value, never stored"
)]
enum Step {
    Ready(Option<Result<Event>>),
    Receive,
}

/// A stream of events; see the module docs. Use [`Watch::next`] from async
/// code and [`Watch::blocking_next`] from plain threads.
pub struct Watch {
    shared: Arc<Shared>,
    range: KeyRange,
    /// Every event with a revision below this has been delivered or skipped.
    next_rev: u64,
    feed: Feed,
    pending: VecDeque<Event>,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch")
            .field("range", &self.range)
            .field("next_revision", &self.next_rev)
            .field("pending", &self.pending.len())
            .finish_non_exhaustive()
    }
}

impl Watch {
    pub(crate) fn new(shared: Arc<Shared>, range: KeyRange, after: Revision) -> Watch {
        Watch {
            shared,
            range,
            next_rev: after.get() + 1,
            feed: Feed::History,
            pending: VecDeque::new(),
        }
    }

    /// The revision of the newest event delivered or passed over.
    #[must_use]
    pub fn progress(&self) -> Revision {
        Revision(self.next_rev - 1)
    }

    /// The next event; `None` once the engine has closed.
    pub async fn next(&mut self) -> Option<Result<Event>> {
        loop {
            match self.step() {
                Step::Ready(item) => return item,
                Step::Receive => {
                    let Feed::Live { rx, .. } = &mut self.feed else {
                        unreachable!("receive only when live")
                    };
                    let batch = rx.recv().await;
                    self.take(batch);
                }
            }
        }
    }

    /// The next event, blocking the thread (not for use inside an async runtime).
    pub fn blocking_next(&mut self) -> Option<Result<Event>> {
        loop {
            match self.step() {
                Step::Ready(item) => return item,
                Step::Receive => {
                    let Feed::Live { rx, .. } = &mut self.feed else {
                        unreachable!("receive only when live")
                    };
                    let batch = rx.blocking_recv();
                    self.take(batch);
                }
            }
        }
    }

    /// The next event if one is ready without waiting.
    pub fn try_next(&mut self) -> Option<Result<Event>> {
        loop {
            match self.step() {
                Step::Ready(item) => return item,
                Step::Receive => {
                    let Feed::Live { rx, .. } = &mut self.feed else {
                        unreachable!("receive only when live")
                    };
                    match rx.try_recv() {
                        Ok(batch) => self.take(Some(batch)),
                        Err(mpsc::error::TryRecvError::Empty) => return None,
                        Err(mpsc::error::TryRecvError::Disconnected) => self.take(None),
                    }
                }
            }
        }
    }

    fn step(&mut self) -> Step {
        loop {
            if let Some(e) = self.pending.pop_front() {
                return Step::Ready(Some(Ok(e)));
            }
            match &mut self.feed {
                Feed::Ended(err) => return Step::Ready(err.take().map(Err)),
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
            Some(b) => {
                for e in &b.events {
                    if e.revision.get() >= self.next_rev && self.range.contains(&e.key) {
                        self.pending.push_back(e.clone());
                    }
                }
                if let Some(last) = b.events.last() {
                    self.next_rev = self.next_rev.max(last.revision.get() + 1);
                }
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

    /// Reads one bounded step of retained history into `pending`.
    fn read_history(&mut self) -> Result<()> {
        let to = self.shared.hub.published();
        let segments = self.shared.segments.read();
        let index = self.shared.index.read();
        let compacted = self.shared.compacted();
        if self.next_rev <= compacted {
            return Err(Error::Compacted {
                requested: Revision(self.next_rev - 1),
                compacted: Revision(compacted),
            });
        }
        let txns = index.revlog.between(
            self.next_rev,
            to,
            self.shared.options.watch_catchup_revisions,
        );
        for t in &txns {
            let seg = segments.get(&t.loc.segment()).ok_or_else(|| {
                Error::corrupt(
                    &self.shared.dir,
                    0,
                    format!("revision {} names a missing segment", t.rev),
                )
            })?;
            let bytes = seg.bytes();
            let start = t.loc.offset as usize;
            let body_len = u32_at(bytes, start).unwrap_or(0) as usize;
            let body = bytes
                .get(start + RECORD_PREFIX_LEN..start + RECORD_PREFIX_LEN + body_len)
                .ok_or_else(|| {
                    Error::corrupt(
                        &seg.path,
                        start as u64,
                        "revision log points past the segment",
                    )
                })?;
            let mut found = Vec::new();
            walk_body(body, true, |op| {
                if self.range.contains(op.key) {
                    let off = t.loc.offset
                        + u32::try_from(RECORD_PREFIX_LEN + op.segment_pos).unwrap_or(u32::MAX);
                    found.push((op.header.kind, off));
                }
            })
            .map_err(|r| Error::corrupt(&seg.path, start as u64, r))?;
            for (kind, off) in found {
                let Some(key) = seg.key_at(off) else { continue };
                let prev = index
                    .history(&key)
                    .and_then(|h| h.before(t.rev))
                    .and_then(|v| Shared::key_value(&segments, v.loc, v.rev));
                let (kind, kv) = match kind {
                    OpKind::Put => (
                        EventKind::Put,
                        Shared::key_value(&segments, Loc::put(seg.id, off), t.rev),
                    ),
                    OpKind::Delete => (EventKind::Delete, None),
                };
                self.pending.push_back(Event {
                    kind,
                    key,
                    revision: Revision(t.rev),
                    kv,
                    prev,
                });
            }
        }
        self.next_rev = match txns.last() {
            Some(t) => t.rev + 1,
            None => to + 1,
        }
        .max(self.next_rev);
        Ok(())
    }
}
