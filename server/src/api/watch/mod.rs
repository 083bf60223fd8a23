//! What events one watcher gets: where it starts and the initial state it is
//! sent (start.rs), each storage event as a watch event with the stored
//! record it carries (translate.rs), BOOKMARKs and the ERROR that ends it
//! (bookmarks.rs). Encoding and writing the events is the HTTP layer's.

pub mod bookmarks;
pub mod feed;
pub mod hub;
#[cfg(test)]
mod hub_tests;
pub mod lag;
pub mod selection;
pub mod share;
pub mod start;
pub mod terms;
pub mod translate;

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

pub use feed::{Delivery, Feed, Picks};
pub use translate::{EventType, translate};

use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::store::{ListOptions, Store};
use crate::api::watch::selection::Selection;
use crate::api::watch::terms::index_term;
use crate::storage::{KeyRange, KeyValue, Revision, StorageError};

/// A watch request's parameters, parsed.
pub struct WatchRequest {
    pub opts: ListOptions,
    /// `allowWatchBookmarks`.
    pub bookmarks: bool,
    /// `sendInitialEvents`.
    pub send_initial: Option<bool>,
    /// `timeoutSeconds`, when positive.
    pub timeout: Option<Duration>,
}

/// One started watch.
pub struct Watcher {
    kind: Arc<KindSpec>,
    /// The state sent as ADDED before any change.
    pub initial: Vec<KeyValue>,
    /// The revision changes are watched from.
    pub after: Revision,
    /// What a filtered watcher selects (`None`: every event of the range).
    selection: Option<Arc<Selection>>,
    /// The request path's namespace and name.
    namespace: Option<String>,
    name: Option<String>,
    bookmarks: bool,
    /// The API domain, when the initial events end with a BOOKMARK.
    initial_events_end: Option<String>,
    pub timeout: Option<Duration>,
}

impl Watcher {
    #[must_use]
    pub fn kind(&self) -> &Arc<KindSpec> {
        &self.kind
    }

    /// The feed of the changes after the start: the storage watch itself
    /// for an unfiltered watcher; for a filtered one (selectors, or objects
    /// converted to another version) the kind's hub, or its own storage
    /// watch when it starts before the hub's history. A compacted start
    /// arrives as its first item.
    #[must_use]
    pub fn open(&self, store: &Store) -> Feed {
        let storage = store.storage.as_ref();
        let Some(selection) = &self.selection else {
            return Feed::Every {
                watch: storage.watch(self.range_of_every(), self.after),
                kind: Arc::clone(&self.kind),
            };
        };
        let hub = store.hubs.hub(storage, &self.kind, self.after);
        let term = index_term(selection, self.namespace.as_deref(), self.name.as_deref());
        match hub.join(Arc::clone(selection), term, self.after) {
            Some(feed) => Feed::Hub(feed),
            None => Feed::Own {
                watch: storage.watch(selection.range.clone(), self.after),
                kind: Arc::clone(&self.kind),
                selection: Arc::clone(selection),
            },
        }
    }

    fn range_of_every(&self) -> KeyRange {
        match &self.name {
            Some(n) => KeyRange::key(&keys::object_key(&self.kind, self.namespace.as_deref(), n)),
            None => KeyRange::prefix(&keys::collection_prefix(
                &self.kind,
                self.namespace.as_deref(),
            )),
        }
    }

    /// The BOOKMARK that ends the initial events, if asked for.
    #[must_use]
    pub fn initial_events_end(&self) -> Option<Value> {
        let domain = self.initial_events_end.as_deref()?;
        Some(bookmarks::bookmark(&self.kind, self.after, Some(domain)))
    }

    /// Whether periodic BOOKMARKs (and one at the timeout) are sent.
    #[must_use]
    pub fn wants_bookmarks(&self) -> bool {
        self.bookmarks
    }

    /// A progress BOOKMARK at `rev`.
    #[must_use]
    pub fn bookmark(&self, rev: Revision) -> Value {
        bookmarks::bookmark(&self.kind, rev, None)
    }

    /// The ERROR event's `Status` after `err` ended the storage watch, if any.
    #[must_use]
    pub fn ended_by(&self, err: &StorageError) -> Option<Value> {
        bookmarks::ended_by(err)
    }
}
