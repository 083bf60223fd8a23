//! The cache's watchers waiting for a batch, each with its range: a batch
//! wakes only those it has a key for, and tells each the batch's number,
//! so a watcher skips the batches it slept through (none had its keys)
//! instead of looking at each.

use std::collections::HashMap;
use std::sync::Arc;
use std::task::Waker;

use crate::storage::{Batch, KeyRange};

/// See the module docs.
#[derive(Default)]
pub struct Sleepers {
    next_id: u64,
    /// Each watcher's range (`None`: every key) and waker.
    sleeping: HashMap<u64, (Option<Arc<KeyRange>>, Waker)>,
    /// The number of the batch that woke each woken watcher.
    woken: HashMap<u64, u64>,
    /// The number after the last batch checked against the sleepers.
    checked: u64,
}

impl Sleepers {
    /// A number for a new watcher.
    pub fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Watcher `id` waits for a key of `range`.
    pub fn sleep(&mut self, id: u64, range: Option<Arc<KeyRange>>, waker: &Waker) {
        match self.sleeping.get_mut(&id) {
            Some((_, known)) if known.will_wake(waker) => {}
            _ => {
                self.sleeping.insert(id, (range, waker.clone()));
            }
        }
    }

    /// Watcher `id` is gone.
    pub fn remove(&mut self, id: u64) {
        self.sleeping.remove(&id);
        self.woken.remove(&id);
    }

    /// Where watcher `id` may resume: the batch that woke it (told once),
    /// or, while it still sleeps, past every batch checked since it fell
    /// asleep; every batch it skips lacked its keys.
    pub fn passed(&mut self, id: u64) -> Option<u64> {
        match self.woken.remove(&id) {
            Some(n) => Some(n),
            None => self.sleeping.contains_key(&id).then_some(self.checked),
        }
    }

    /// Wakes the watchers batch number `n` has a key for.
    pub fn wake_for(&mut self, batch: &Batch, n: u64) {
        self.checked = n + 1;
        let woken = &mut self.woken;
        self.sleeping.retain(|id, (range, waker)| {
            let wanted = range
                .as_ref()
                .is_none_or(|r| batch.events().iter().any(|e| r.contains(&e.key)));
            if wanted {
                woken.insert(*id, n);
                waker.wake_by_ref();
            }
            !wanted
        });
    }

    /// Wakes every watcher (to look at every batch).
    pub fn wake_all(&mut self) {
        self.woken.clear();
        for (_, (_, waker)) in self.sleeping.drain() {
            waker.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;

    use bytes::Bytes;

    use super::*;
    use crate::storage::{Event, EventKind, Revision};

    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_batch_wakes_only_the_watchers_of_its_keys() {
        let (a, b, all) = (
            Arc::new(Count(AtomicUsize::new(0))),
            Arc::new(Count(AtomicUsize::new(0))),
            Arc::new(Count(AtomicUsize::new(0))),
        );
        let mut sleepers = Sleepers::default();
        let ids: Vec<u64> = (0..3).map(|_| sleepers.id()).collect();
        let range = |p: &[u8]| Some(Arc::new(KeyRange::prefix(p)));
        sleepers.sleep(ids[0], range(b"/a/"), &Waker::from(Arc::clone(&a)));
        sleepers.sleep(ids[1], range(b"/b/"), &Waker::from(Arc::clone(&b)));
        sleepers.sleep(ids[2], None, &Waker::from(Arc::clone(&all)));
        let batch = Batch::new(vec![Event {
            kind: EventKind::Delete,
            key: Bytes::from_static(b"/a/x"),
            revision: Revision(3),
            kv: None,
            prev: None,
        }]);
        sleepers.wake_for(&batch, 7);
        sleepers.wake_for(&batch, 8);
        let woken = |c: &Arc<Count>| c.0.load(Ordering::SeqCst);
        assert_eq!((woken(&a), woken(&b), woken(&all)), (1, 0, 1));
        assert_eq!(
            sleepers.passed(ids[0]),
            Some(7),
            "the first batch of its keys"
        );
        assert_eq!(sleepers.passed(ids[0]), None, "told once");
        assert_eq!(
            sleepers.passed(ids[1]),
            Some(9),
            "still asleep: past every batch"
        );
        sleepers.remove(ids[1]);
        sleepers.wake_all();
        assert_eq!(woken(&b), 0, "a removed watcher is not woken");
    }
}
