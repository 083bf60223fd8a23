//! What keeps the cache current: one full read of the cached range, then
//! one backend watch from that read's revision, every batch applied to the
//! data and kept for watchers. A watch that breaks is opened again from
//! the last revision applied, so watchers see no gap; only a watch whose
//! start was compacted away makes the cache read everything again, and its
//! watchers then get the difference (each changed key as it is now).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::Poll;
use std::time::Duration;

use tokio::sync::watch;

use super::Shared;
use super::memory::Memory;
use crate::storage::{
    Batch, Events, KeyRange, KeyValue, RangeOptions, Revision, Storage, StorageError, Watch,
};

/// Keys read per page while loading.
const PAGE: usize = 10_000;
/// How often the window's age is checked when nothing arrives.
const TICK: Duration = Duration::from_secs(1);
const FIRST_PAUSE: Duration = Duration::from_millis(100);
const MAX_PAUSE: Duration = Duration::from_secs(5);

/// Keeps `shared` current with `range` of `backend` until `stop` flips.
pub async fn run(
    shared: Arc<Shared>,
    backend: Arc<dyn Storage>,
    range: KeyRange,
    mut stop: watch::Receiver<bool>,
) {
    let mut pause = FIRST_PAUSE;
    loop {
        let loaded = tokio::select! {
            loaded = load(backend.as_ref(), &range) => loaded,
            _ = stop.wait_for(|s| *s) => return,
        };
        let from = match loaded {
            Ok(memory) => {
                pause = FIRST_PAUSE;
                shared.resync(memory)
            }
            Err(e) => {
                tracing::warn!(error = %e, "the watch cache cannot read its data; trying again");
                if sleep(&mut stop, &mut pause).await {
                    return;
                }
                continue;
            }
        };
        if follow(&shared, backend.as_ref(), &range, from, &mut stop).await {
            return;
        }
    }
}

/// Applies the backend's changes after `from`; `true` when stopped,
/// `false` when the cache must read everything again.
async fn follow(
    shared: &Shared,
    backend: &dyn Storage,
    range: &KeyRange,
    from: Revision,
    stop: &mut watch::Receiver<bool>,
) -> bool {
    let mut watch = backend.watch(range.clone(), from);
    shared.following.store(true, Ordering::Release);
    let mut tick = tokio::time::interval(TICK);
    let mut pause = FIRST_PAUSE;
    loop {
        let got = tokio::select! {
            next = next_change(&mut watch, shared.applied()) => match next {
                Change::Batch(got) => got,
                Change::Progress(at) => {
                    shared.tidy(Some(at));
                    continue;
                }
            },
            () = shared.progress_wanted.notified() => {
                if shared.applied() < shared.wanted() {
                    watch.request_progress();
                }
                continue;
            }
            _ = tick.tick() => {
                shared.tidy(None);
                continue;
            }
            _ = stop.wait_for(|s| *s) => return true,
        };
        if !matches!(got, Some(Ok(_))) {
            shared.following.store(false, Ordering::Release);
        }
        match got {
            Some(Ok(events)) => {
                pause = FIRST_PAUSE;
                shared.following.store(true, Ordering::Release);
                shared.apply(batch_of(&events));
            }
            Some(Err(StorageError::Compacted { compacted, .. })) => {
                tracing::warn!(
                    %compacted,
                    "the watch cache's history was compacted away; reading everything again"
                );
                return false;
            }
            Some(Err(e)) => {
                let applied = shared.applied();
                tracing::warn!(error = %e, %applied, "the watch cache's watch ended; watching again");
                if sleep(stop, &mut pause).await {
                    return true;
                }
                watch = backend.watch(range.clone(), applied);
            }
            None => return true,
        }
    }
}

/// What the backend watch had next.
enum Change {
    Batch(Option<Result<Events, StorageError>>),
    /// Nothing is ready, and every change up to here has been delivered.
    Progress(Revision),
}

/// The next batch, or the watch's progress past `applied` once no batch
/// is ready (only then does progress vouch for every batch before it).
fn next_change(watch: &mut Watch, applied: Revision) -> impl Future<Output = Change> + '_ {
    std::future::poll_fn(move |cx| match watch.poll_next_batch(cx) {
        Poll::Ready(got) => Poll::Ready(Change::Batch(got)),
        Poll::Pending if watch.progress() > applied => {
            Poll::Ready(Change::Progress(watch.progress()))
        }
        Poll::Pending => Poll::Pending,
    })
}

/// The events as a batch of the cache's own: the same records, shared.
fn batch_of(events: &Events) -> Arc<Batch> {
    Arc::new(Batch::new(events.iter().cloned().collect()))
}

/// Waits `pause` (doubling it for next time); `true` when stopped first.
async fn sleep(stop: &mut watch::Receiver<bool>, pause: &mut Duration) -> bool {
    let wait = *pause;
    *pause = (*pause * 2).min(MAX_PAUSE);
    tokio::select! {
        () = tokio::time::sleep(wait) => false,
        _ = stop.wait_for(|s| *s) => true,
    }
}

/// Every key of `range` at one revision, read page by page.
async fn load(backend: &dyn Storage, range: &KeyRange) -> Result<Memory, StorageError> {
    let mut items: Vec<KeyValue> = Vec::new();
    let mut at: Option<Revision> = None;
    let mut start = range.start.clone();
    loop {
        let page = backend
            .range(
                KeyRange::between(&start, &range.end),
                RangeOptions {
                    at,
                    limit: PAGE,
                    ..RangeOptions::default()
                },
            )
            .await?;
        at = Some(page.revision);
        items.extend(page.items);
        match (page.more, items.last()) {
            (true, Some(last)) => {
                start = last.key.to_vec();
                start.push(0);
            }
            _ => return Ok(Memory::loaded(page.revision, items)),
        }
    }
}
