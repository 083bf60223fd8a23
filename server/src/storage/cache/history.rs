//! The batches the cache has seen since its window's start, numbered in
//! order, for watchers to read at their own pace: a batch is kept once
//! however many watchers read it (and so is whatever they derive from it,
//! through its memo). The oldest go when the window is older than its age
//! or holds more events than its bound.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::storage::{Batch, Revision};

/// One kept batch.
pub struct Kept {
    pub batch: Arc<Batch>,
    /// Its newest event's revision.
    pub last: Revision,
    /// When it arrived.
    arrived: Instant,
}

/// See the module docs.
pub struct History {
    batches: VecDeque<Kept>,
    /// The number of `batches.front()`.
    first: u64,
    events: usize,
    /// A watch after this revision finds every batch it needs here.
    start: Revision,
}

impl History {
    /// An empty history of a read at `start`.
    #[must_use]
    pub fn new(start: Revision) -> History {
        History {
            batches: VecDeque::new(),
            first: 0,
            events: 0,
            start,
        }
    }

    /// The number the next batch will get.
    #[must_use]
    pub fn end(&self) -> u64 {
        self.first + self.batches.len() as u64
    }

    /// Keeps `batch` (events in revision order, newer than every kept one).
    pub fn push(&mut self, batch: Arc<Batch>) {
        let Some(last) = batch.events().last().map(|e| e.revision) else {
            return;
        };
        self.events += batch.events().len();
        self.batches.push_back(Kept {
            batch,
            last,
            arrived: Instant::now(),
        });
    }

    /// Batch number `n`: `Err(())` when it is gone (its reader fell behind
    /// the window), `Ok(None)` when it has not arrived.
    pub fn get(&self, n: u64) -> Result<Option<&Kept>, ()> {
        if n < self.first {
            return Err(());
        }
        Ok(usize::try_from(n - self.first)
            .ok()
            .and_then(|i| self.batches.get(i)))
    }

    /// The number of the first batch with events after `after`, when the
    /// history reaches back that far.
    #[must_use]
    pub fn first_after(&self, after: Revision) -> Option<u64> {
        if after < self.start {
            return None;
        }
        let skipped = self.batches.partition_point(|k| k.last <= after);
        Some(self.first + skipped as u64)
    }

    /// Drops batches older than `max_age`, then the oldest until at most
    /// `max_events` remain; the new start, when it moved.
    pub fn trim(&mut self, max_age: Duration, max_events: usize) -> Option<Revision> {
        let before = self.start;
        while let Some(front) = self.batches.front() {
            if front.arrived.elapsed() <= max_age && self.events <= max_events {
                break;
            }
            self.drop_front();
        }
        (self.start != before).then_some(self.start)
    }

    /// Watches start after `revision` or later from now on (the batches
    /// before it are kept for the watchers already reading them).
    pub fn restart_at(&mut self, revision: Revision) {
        self.start = self.start.max(revision);
    }

    /// Drops the batches at or before `revision` (a compaction there).
    pub fn forget_before(&mut self, revision: Revision) {
        while self.batches.front().is_some_and(|k| k.last <= revision) {
            self.drop_front();
        }
        self.start = self.start.max(revision);
    }

    fn drop_front(&mut self) {
        if let Some(old) = self.batches.pop_front() {
            self.events -= old.batch.events().len();
            self.first += 1;
            self.start = self.start.max(old.last);
        }
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::*;
    use crate::storage::{Event, EventKind};

    fn batch(revisions: &[u64]) -> Arc<Batch> {
        Arc::new(Batch::new(
            revisions
                .iter()
                .map(|&r| Event {
                    kind: EventKind::Delete,
                    key: Bytes::from_static(b"/k"),
                    revision: Revision(r),
                    kv: None,
                    prev: None,
                })
                .collect(),
        ))
    }

    #[test]
    fn batches_are_found_by_revision_and_numbered_past_their_removal() {
        let mut history = History::new(Revision(10));
        history.push(batch(&[11, 12]));
        history.push(batch(&[14]));
        history.push(batch(&[]));
        assert_eq!(history.end(), 2, "an empty batch is not kept");
        assert_eq!(history.first_after(Revision(9)), None);
        assert_eq!(history.first_after(Revision(10)), Some(0));
        assert_eq!(history.first_after(Revision(12)), Some(1));
        assert_eq!(history.first_after(Revision(20)), Some(2));
        assert_eq!(history.get(1).unwrap().map(|k| k.last), Some(Revision(14)));
        assert!(history.get(2).unwrap().is_none());

        assert_eq!(
            history.trim(Duration::from_secs(300), 1),
            Some(Revision(12))
        );
        assert!(
            history.get(0).is_err(),
            "a reader of a dropped batch lagged"
        );
        assert_eq!(history.first_after(Revision(11)), None);
        assert_eq!(history.first_after(Revision(12)), Some(1));
        assert_eq!(history.trim(Duration::from_secs(300), 1), None);
        assert_eq!(history.trim(Duration::ZERO, 100), Some(Revision(14)));
        assert_eq!(history.end(), 2);
    }

    #[test]
    fn a_compaction_drops_what_it_covers() {
        let mut history = History::new(Revision(10));
        history.push(batch(&[11]));
        history.push(batch(&[13]));
        history.forget_before(Revision(12));
        assert_eq!(history.start, Revision(12));
        assert_eq!(history.first_after(Revision(12)), Some(1));
        assert_eq!(history.first_after(Revision(11)), None);
    }
}
