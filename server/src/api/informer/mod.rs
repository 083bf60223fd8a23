//! Informers: a list, then a watch from the list's revision, of one
//! collection or of every stored collection, for the in-process
//! controllers. A watch that fell behind resumes after the last change it
//! delivered; one that lost its start to compaction re-lists (`Reset`), so a
//! controller never scans or watches storage itself.

mod cache;

/// What an informer reports of each object: its key, stored bytes and revisions.
pub use crate::storage::KeyValue;
pub use cache::Cache;

use std::collections::VecDeque;
use std::sync::Arc;

use crate::api::error::ApiError;
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::store::{Store, storage_error};
use crate::storage::{EventKind, KeyRange, RangeOptions, Revision, Storage, StorageError, Watch};

/// Where every collection's keys start.
const EVERY_COLLECTION: &[u8] = b"/registry/";

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
    /// Updates of a list not yet handed out.
    listed: VecDeque<Update>,
    watch: Option<Watch>,
    /// The revision of the last change delivered (resume point after lag).
    seen: Revision,
}

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
            listed: VecDeque::new(),
            watch: None,
            seen: Revision::default(),
        }
    }

    /// The next update, waiting for one; `None` once storage has closed.
    pub async fn next(&mut self) -> Option<Result<Update, ApiError>> {
        loop {
            if let Some(ready) = self.ready() {
                return Some(ready);
            }
            let watch = self.watch.as_mut()?;
            let event = watch.next().await?;
            if let Some(update) = self.absorb(event) {
                return Some(Ok(update));
            }
        }
    }

    /// The next update if one is ready without waiting.
    pub fn try_next(&mut self) -> Option<Result<Update, ApiError>> {
        loop {
            if let Some(ready) = self.ready() {
                return Some(ready);
            }
            let event = self.watch.as_mut()?.try_next()?;
            if let Some(update) = self.absorb(event) {
                return Some(Ok(update));
            }
        }
    }

    /// A listed update still to hand out, or the list when none has been
    /// taken (first use, or after a watch was lost).
    fn ready(&mut self) -> Option<Result<Update, ApiError>> {
        if let Some(update) = self.listed.pop_front() {
            return Some(Ok(update));
        }
        if self.watch.is_some() {
            return None;
        }
        if let Err(e) = self.list() {
            return Some(Err(e));
        }
        self.listed.pop_front().map(Ok)
    }

    /// Lists the prefix at the current revision and watches from there.
    fn list(&mut self) -> Result<(), ApiError> {
        let revision = self.storage.current_revision();
        let opts = RangeOptions {
            at: Some(revision),
            limit: 0,
            count_total: false,
        };
        let page = self
            .storage
            .range(&KeyRange::prefix(&self.prefix), opts)
            .map_err(storage_error)?;
        let watch = self
            .storage
            .watch(KeyRange::prefix(&self.prefix), revision)
            .map_err(storage_error)?;
        self.listed.push_back(Update::Reset);
        self.listed.extend(
            page.items
                .into_iter()
                .map(|kv| Update::Put { kv, prev: None }),
        );
        self.listed.push_back(Update::Synced { revision });
        self.watch = Some(watch);
        self.seen = revision;
        Ok(())
    }

    /// A watch event as an update; a lost watch resumes (lag) or is
    /// dropped so that the next call re-lists (compaction, anything else).
    fn absorb(&mut self, event: Result<crate::storage::Event, StorageError>) -> Option<Update> {
        match event {
            Ok(event) => {
                self.seen = event.revision;
                Some(match (event.kind, event.kv) {
                    (EventKind::Put, Some(kv)) => Update::Put {
                        kv,
                        prev: event.prev,
                    },
                    _ => Update::Deleted {
                        key: event.key,
                        prev: event.prev,
                        revision: event.revision,
                    },
                })
            }
            Err(StorageError::Lagged { .. }) => {
                self.watch = self
                    .storage
                    .watch(KeyRange::prefix(&self.prefix), self.seen)
                    .ok();
                None
            }
            Err(e) => {
                tracing::info!(error = %e, prefix = %String::from_utf8_lossy(&self.prefix), "informer watch lost; listing again");
                self.watch = None;
                None
            }
        }
    }
}

#[cfg(test)]
mod tests;
