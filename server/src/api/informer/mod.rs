//! Informers: a list, then a watch from the list's revision, of one
//! collection or of every stored collection, for the in-process
//! controllers. A watch that fell behind resumes after the last change it
//! delivered; one that lost its start to compaction re-lists (`Reset`), so a
//! controller never scans or watches storage itself.

mod cache;
mod shared;

/// What an informer reports of each object: its key, stored bytes and revisions.
pub use crate::storage::KeyValue;
pub use cache::Cache;
pub use shared::Shared;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use crate::api::error::ApiError;
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::store::list_tail::ListTail;
use crate::api::store::{Store, storage_error};
use crate::storage::{EventKind, Events, KeyRange, Revision, Storage, StorageError, Watch};

/// Where every collection's keys start.
const EVERY_COLLECTION: &[u8] = b"/registry/";

/// Objects read per step of a list where pages are cheap: only one page is
/// held at a time, so listing a large store (the collector lists all of
/// it) costs a page of memory, not the store's size.
const LIST_PAGE: usize = 1000;

/// One step of what an informer saw.
#[derive(Debug)]
pub enum Update {
    /// Everything known before is void: a fresh list follows.
    Reset,
    /// An object is (now) stored: from the list, or a write.
    Put {
        kv: KeyValue,
        /// Its earlier state, for writes that had one.
        prev: Option<KeyValue>,
    },
    /// An object was deleted; `prev` is its last state when retained.
    Deleted {
        key: bytes::Bytes,
        prev: Option<KeyValue>,
        revision: Revision,
    },
    /// The list is delivered: what came before is the state at `revision`,
    /// and changes follow.
    Synced { revision: Revision },
}

/// A list + watch of a key prefix.
pub struct Informer {
    storage: Arc<dyn Storage>,
    prefix: Vec<u8>,
    /// Updates (of a list, or of a watched batch) not yet handed out.
    pending: VecDeque<Update>,
    /// The rest of a list under way.
    listing: Option<ListTail>,
    watch: Option<Watch>,
    /// The revision of the last change delivered (resume point after lag).
    seen: Revision,
    /// Lists that failed in a row, and when the next may start: retries
    /// back off as client-go's reflector's do, so a store that is down is
    /// not asked in a tight loop by every informer.
    failed_lists: u32,
    next_list: Option<tokio::time::Instant>,
}

/// The first pause after a failed list, and the longest (client-go's
/// reflector backoff).
const FIRST_RETRY: Duration = Duration::from_millis(800);
const LONGEST_RETRY: Duration = Duration::from_secs(30);

impl Informer {
    /// The objects of one kind (all namespaces).
    #[must_use]
    pub fn for_kind(store: &Store, kind: &KindSpec) -> Informer {
        Informer::for_prefix(store, keys::collection_prefix(kind, None))
    }

    /// Every stored object of every kind (the garbage collector's view).
    #[must_use]
    pub fn for_every_collection(store: &Store) -> Informer {
        Informer::for_prefix(store, EVERY_COLLECTION.to_vec())
    }

    fn for_prefix(store: &Store, prefix: Vec<u8>) -> Informer {
        Informer::over(Arc::clone(&store.storage), prefix)
    }

    /// The keys under `prefix` of a backend.
    pub(crate) fn over(storage: Arc<dyn Storage>, prefix: Vec<u8>) -> Informer {
        Informer {
            storage,
            prefix,
            pending: VecDeque::new(),
            listing: None,
            watch: None,
            seen: Revision::default(),
            failed_lists: 0,
            next_list: None,
        }
    }

