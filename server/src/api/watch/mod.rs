//! What events one watcher gets: where it starts and the initial state it is
//! sent (start.rs), each storage event as a watch event with the stored
//! record it carries (translate.rs), BOOKMARKs and the ERROR that ends it
//! (bookmarks.rs). Encoding and writing the events is the HTTP layer's.

pub mod bookmarks;
pub mod start;
pub mod translate;

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

pub use translate::{EventType, translate};

use crate::api::kind::KindSpec;
use crate::api::store::ListOptions;
use crate::storage::{Event, KeyRange, KeyValue, Revision, Storage, StorageError, Watch};

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
    range: KeyRange,
    opts: ListOptions,
    bookmarks: bool,
    /// The API domain, when the initial events end with a BOOKMARK.
    initial_events_end: Option<String>,
    pub timeout: Option<Duration>,
    /// Translated per watcher (selectors, conversions) rather than once per
    /// commit batch.
    filtered: bool,
}

impl Watcher {
    #[must_use]
    pub fn kind(&self) -> &Arc<KindSpec> {
        &self.kind
    }

    /// The storage watch of the changes after the start; a compacted start
    /// arrives as its first item.
    #[must_use]
    pub fn open(&self, storage: &dyn Storage) -> Watch {
        storage.watch(self.range.clone(), self.after)
    }

    /// Whether events are translated for this watcher alone; otherwise every
    /// such watcher of the kind gets the same events.
    #[must_use]
    pub fn is_filtered(&self) -> bool {
        self.filtered
    }

    /// The watch event `ev` is for this watcher, if any.
    #[must_use]
    pub fn translate<'a>(&self, ev: &'a Event) -> Option<(EventType, Cow<'a, KeyValue>)> {
        translate(&self.kind, ev, self.filtered.then_some(&self.opts))
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
