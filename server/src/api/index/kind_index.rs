//! A kind's list index (see `state`): postings of its stored objects by the
//! families lists select by, each filed from a range read when a list first
//! selects by it and kept current by a storage watch of the kind (the same
//! backend watch, and the same per-batch decoding, any backend offers), so
//! a list with selectors reads only the objects the index does not rule
//! out. A list asks the watch to sync its progress first, so the index is
//! current through a revision at least as new as every acknowledged write;
//! where the backend cannot vouch for that (a watch cache in front of
//! etcd), the list learns the revision it must reach and has the cache
//! catch up with it.

use std::future::poll_fn;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use parking_lot::{Mutex, RwLock};

use crate::api::index::state::IndexState;
use crate::api::index::{Attributes, Family, Term};
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::watch::share::BatchShare;
use crate::storage::{
    EventKind, Events, KeyRange, RangeOptions, Revision, Storage, StorageError, Watch,
};

/// Records read per step of the initial load.
const LOAD_PAGE: usize = 4096;
/// Batches applied per wake-up of the follower before it yields.
const APPLY_BURST: usize = 64;

/// How far an index is current.
#[derive(Clone, Copy, Debug)]
pub struct Synced {
    /// Every change through this revision is applied.
    pub through: Revision,
    /// The backend vouched that `through` covers every acknowledged write.
    /// Otherwise (a cache in front of etcd) a list learns the revision it
    /// must reach and has storage catch up with it first.
    pub vouched: bool,
}

/// One kind's (served version's) index.
pub struct KindIndex {
    kind: Arc<KindSpec>,
    state: RwLock<IndexState>,
    /// Batches are applied with this held, in order, by the follower task
    /// or by a list syncing.
    watch: Mutex<Watch>,
    /// Cleared when the watch ends: the index no longer sees changes.
    live: AtomicBool,
    follower: Mutex<Option<tokio::task::AbortHandle>>,
    /// Held while a family is filed, so two lists never file one twice.
    filing: tokio::sync::Mutex<()>,
}

impl Drop for KindIndex {
    fn drop(&mut self) {
        if let Some(task) = self.follower.get_mut().take() {
            task.abort();
        }
    }
}

impl KindIndex {
    /// Reads every stored object of `kind` once, files it under `family`
    /// (the unreadable ones apart) and starts following changes.
    pub async fn build(
        storage: &Arc<dyn Storage>,
        kind: &Arc<KindSpec>,
        family: &Family,
    ) -> Result<Arc<KindIndex>, StorageError> {
        let prefix = keys::collection_prefix(kind, None);
        // Started at the read's revision, known once its first page is.
        let started = |at| {
            let mut s = IndexState::new(Arc::clone(kind), &prefix, at);
            s.begin(family);
            s
        };
        let mut state: Option<IndexState> = None;
        let at = scan(storage, kind, &prefix, |page_revision, kvs| {
            let state = state.get_or_insert_with(|| started(page_revision));
            for (key, attrs) in kvs {
                state.load(family, key, attrs);
            }
        })
        .await?;
        let mut state = state.unwrap_or_else(|| started(at));
        state.finish(family);
        let index = Arc::new(KindIndex {
            kind: Arc::clone(kind),
            watch: Mutex::new(storage.watch(KeyRange::prefix(&prefix), state.applied())),
            state: RwLock::new(state),
            live: AtomicBool::new(true),
            follower: Mutex::new(None),
            filing: tokio::sync::Mutex::new(()),
        });
        let task = tokio::spawn(follow(Arc::downgrade(&index)));
        *index.follower.lock() = Some(task.abort_handle());
        Ok(index)
    }

    /// Files `family` if it is not yet: changes are filed from now on while
    /// one range read files every object stored. `false` when the kind
    /// indexes as many families as it may, or the read failed.
    pub async fn index_by(&self, storage: &Arc<dyn Storage>, family: &Family) -> bool {
        if self.state.read().indexes_by(family) {
            return true;
        }
        let _filing = self.filing.lock().await;
        if self.state.read().indexes_by(family) {
            return true;
        }
        if !self.state.write().begin(family) {
            return false;
        }
        // Read at or after the revision the family began at: a key changed
        // since is filed by the watch as well, under its newer value.
        let prefix = keys::collection_prefix(&self.kind, None);
        let filed = scan(storage, &self.kind, &prefix, |_, kvs| {
            let mut state = self.state.write();
            for (key, attrs) in kvs.filter_map(|(k, a)| Some((k, a?))) {
                state.load(family, key, Some(attrs));
            }
        })
        .await;
        let mut state = self.state.write();
        match filed {
            Ok(_) => state.finish(family),
            Err(e) => {
                tracing::debug!(kind = %self.kind.resource, error = %e, "a list index could not file a family");
                state.abandon(family);
            }
        }
        state.indexes_by(family)
    }

    /// Whether the index still follows its kind.
    pub fn live(&self) -> bool {
        self.live.load(Ordering::Acquire)
    }

    #[must_use]
    pub fn kind(&self) -> &Arc<KindSpec> {
        &self.kind
    }