    /// The next update, waiting for one (and listing when a list is due);
    /// `None` once storage has closed.
    pub async fn next(&mut self) -> Option<Result<Update, ApiError>> {
        loop {
            if let Some(update) = self.pending.pop_front() {
                return Some(Ok(update));
            }
            let Some(watch) = self.watch.as_mut() else {
                if let Some(at) = self.next_list {
                    tokio::time::sleep_until(at).await;
                }
                match self.list().await {
                    Ok(()) => {
                        self.failed_lists = 0;
                        self.next_list = None;
                    }
                    Err(e) => {
                        self.listing = None;
                        self.failed_lists = self.failed_lists.saturating_add(1);
                        let pause = FIRST_RETRY
                            .saturating_mul(1 << self.failed_lists.min(7).saturating_sub(1))
                            .min(LONGEST_RETRY);
                        self.next_list = Some(tokio::time::Instant::now() + pause);
                        return Some(Err(e));
                    }
                }
                continue;
            };
            let batch = watch.next_batch().await?;
            self.absorb(batch);
        }
    }

    /// Waits for the next update and applies it, and every other one
    /// already queued, to `cache`; a failed list is retried after a pause
    /// (by `next`). `false` once storage has closed.
    pub async fn feed<T>(&mut self, cache: &mut Cache<T>) -> bool {
        match self.next().await {
            Some(Ok(update)) => {
                cache.apply(update);
            }
            Some(Err(_)) => {}
            None => return false,
        }
        while let Some(Ok(update)) = self.try_next() {
            cache.apply(update);
        }
        true
    }

    /// The next update if one is ready without waiting (a due list waits
    /// for `next`).
    pub fn try_next(&mut self) -> Option<Result<Update, ApiError>> {
        loop {
            if let Some(update) = self.pending.pop_front() {
                return Some(Ok(update));
            }
            let batch = self.watch.as_mut()?.try_next_batch()?;
            self.absorb(batch);
        }
    }

    /// Reads the next page of the list under way, or starts one at the
    /// current revision; after its last page, watches from its revision.
    async fn list(&mut self) -> Result<(), ApiError> {
        let listing = match self.listing.take() {
            Some(listing) => listing,
            None => {
                let storage = Arc::clone(&self.storage);
                let revision = storage.current_revision().await.map_err(storage_error)?;
                self.pending.push_back(Update::Reset);
                // One read where pages cost the whole range each (etcd).
                let page = if storage.pages_cheaply() {
                    LIST_PAGE
                } else {
                    0
                };
                let end = KeyRange::prefix(&self.prefix).end;
                ListTail::new(storage, &self.prefix, &end, revision, page)
            }
        };
        let revision = listing.revision();
        let (items, rest) = listing.read().await?;
        self.pending
            .extend(items.into_iter().map(|kv| Update::Put { kv, prev: None }));
        self.listing = rest;
        if self.listing.is_none() {
            self.pending.push_back(Update::Synced { revision });
            let whole = KeyRange::prefix(&self.prefix);
            self.watch = Some(self.storage.watch(whole, revision));
            self.seen = revision;
        }
        Ok(())
    }

    /// A watched batch as updates; a lost watch resumes (lag) or is
    /// dropped so that the next `next` lists again (compaction, anything
    /// else).
    fn absorb(&mut self, batch: Result<Events, StorageError>) {
        match batch {
            Ok(events) => {
                for event in events.iter() {
                    self.seen = event.revision;
                    self.pending.push_back(match (event.kind, &event.kv) {
                        (EventKind::Put, Some(kv)) => Update::Put {
                            kv: kv.clone(),
                            prev: event.prev.clone(),
                        },
                        _ => Update::Deleted {
                            key: event.key.clone(),
                            prev: event.prev.clone(),
                            revision: event.revision,
                        },
                    });
                }
            }
            Err(StorageError::Lagged) => {
                self.watch = Some(
                    self.storage
                        .watch(KeyRange::prefix(&self.prefix), self.seen),
                );
            }
            Err(e) => {
                tracing::info!(error = %e, prefix = %String::from_utf8_lossy(&self.prefix), "informer watch lost; listing again");
                self.watch = None;
            }
        }
    }
}

#[cfg(test)]
mod tests;
