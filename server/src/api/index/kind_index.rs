//! A kind's list index: its stored objects' attributes, loaded once from a
//! range read and kept current by a storage watch of the kind (the same
//! backend watch, and the same per-batch decoding, any backend offers), so
//! a list with selectors reads only the objects the index does not rule
//! out. A list asks the watch to sync its progress first, so the index is
//! current through a revision at least as new as every acknowledged write.

use std::future::poll_fn;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use parking_lot::{Mutex, RwLock};

use crate::api::index::state::{Candidate, Entry, IndexState};
use crate::api::index::{Attributes, Term};
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::watch::share::BatchShare;
use crate::storage::{
    EventKind, Events, KeyRange, KeyValue, RangeOptions, Revision, Storage, StorageError, Watch,
};

/// Records read per step of the initial load.
const LOAD_PAGE: usize = 4096;
/// Batches applied per wake-up of the follower before it yields.
const APPLY_BURST: usize = 64;

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
}

impl Drop for KindIndex {
    fn drop(&mut self) {
        if let Some(task) = self.follower.get_mut().take() {
            task.abort();
        }
    }
}

impl KindIndex {
    /// Loads every stored object of `kind` and starts following changes.
    pub async fn build(
        storage: &Arc<dyn Storage>,
        kind: &Arc<KindSpec>,
    ) -> Result<Arc<KindIndex>, StorageError> {
        let prefix = keys::collection_prefix(kind, None);
        let whole = KeyRange::prefix(&prefix);
        let mut start = prefix.clone();
        let mut at = None;
        let mut state = None;
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
            let state =
                state.get_or_insert_with(|| IndexState::new(Arc::clone(kind), page.revision));
            for kv in &page.items {
                let attrs = Attributes::of_record(kind, kv).map(Arc::unwrap_or_clone);
                let entry = Entry {
                    rev: kv.mod_revision,
                    attrs,
                };
                state.load(&kv.key, entry);
            }
            match page.items.last() {
                Some(last) if page.more => {
                    start = last.key.to_vec();
                    start.push(0);
                }
                _ => break,
            }
            tokio::task::yield_now().await;
        }
        let state = state.unwrap_or_else(|| IndexState::new(Arc::clone(kind), Revision::ZERO));
        let index = Arc::new(KindIndex {
            kind: Arc::clone(kind),
            watch: Mutex::new(storage.watch(whole, state.applied())),
            state: RwLock::new(state),
            live: AtomicBool::new(true),
            follower: Mutex::new(None),
        });
        let task = tokio::spawn(follow(Arc::downgrade(&index)));
        *index.follower.lock() = Some(task.abort_handle());
        Ok(index)
    }

    /// Whether the index still follows its kind.
    pub fn live(&self) -> bool {
        self.live.load(Ordering::Acquire)
    }

    #[must_use]
    pub fn kind(&self) -> &Arc<KindSpec> {
        &self.kind
    }

    /// Applies what the watch has ready and brings the index current
    /// through a revision at least as new as every acknowledged write;
    /// `None` once the watch has ended, or when the backend cannot vouch
    /// for its progress.
    pub fn sync(&self) -> Option<Revision> {
        let mut watch = self.watch.lock();
        self.drain(&mut watch)?;
        watch.sync_progress()?;
        self.drain(&mut watch)?;
        Some(self.state.read().applied())
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
            match (ev.kind, &ev.kv) {
                (EventKind::Put, Some(kv)) => {
                    // Kept inline (not shared) so a scan reads one
                    // allocation per object.
                    let attrs = match &share {
                        Some(share) => share.new_attrs(i, ev).map(|a| a.as_ref().clone()),
                        None => Attributes::of_record(&self.kind, kv).map(Arc::unwrap_or_clone),
                    };
                    let entry = Entry {
                        rev: ev.revision,
                        attrs,
                    };
                    state.put(&ev.key, entry);
                }
                _ => state.delete(&ev.key, ev.revision),
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

    /// The keys a list at `at` over `[start, end)` must read, in order (see
    /// [`IndexState::candidates`]); `None` when the index cannot answer.
    /// A list's first `term` of a family builds the family's postings.
    pub fn candidates(
        &self,
        start: &[u8],
        end: &[u8],
        at: Revision,
        enough: usize,
        term: Option<&Term>,
        selects: impl Fn(&Attributes) -> bool,
    ) -> Option<Vec<Candidate>> {
        if !self.live() {
            return None;
        }
        let term = term.filter(|(family, _)| {
            self.state.read().indexes_by(family) || self.state.write().index_by(family)
        });
        self.state
            .read()
            .candidates(start, end, at, enough, term, selects)
    }

    /// The attributes of a stored record, from the index when it holds this
    /// version, else decoded.
    #[must_use]
    pub fn attrs(&self, kv: &KeyValue) -> Option<Arc<Attributes>> {
        if let Some(entry) = self.state.read().entry(&kv.key)
            && entry.rev == kv.mod_revision
        {
            return entry.attrs.clone().map(Arc::new);
        }
        Attributes::of_record(&self.kind, kv)
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
