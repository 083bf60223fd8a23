//! A bounded cache of objects' protobuf messages by (kind, key, mod
//! revision). Stored objects are JSON; a protobuf list would parse and
//! re-encode every item on every request, while JSON lists splice stored
//! bytes. A stored version never changes, so its encoding can be kept;
//! entries leave oldest first once the cache holds `BUDGET` bytes.

use std::collections::{HashMap, VecDeque};
use std::sync::LazyLock;

use bytes::Bytes;
use parking_lot::Mutex;

/// Bytes of encoded messages the cache holds at most.
const BUDGET: usize = 256 << 20;

/// (kind id, storage key, mod revision).
type Key = (u64, Bytes, u64);

#[derive(Default)]
struct Inner {
    map: HashMap<Key, Bytes>,
    order: VecDeque<Key>,
    bytes: usize,
}

/// The process's cache.
pub struct MessageCache {
    inner: Mutex<Inner>,
    budget: usize,
}

static SHARED: LazyLock<MessageCache> = LazyLock::new(|| MessageCache::new(BUDGET));

impl MessageCache {
    #[must_use]
    pub fn new(budget: usize) -> MessageCache {
        MessageCache {
            inner: Mutex::new(Inner::default()),
            budget,
        }
    }

    /// The cache every request shares.
    #[must_use]
    pub fn shared() -> &'static MessageCache {
        &SHARED
    }

    #[must_use]
    pub fn get(&self, kind: u64, key: &Bytes, rev: u64) -> Option<Bytes> {
        self.inner
            .lock()
            .map
            .get(&(kind, key.clone(), rev))
            .cloned()
    }

    pub fn put(&self, kind: u64, key: Bytes, rev: u64, message: Bytes) {
        let cost = message.len() + key.len() + 64;
        if cost > self.budget {
            return;
        }
        let mut inner = self.inner.lock();
        let k = (kind, key, rev);
        if inner.map.contains_key(&k) {
            return;
        }
        while inner.bytes + cost > self.budget {
            let Some(old) = inner.order.pop_front() else {
                break;
            };
            if let Some(m) = inner.map.remove(&old) {
                inner.bytes -= m.len() + old.1.len() + 64;
            }
        }
        inner.bytes += cost;
        inner.order.push_back(k.clone());
        inner.map.insert(k, message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_within_budget_dropping_oldest_first() {
        let cache = MessageCache::new(3 * (100 + 2 + 64));
        for i in 0..5u64 {
            cache.put(1, Bytes::from_static(b"/k"), i, Bytes::from(vec![0; 100]));
        }
        assert!(cache.get(1, &Bytes::from_static(b"/k"), 0).is_none());
        assert!(cache.get(1, &Bytes::from_static(b"/k"), 1).is_none());
        for i in 2..5 {
            assert!(cache.get(1, &Bytes::from_static(b"/k"), i).is_some());
        }
        assert!(cache.get(2, &Bytes::from_static(b"/k"), 4).is_none());
    }
}
