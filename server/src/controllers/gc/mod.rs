//! The garbage collector: acts on `metadata.ownerReferences` across every
//! stored collection (background, foreground and orphan propagation), and
//! ends graceful deletions whose grace period is over.
//!
//! One task follows an informer of every stored collection (a list, then
//! its changes); the graph (graph.rs) turns them into objects to look at,
//! and collect.rs decides from the objects' current state. Idle, it only
//! waits on the informer; ordinary writes cost two byte searches.

mod collect;
mod graph;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::Bytes;

use crate::api::informer::{Informer, Update};
use crate::api::store::Store;
use crate::app::AppState;
use graph::{Graph, Work};

/// How soon a failed look is retried.
const RETRY: Duration = Duration::from_millis(500);

/// The collector's state between watch events.
#[derive(Default)]
struct Collector {
    graph: Graph,
    /// Objects to look at, deduplicated.
    queue: BTreeSet<Bytes>,
    /// Graceful deletions (and retries) by the time they are due.
    timers: BTreeMap<SystemTime, BTreeSet<Bytes>>,
    /// Objects whose look failed, tried again at `retry_at`.
    retry: BTreeSet<Bytes>,
    retry_at: Option<SystemTime>,
}

impl Collector {
    fn absorb(&mut self, work: Work) {
        self.queue.extend(work.keys);
        for (at, key) in work.deadlines {
            self.timers.entry(at).or_default().insert(key);
        }
    }

    /// Takes in what the informer saw; a fresh list starts a fresh graph.
    fn observe(&mut self, update: Update) {
        let mut work = Work::default();
        match update {
            Update::Reset => *self = Collector::default(),
            Update::Put { kv, .. } => self.graph.put(&kv.key, &kv.value, &mut work),
            Update::Deleted { key, prev, .. } => {
                self.graph
                    .delete(&key, prev.as_ref().map(|p| &p.value[..]), &mut work);
            }
            Update::Synced { .. } => {}
        }
        self.absorb(work);
    }

    /// Works through the queue and the timers that are due.
    async fn work(&mut self, store: &Store) {
        let now = SystemTime::now();
        if self.retry_at.is_some_and(|t| t <= now) {
            self.retry_at = None;
            let retry = std::mem::take(&mut self.retry);
            self.queue.extend(retry);
        }
        while let Some(key) = self.queue.pop_first() {
            if let Err(e) = collect::process(store, &self.graph, &key).await {
                tracing::warn!(key = %String::from_utf8_lossy(&key), error = %e, "garbage collection failed; retrying");
                self.retry.insert(key);
                self.retry_at.get_or_insert(now + RETRY);
            }
        }
        while let Some(entry) = self.timers.first_entry() {
            if *entry.key() > now {
                break;
            }
            for key in entry.remove() {
                match collect::expire(store, &key, now).await {
                    Ok(Some(later)) => {
                        self.timers.entry(later).or_default().insert(key);
                    }
                    Ok(None) => {}
                    Err(e) => {
                        tracing::warn!(key = %String::from_utf8_lossy(&key), error = %e, "graceful deletion failed; retrying");
                        self.timers.entry(now + RETRY).or_default().insert(key);
                    }
                }
            }
        }
    }

    /// How long to wait for events before timers are due.
    fn idle_for(&self) -> Duration {
        let next = self
            .timers
            .keys()
            .next()
            .copied()
            .into_iter()
            .chain(self.retry_at)
            .min();
        match next {
            Some(at) => at
                .duration_since(SystemTime::now())
                .unwrap_or(Duration::ZERO),
            None => Duration::from_secs(3600),
        }
    }
}

/// Runs until the server stops.
pub async fn run(state: Arc<AppState>) {
    let store = &state.store;
    let mut shutdown = state.shutdown.clone();
    let mut informer = Informer::for_every_collection(store);
    let mut collector = Collector::default();
    loop {
        // Take what is already known before looking at the objects again.
        while let Some(ready) = informer.try_next() {
            match ready {
                Ok(update) => collector.observe(update),
                Err(e) => {
                    tracing::warn!(error = %e, "garbage collector cannot list; retrying");
                    collector.retry_at.get_or_insert(SystemTime::now() + RETRY);
                    break;
                }
            }
        }
        collector.work(store).await;
        if !collector.queue.is_empty() {
            continue;
        }
        tokio::select! {
            update = informer.next() => match update {
                Some(Ok(update)) => collector.observe(update),
                Some(Err(_)) => tokio::time::sleep(RETRY).await,
                None => return,
            },
            () = tokio::time::sleep(collector.idle_for()) => {}
            _ = shutdown.changed() => return,
        }
    }
}
