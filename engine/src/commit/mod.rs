//! The commit path: callers queue transactions; one writer thread drains the
//! queue in batches, writes every record of a batch, syncs once (group commit),
//! then publishes to the index and watchers and answers every caller.

mod plan;
mod publish;
pub(crate) mod writer;

use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::{Condvar, Mutex};
use tokio::sync::oneshot;

use crate::error::Result;
use crate::txn::{Committed, Txn};

/// A queued transaction and where its answer goes.
pub(crate) struct Pending {
    pub txn: Txn,
    pub reply: oneshot::Sender<Result<Committed>>,
}

/// Transactions waiting for the writer.
#[derive(Default)]
pub(crate) struct Queue {
    pending: Mutex<Vec<Pending>>,
    ready: Condvar,
}

impl Queue {
    pub(crate) fn push(&self, p: Pending) {
        self.pending.lock().push(p);
        self.ready.notify_one();
    }

    /// Everything queued, waiting for at least one; `None` once `closed` is set
    /// and the queue is drained.
    pub(crate) fn take(&self, closed: &AtomicBool) -> Option<Vec<Pending>> {
        let mut q = self.pending.lock();
        loop {
            if !q.is_empty() {
                return Some(std::mem::take(&mut *q));
            }
            if closed.load(Ordering::Acquire) {
                return None;
            }
            self.ready.wait(&mut q);
        }
    }

    /// Wakes the writer (used at shutdown).
    pub(crate) fn wake(&self) {
        let _q = self.pending.lock();
        self.ready.notify_all();
    }
}
