//! An informer's objects kept in memory, each as a controller wants it
//! (decoded, or projected to the few fields it reads), by storage key.

use std::collections::BTreeMap;

use bytes::Bytes;

use super::Update;
use crate::storage::{KeyValue, Revision};

/// The objects an informer has reported, as `project` makes them; objects
/// it makes nothing of are not kept.
pub struct Cache<T> {
    project: fn(&KeyValue) -> Option<T>,
    items: BTreeMap<Bytes, T>,
    /// The revision of the last list or change applied; `None` until the
    /// first list is complete.
    synced: Option<Revision>,
}

impl<T> Cache<T> {
    #[must_use]
    pub fn new(project: fn(&KeyValue) -> Option<T>) -> Cache<T> {
        Cache {
            project,
            items: BTreeMap::new(),
            synced: None,
        }
    }

    /// Applies an update; returns whether the cached state changed (a
    /// completed list counts as a change).
    pub fn apply(&mut self, update: Update) -> bool {
        match update {
            Update::Reset => {
                self.items.clear();
                self.synced = None;
                false
            }
            Update::Put { kv, .. } => {
                let revision = kv.mod_revision;
                let changed = match (self.project)(&kv) {
                    Some(item) => {
                        // A copy: the key read from storage may be a slice
                        // of a log segment, which it would keep on disk
                        // for as long as the object lives.
                        self.items.insert(Bytes::copy_from_slice(&kv.key), item);
                        true
                    }
                    None => self.items.remove(&kv.key).is_some(),
                };
                self.advance(revision);
                changed
            }
            Update::Deleted { key, revision, .. } => {
                let changed = self.items.remove(&key).is_some();
                self.advance(revision);
                changed
            }
            Update::Synced { revision } => {
                self.synced = Some(revision);
                true
            }
        }
    }

    fn advance(&mut self, revision: Revision) {
        if let Some(synced) = &mut self.synced {
            *synced = (*synced).max(revision);
        }
    }

    /// Whether a complete list has been applied.
    #[must_use]
    pub fn is_synced(&self) -> bool {
        self.synced.is_some()
    }

    /// The revision of the last list or change applied (`None` before the
    /// first list).
    #[must_use]
    pub fn revision(&self) -> Option<Revision> {
        self.synced
    }

    /// The object stored at `key`, if cached.
    #[must_use]
    pub fn get(&self, key: &[u8]) -> Option<&T> {
        self.items.get(key)
    }

    /// The cached objects, in key order.
    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.items.values()
    }

    /// The number of cached objects.
    #[must_use]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}
