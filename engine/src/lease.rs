//! Keys with an expiry: the reaper deletes each one at a new revision once its
//! time has passed, through the ordinary commit path (so watchers see a
//! delete), guarded so a key rewritten meanwhile is left alone.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use parking_lot::{Condvar, Mutex};
use tokio::sync::oneshot;

use crate::commit::Pending;
use crate::record::micros_since_epoch;
use crate::revision::Revision;
use crate::shared::Shared;
use crate::txn::{Guard, Txn};

/// Expiring keys ordered by time: (expires_at_micros, key, revision written).
#[derive(Default)]
pub(crate) struct ExpiryQueue {
    due: Mutex<BTreeSet<(u64, Vec<u8>, u64)>>,
    changed: Condvar,
}

impl ExpiryQueue {
    pub(crate) fn push(&self, expires_at: u64, key: Vec<u8>, rev: u64) {
        let mut due = self.due.lock();
        let earliest = due.first().is_none_or(|f| expires_at < f.0);
        due.insert((expires_at, key, rev));
        if earliest {
            self.changed.notify_all();
        }
    }

    /// Adds the expiring keys recovery found (sorted by time), built in
    /// one pass rather than key by key.
    pub(crate) fn load(&self, sorted: Vec<(u64, Vec<u8>, u64)>) {
        let mut due = self.due.lock();
        let mut loaded: BTreeSet<_> = sorted.into_iter().collect();
        loaded.append(&mut due);
        *due = loaded;
        self.changed.notify_all();
    }

    pub(crate) fn wake(&self) {
        let _d = self.due.lock();
        self.changed.notify_all();
    }

    pub(crate) fn len(&self) -> usize {
        self.due.lock().len()
    }
}

/// The reaper thread's loop.
pub(crate) fn run_reaper(shared: &Arc<Shared>) {
    loop {
        let expired = {
            let mut due = shared.expiry.due.lock();
            loop {
                if shared.closed.load(Ordering::Acquire) {
                    return;
                }
                let now = micros_since_epoch(SystemTime::now());
                let mut expired = Vec::new();
                while due.first().is_some_and(|f| f.0 <= now) {
                    expired.extend(due.pop_first());
                }
                if !expired.is_empty() {
                    break expired;
                }
                let wait = due.first().map_or(shared.options.expiry_poll, |f| {
                    Duration::from_micros(f.0 - now).min(shared.options.expiry_poll)
                });
                shared.expiry.changed.wait_for(&mut due, wait);
            }
        };
        for (_, key, rev) in expired {
            let still_current = shared
                .index
                .read()
                .history(&key)
                .is_some_and(|h| h.latest().rev == rev && !h.latest().loc.is_tombstone());
            if still_current {
                let (reply, _ignored) = oneshot::channel();
                let txn = Txn::new()
                    .guard(Guard::ModRevision(key.clone(), Revision(rev)))
                    .delete(key);
                shared.queue.push(Pending { txn, reply });
            }
        }
    }
}
