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
    let event_type = decide(ev, new_ok, old_ok, selector.is_some())?;
    Some((event_type, record(kind, ev, event_type)?))
}

/// The type of the watch event `ev` is for a watcher, given whether its new
/// and previous records are selected; `selecting` when a selector applies.
#[must_use]
pub fn decide(ev: &Event, new_ok: bool, old_ok: bool, selecting: bool) -> Option<EventType> {
    match (ev.kind, &ev.kv, &ev.prev) {
        (EventKind::Put, Some(_), _) if new_ok && old_ok => Some(EventType::Modified),
        (EventKind::Put, Some(_), _) if new_ok => Some(EventType::Added),
        // A put whose new state no longer matches deletes it for this
        // watcher; a delete always does.
        (_, _, Some(_)) if old_ok && (selecting || ev.kind == EventKind::Delete) => {
            Some(EventType::Deleted)
        }
        _ => None,
    }
}

/// The record a watch event of `event_type` for `ev` carries.
#[must_use]
pub fn record<'a>(
    kind: &KindSpec,
    ev: &'a Event,
    event_type: EventType,
) -> Option<Cow<'a, KeyValue>> {
    match (event_type, &ev.kv, &ev.prev) {
        // A deleted object is served as its last state at the delete's revision.
        (EventType::Deleted, _, Some(prev)) => Some(Cow::Owned(KeyValue {
            mod_revision: ev.revision,
            value: if prev.value.is_empty() {
                unreadable_last_state(kind, &ev.key)
            } else {
                prev.value.clone()
            },
            ..prev.clone()
        })),
        (_, Some(kv), _) => Some(Cow::Borrowed(kv)),
        _ => None,
    }
}

/// What can be said of a deleted object whose last state could not be
/// read (storage left its value empty): its kind, name and namespace.
fn unreadable_last_state(kind: &KindSpec, key: &[u8]) -> bytes::Bytes {
    let rest = key
        .strip_prefix(kind.storage.prefix.as_bytes())
        .unwrap_or(key);
    let rest = String::from_utf8_lossy(rest);
    let mut meta = serde_json::Map::new();
    match rest.split_once('/') {
        Some((ns, name)) if kind.namespaced => {
            meta.insert("name".into(), name.into());
            meta.insert("namespace".into(), ns.into());
        }
        _ => {
            meta.insert("name".into(), rest.as_ref().into());
        }
    }
    let obj = serde_json::json!({
        "apiVersion": kind.storage.api_version,
        "kind": kind.kind,
        "metadata": meta,
    });
    serde_json::to_vec(&obj)
        .expect("a JSON value always serializes")
        .into()
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::*;
    use crate::api::kinds;
    use crate::api::selectors::LabelSelector;
    use crate::config::{Config, Flags};
    use crate::storage::Revision;

    fn configmaps() -> std::sync::Arc<KindSpec> {
        let config = Config::from(<Flags as clap::Parser>::parse_from(["cairn-apiserver"]));
        kinds::builtin(&config)
            .lookup("", "v1", "configmaps")
            .expect("kind")
    }

    fn record(label: &str, rev: u64) -> KeyValue {
        let json = format!(
            r#"{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"a","namespace":"d","labels":{{"a":"{label}"}}}}}}"#
        );
        KeyValue {
            key: Bytes::from_static(b"/registry/configmaps/d/a"),
            value: Bytes::from(json),
            create_revision: Revision(1),
            mod_revision: Revision(rev),
            version: rev,
            lease: None,
        }
    }

    fn event(kind: EventKind, kv: Option<KeyValue>, prev: Option<KeyValue>) -> Event {
        Event {
            kind,
            key: Bytes::from_static(b"/registry/configmaps/d/a"),
            revision: Revision(9),
            kv,
            prev,
        }
    }

    fn types(ev: &Event, selector: Option<&ListOptions>) -> Option<(EventType, Revision)> {
        translate(&configmaps(), ev, selector).map(|(t, kv)| (t, kv.mod_revision))
    }

    #[test]
    fn unfiltered_watchers_get_every_put_and_delete() {
        let update = event(EventKind::Put, Some(record("1", 9)), Some(record("1", 5)));
        let create = event(EventKind::Put, Some(record("1", 9)), None);
        let delete = event(EventKind::Delete, None, Some(record("1", 5)));
        assert_eq!(
            types(&update, None),
            Some((EventType::Modified, Revision(9)))
        );
        assert_eq!(types(&create, None), Some((EventType::Added, Revision(9))));
        // Served as its last state at the delete's revision.
        assert_eq!(
            types(&delete, None),
            Some((EventType::Deleted, Revision(9)))
        );
        assert_eq!(types(&event(EventKind::Delete, None, None), None), None);
    }

    #[test]
    fn selectors_turn_transitions_into_added_and_deleted() {
        let opts = ListOptions {
            label: Some(LabelSelector::parse("a=1").expect("selector")),
            ..ListOptions::default()
        };
        let enters = event(EventKind::Put, Some(record("1", 9)), Some(record("2", 5)));
        let leaves = event(EventKind::Put, Some(record("2", 9)), Some(record("1", 5)));
        let stays_out = event(EventKind::Put, Some(record("2", 9)), Some(record("2", 5)));
        let stays_in = event(EventKind::Put, Some(record("1", 9)), Some(record("1", 5)));
        let sel = Some(&opts);
        assert_eq!(types(&enters, sel), Some((EventType::Added, Revision(9))));
        assert_eq!(types(&leaves, sel), Some((EventType::Deleted, Revision(9))));
        assert_eq!(types(&stays_out, sel), None);
        assert_eq!(
            types(&stays_in, sel),
            Some((EventType::Modified, Revision(9)))
        );
    }
}
