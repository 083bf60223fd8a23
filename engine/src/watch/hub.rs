//! Fan-out of committed batches to live watchers.
//!
//! The writer builds one `EventBatch` per group commit and hands the same
//! `Arc` to every watcher whose range it touches: a commit costs one channel
//! send per watcher, not one per event per watcher. Sends never block: a
//! watcher whose buffer is full is dropped and marked lagged.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use parking_lot::Mutex;
use tokio::sync::mpsc;

use crate::record::{Event, KeyRange};

/// The events of one group commit, in revision order.
pub(crate) struct EventBatch {
    pub events: Vec<Event>,
    /// When the batch was built: what a watcher taking it waited since.
    pub built: Instant,
    min_key: Vec<u8>,
    max_key: Vec<u8>,
    /// Something a user of the engine derived from this batch once (e.g. its
    /// encoding), shared by every watcher the batch reaches.
    pub memo: std::sync::OnceLock<Box<dyn std::any::Any + Send + Sync>>,
}

impl EventBatch {
    pub(crate) fn new(events: Vec<Event>) -> EventBatch {
        let min_key = events
            .iter()
            .map(|e| &e.key[..])
            .min()
            .unwrap_or_default()
            .to_vec();
        let max_key = events
            .iter()
            .map(|e| &e.key[..])
            .max()
            .unwrap_or_default()
            .to_vec();
        EventBatch {
            events,
            built: Instant::now(),
            min_key,
            max_key,
            memo: std::sync::OnceLock::new(),
        }
    }

    fn touches(&self, range: &KeyRange) -> bool {
        !self.events.is_empty()
            && self.max_key.as_slice() >= range.start.as_slice()
            && (range.end.is_empty() || self.min_key.as_slice() < range.end.as_slice())
    }
}

/// How a live watcher's feed ended.
#[derive(Default)]
pub(crate) struct FeedStatus {
    pub lagged: AtomicBool,
}

struct LiveWatcher {
    range: KeyRange,
    tx: mpsc::Sender<Arc<EventBatch>>,
    status: Arc<FeedStatus>,
}

struct HubState {
    /// Newest revision handed to watchers (or skipped because none listened).
    published: u64,
    watchers: Vec<LiveWatcher>,
    closed: bool,
}

/// The set of live watchers.
pub(crate) struct Hub {
    state: Mutex<HubState>,
}

impl Hub {
    pub(crate) fn new(published: u64) -> Hub {
        Hub {
            state: Mutex::new(HubState {
                published,
                watchers: Vec::new(),
                closed: false,
            }),
        }
    }

    pub(crate) fn published(&self) -> u64 {
        self.state.lock().published
    }

    /// Marks everything through `rev` published; builds the batch only when a
    /// watcher is registered (decided under the lock, so a watcher going live
    /// concurrently either sees this batch or reads it from history).
    pub(crate) fn publish(&self, rev: u64, build: impl FnOnce() -> Arc<EventBatch>) {
        let mut st = self.state.lock();
        st.published = rev;
        if st.watchers.is_empty() {
            return;
        }
        let batch = build();
        st.watchers.retain(|w| {
            if !batch.touches(&w.range) {
                return !w.tx.is_closed();
            }
            match w.tx.try_send(Arc::clone(&batch)) {
                Ok(()) => true,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    w.status.lagged.store(true, Ordering::Release);
                    false
                }
                Err(mpsc::error::TrySendError::Closed(_)) => false,
            }
        });
    }

    /// Registers a live feed if history through `next_rev - 1` has been read
    /// and nothing newer has been published; otherwise the caller must read
    /// more history first.
    pub(crate) fn go_live(
        &self,
        next_rev: u64,
        range: &KeyRange,
        buffer: usize,
    ) -> Option<(mpsc::Receiver<Arc<EventBatch>>, Arc<FeedStatus>)> {
        let mut st = self.state.lock();
        if st.closed {
            let (_, rx) = mpsc::channel(1);
            return Some((rx, Arc::default()));
        }
        if next_rev <= st.published {
            return None;
        }
        let (tx, rx) = mpsc::channel(buffer.max(1));
        let status = Arc::new(FeedStatus::default());
        st.watchers.push(LiveWatcher {
            range: range.clone(),
            tx,
            status: Arc::clone(&status),
        });
        Some((rx, status))
    }

    /// Number of live watchers.
    pub(crate) fn watchers(&self) -> usize {
        self.state.lock().watchers.len()
    }

    /// Ends every feed (engine shutdown).
    pub(crate) fn close(&self) {
        let mut st = self.state.lock();
        st.closed = true;
        st.watchers.clear();
    }
}
