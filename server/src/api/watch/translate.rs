//! One storage event as the watch event a watcher is sent, if any: the same
//! rule for every watcher, with a selector deciding transitions.

use std::borrow::Cow;

use crate::api::kind::KindSpec;
use crate::api::store::read::selected;
use crate::api::store::{ListOptions, Store};
use crate::storage::{Event, EventKind, KeyValue};

/// The `type` of a watch event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventType {
    Added,
    Modified,
    Deleted,
    Bookmark,
    Error,
}

impl EventType {
    /// The name on the wire.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
            EventType::Bookmark => "BOOKMARK",
            EventType::Error => "ERROR",
        }
    }
}

/// The watch event `ev` is for a watcher, with the stored record it carries.
///
/// Without `selector` every put and delete is sent as it is. With one (also
/// given, empty, when objects are converted per watcher: then only readable
/// objects are sent), an object that starts matching is ADDED and one that
/// stops matching is DELETED.
#[must_use]
pub fn translate<'a>(
    kind: &KindSpec,
    ev: &'a Event,
    selector: Option<&ListOptions>,
) -> Option<(EventType, Cow<'a, KeyValue>)> {
    let (new_ok, old_ok) = match selector {
        None => (ev.kv.is_some(), ev.prev.is_some()),
        Some(opts) => {
            let matches = |kv: Option<&KeyValue>| {
                kv.is_some_and(|kv| {
                    Store::decode_served(kind, kv).is_ok_and(|o| selected(kind, &o, opts))
                })
            };
            (matches(ev.kv.as_ref()), matches(ev.prev.as_ref()))
        }
    };
    match (ev.kind, &ev.kv, &ev.prev) {
        (EventKind::Put, Some(kv), _) if new_ok && old_ok => {
            Some((EventType::Modified, Cow::Borrowed(kv)))
        }
        (EventKind::Put, Some(kv), _) if new_ok => Some((EventType::Added, Cow::Borrowed(kv))),
        // A put whose new state no longer matches deletes it for this
        // watcher; a delete always does.
        (_, _, Some(prev)) if old_ok && (selector.is_some() || ev.kind == EventKind::Delete) => {
            // A deleted object is served as its last state at the delete's revision.
            Some((
                EventType::Deleted,
                Cow::Owned(KeyValue {
                    mod_revision: ev.revision,
                    ..prev.clone()
                }),
            ))
        }
        _ => None,
    }
}
