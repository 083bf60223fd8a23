//! The garbage collector: acts on `metadata.ownerReferences` across every
//! stored collection (background, foreground and orphan propagation), and
//! ends graceful deletions whose grace period is over.
//!
//! One task watches the whole `/registry/` range from a full scan's
//! revision; the graph (graph.rs) turns changes into objects to look at,
//! and collect.rs decides from the objects' current state. Idle, it only
//! waits on the watch; ordinary writes cost two byte searches.

mod collect;
mod graph;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::Bytes;

use crate::api::store::Store;
use crate::http::AppState;
use crate::storage::{EventKind, Events, KeyRange, RangeOptions, Revision, StorageError, Watch};
use graph::{Graph, Work};

/// The whole store: every collection's keys start here.
const REGISTRY: &[u8] = b"/registry/";
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

    /// Builds the graph from every stored object; returns the revision read at.
    async fn scan(&mut self, store: &Store) -> Option<Revision> {
        let all = store
            .storage
            .range(KeyRange::prefix(REGISTRY), RangeOptions::default())
            .await
            .ok()?;
        let mut work = Work::default();
        for kv in &all.items {
            self.graph.put(&kv.key, &kv.value, &mut work);
        }
        self.absorb(work);
        Some(all.revision)
    }

    /// Takes in a batch of changes; returns the revision of the last one.
    fn observe(&mut self, events: &Events) -> Option<Revision> {
        let mut work = Work::default();
        for event in events.iter() {
            match (event.kind, &event.kv) {
                (EventKind::Put, Some(kv)) => self.graph.put(&event.key, &kv.value, &mut work),
                _ => self.graph.delete(
                    &event.key,
                    event.prev.as_ref().map(|p| &p.value[..]),
                    &mut work,
                ),
            }
        }
        self.absorb(work);
        events.last_revision()
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

/// Runs until the server stops; a lost watch (compaction, lag) restarts it
/// from a fresh scan.
pub async fn run(state: Arc<AppState>) {
    let store = &state.store;
    let mut shutdown = state.shutdown.clone();
    loop {
        let mut collector = Collector::default();
        let Some(from) = collector.scan(store).await else {
            tokio::select! {
                () = tokio::time::sleep(RETRY) => continue,
                _ = shutdown.changed() => return,
            }
        };
        let mut watch = store.storage.watch(KeyRange::prefix(REGISTRY), from);
        let mut seen = from;
        'watching: loop {
            collector.work(store).await;
            // Take what is already queued before looking at the objects again.
            while let Some(ready) = watch.try_next_batch() {
                match ready {
                    Ok(events) => seen = collector.observe(&events).unwrap_or(seen),
                    Err(e) => match resume(store, &e, seen) {
                        Some(resumed) => watch = resumed,
                        None => break 'watching,
                    },
                }
            }
            if !collector.queue.is_empty() {
                continue;
            }
            tokio::select! {
                batch = watch.next_batch() => match batch {
                    Some(Ok(events)) => seen = collector.observe(&events).unwrap_or(seen),
                    Some(Err(e)) => match resume(store, &e, seen) {
                        Some(resumed) => watch = resumed,
                        None => break 'watching,
                    },
                    None => return,
                },
                () = tokio::time::sleep(collector.idle_for()) => {}
                _ = shutdown.changed() => return,
            }
        }
    }
}

/// After a watch ends with an error: a watch that lagged behind resumes
/// after the last event seen (from retained history); anything else
/// (compaction) needs a fresh scan (`None`).
fn resume(store: &Store, error: &StorageError, seen: Revision) -> Option<Watch> {
    if matches!(error, StorageError::Lagged) {
        return Some(store.storage.watch(KeyRange::prefix(REGISTRY), seen));
    }
    tracing::info!(error = %error, "garbage collector watch lost; rescanning");
    None
}