    /// Applies what the watch has ready and, where the backend vouches
    /// for its watches' progress, brings the index current through a
    /// revision at least as new as every acknowledged write; `None` once
    /// the watch has ended.
    pub fn sync(&self) -> Option<Synced> {
        let mut watch = self.watch.lock();
        self.drain(&mut watch)?;
        let vouched = watch.sync_progress().is_some();
        if vouched {
            self.drain(&mut watch)?;
        }
        Some(Synced {
            through: self.state.read().applied(),
            vouched,
        })
    }

    /// Applies every batch the watch has ready; then the index is current
    /// through the watch's progress.
    fn drain(&self, watch: &mut Watch) -> Option<()> {
        while let Some(got) = watch.try_next_batch() {
            self.apply(got)?;
        }
        self.live().then_some(())?;
        self.state.write().advance(watch.progress());
        Some(())
    }

    /// Applies one batch (or the watch's end).
    fn apply(&self, got: Result<Events, StorageError>) -> Option<()> {
        let events = match got {
            Ok(events) => events,
            Err(e) => {
                tracing::debug!(kind = %self.kind.resource, error = %e, "a list index stopped following");
                self.live.store(false, Ordering::Release);
                return None;
            }
        };
        let share = BatchShare::of(&events, &self.kind);
        let mut state = self.state.write();
        for (i, ev) in events.iter_indexed() {
            let decoded;
            let (old, new) = match &share {
                Some(share) => {
                    let a = share.attrs(i, ev);
                    (a.old, a.new)
                }
                None => {
                    let of = |kv: &Option<_>| {
                        kv.as_ref()
                            .and_then(|kv| Attributes::of_record(&self.kind, kv))
                    };
                    decoded = (of(&ev.prev), of(&ev.kv));
                    (decoded.0.as_deref(), decoded.1.as_deref())
                }
            };
            match (ev.kind, &ev.kv) {
                (EventKind::Put, Some(_)) => state.put(&ev.key, ev.revision, old, new),
                _ => state.delete(&ev.key, ev.revision, old),
            }
        }
        if let Some(last) = events.last_revision() {
            state.advance(last);
        }
        Some(())
    }

    fn poll_follow(&self, cx: &mut Context<'_>) -> Poll<()> {
        let mut watch = self.watch.lock();
        for _ in 0..APPLY_BURST {
            match watch.poll_next_batch(cx) {
                Poll::Ready(Some(got)) => {
                    if self.apply(got).is_none() {
                        return Poll::Ready(());
                    }
                }
                Poll::Ready(None) => {
                    self.live.store(false, Ordering::Release);
                    return Poll::Ready(());
                }
                Poll::Pending => {
                    // Nothing is queued: the index is current through the
                    // watch's progress.
                    self.state.write().advance(watch.progress());
                    return Poll::Pending;
                }
            }
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }

    /// The keys a list at `at` over `[start, end)` selecting by `term`
    /// must read, in order (see [`IndexState::candidates`]); `None` when
    /// the index cannot answer.
    pub fn candidates(
        &self,
        start: &[u8],
        end: &[u8],
        at: Revision,
        term: &Term,
    ) -> Option<Vec<Vec<u8>>> {
        if !self.live() {
            return None;
        }
        self.state.read().candidates(start, end, at, term)
    }
}

/// Reads every stored object under `prefix` at one revision, a page at a
/// time, handing `file` the page's revision and each key with its
/// attributes (`None`: unreadable as the kind); returns the revision.
async fn scan(
    storage: &Arc<dyn Storage>,
    kind: &KindSpec,
    prefix: &[u8],
    mut file: impl FnMut(Revision, &mut dyn Iterator<Item = (&[u8], Option<&Attributes>)>),
) -> Result<Revision, StorageError> {
    let whole = KeyRange::prefix(prefix);
    let mut start = prefix.to_vec();
    let mut at = None;
    loop {
        let page = storage
            .range(
                KeyRange::between(&start, &whole.end),
                RangeOptions {
                    at,
                    limit: LOAD_PAGE,
                    bulk: true,
                    ..RangeOptions::default()
                },
            )
            .await?;
        at = Some(page.revision);
        let decoded: Vec<_> = page
            .items
            .iter()
            .map(|kv| (&kv.key[..], Attributes::of_record(kind, kv)))
            .collect();
        file(
            page.revision,
            &mut decoded.iter().map(|(k, a)| (*k, a.as_deref())),
        );
        match page.items.last() {
            Some(last) if page.more => {
                start = last.key.to_vec();
                start.push(0);
            }
            _ => return Ok(page.revision),
        }
        tokio::task::yield_now().await;
    }
}

/// Applies the kind's changes as they come, until the index is dropped or
/// its watch ends.
async fn follow(index: std::sync::Weak<KindIndex>) {
    poll_fn(|cx| match index.upgrade() {
        Some(index) => index.poll_follow(cx),
        None => Poll::Ready(()),
    })
    .await;
}

#[cfg(test)]
#[path = "kind_index_tests.rs"]
mod tests;
