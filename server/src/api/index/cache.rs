//! The attributes of a kind's stored records by key, for lists with
//! selectors: a record whose version is known is tested without parsing
//! it; one read for the first time (or changed since) is decoded once and
//! remembered. A storage watch of the kind drops deleted keys, so the cache
//! holds what is stored, not what once was.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

use bytes::Bytes;
use parking_lot::{Mutex, RwLock};

use crate::api::index::Attributes;
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::storage::{EventKind, KeyRange, KeyValue, Revision, Storage};

/// A record's newest version seen and its attributes (`None`: unreadable).
type Known = (Revision, Option<Arc<Attributes>>);

/// One kind's (served version's) cache.
pub struct AttrCache {
    kind: Arc<KindSpec>,
    /// Cleared when its watch ends: deletions are no longer seen, so the
    /// next list starts a new cache.
    watched: AtomicBool,
    /// Key → the newest version seen and its attributes (`None`:
    /// unreadable as the kind).
    by_key: RwLock<HashMap<Bytes, Known>>,
}

impl AttrCache {
    /// The attributes of `kv`, decoding it only when this version is new.
    pub fn attrs(&self, kv: &KeyValue) -> Option<Arc<Attributes>> {
        if let Some((rev, attrs)) = self.by_key.read().get(&kv.key)
            && *rev == kv.mod_revision
        {
            return attrs.clone();
        }
        let attrs = Attributes::of_record(&self.kind, kv);
        let mut by_key = self.by_key.write();
        let newer = by_key
            .get(&kv.key)
            .is_none_or(|(rev, _)| *rev < kv.mod_revision);
        if newer {
            by_key.insert(kv.key.clone(), (kv.mod_revision, attrs.clone()));
        }
        attrs
    }

    fn forget(&self, key: &Bytes, deleted_at: Revision) {
        let mut by_key = self.by_key.write();
        if by_key.get(key).is_some_and(|(rev, _)| *rev < deleted_at) {
            by_key.remove(key);
        }
    }
}

/// The caches of a store, one per kind listed with selectors.
#[derive(Default)]
pub struct AttrCaches {
    caches: Mutex<Vec<Arc<AttrCache>>>,
}

impl AttrCaches {
    /// The cache of `kind`, started (with its watch from `now`) on first use.
    pub fn of(
        &self,
        storage: &Arc<dyn Storage>,
        kind: &Arc<KindSpec>,
        now: Revision,
    ) -> Arc<AttrCache> {
        let mut caches = self.caches.lock();
        // A kind that was replaced (a CRD changed) is served by a new spec.
        caches.retain(|c| Arc::strong_count(&c.kind) > 1 && c.watched.load(Ordering::Acquire));
        if let Some(c) = caches.iter().find(|c| Arc::ptr_eq(&c.kind, kind)) {
            return Arc::clone(c);
        }
        let cache = Arc::new(AttrCache {
            kind: Arc::clone(kind),
            watched: AtomicBool::new(true),
            by_key: RwLock::new(HashMap::new()),
        });
        caches.push(Arc::clone(&cache));
        let range = KeyRange::prefix(&keys::collection_prefix(kind, None));
        tokio::spawn(forget_deleted(
            Arc::downgrade(&cache),
            Arc::clone(storage),
            range,
            now,
        ));
        cache
    }
}

async fn forget_deleted(
    cache: Weak<AttrCache>,
    storage: Arc<dyn Storage>,
    range: KeyRange,
    after: Revision,
) {
    let mut watch = storage.watch(range, after);
    while let Some(Ok(events)) = watch.next_batch().await {
        let Some(cache) = cache.upgrade() else { return };
        for ev in events.iter().filter(|e| e.kind == EventKind::Delete) {
            cache.forget(&ev.key, ev.revision);
        }
    }
    // The watch ended (compacted, lagged, closed): the next list starts a
    // new cache rather than keep keys whose deletion went unseen.
    if let Some(cache) = cache.upgrade() {
        cache.watched.store(false, Ordering::Release);
    }
}
