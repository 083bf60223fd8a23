//! A bounded cache of objects' protobuf messages by (kind, key), each for
//! one mod revision. Stored objects are JSON; a protobuf list would parse
//! and re-encode every item on every request, while JSON lists splice
//! stored bytes. A stored version never changes, so its encoding can be
//! kept; a newer version replaces it, and entries leave oldest first once
//! the cache holds `BUDGET` bytes. Lists look their items up under one lock.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::LazyLock;

use bytes::Bytes;
use parking_lot::Mutex;

/// Bytes of encoded messages the cache holds at most.
const BUDGET: usize = 256 << 20;
/// What an entry costs besides its message and key (map and queue slots).
const OVERHEAD: usize = 64;

/// A multiply-rotate hasher: keys are storage keys the server wrote, so
/// SipHash's flooding resistance buys nothing on this per-item hot path.
#[derive(Default)]
pub struct FastHasher(u64);

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let word = u64::from_le_bytes(c.try_into().expect("eight bytes"));
            self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// (kind id, storage key).
type Key = (u64, Bytes);

#[derive(Default)]
struct Inner {
    map: HashMap<Key, (u64, Bytes), BuildHasherDefault<FastHasher>>,
    /// Insertion order, with the revision inserted (stale when replaced).
    order: VecDeque<(Key, u64)>,
    bytes: usize,
}

impl Inner {
    fn put(&mut self, budget: usize, key: Key, rev: u64, message: Bytes) {
        let cost = message.len() + key.1.len() + OVERHEAD;
        if cost > budget {
            return;
        }
        if let Some((old_rev, old)) = self.map.get(&key) {
            if *old_rev >= rev {
                return;
            }
            self.bytes -= old.len() + key.1.len() + OVERHEAD;
            self.map.remove(&key);
        }
        while self.bytes + cost > budget {
            let Some((old_key, old_rev)) = self.order.pop_front() else {
                break;
            };
            if self.map.get(&old_key).is_some_and(|(r, _)| *r == old_rev)
                && let Some((_, m)) = self.map.remove(&old_key)
            {
                self.bytes -= m.len() + old_key.1.len() + OVERHEAD;
            }
        }
        self.bytes += cost;
        self.order.push_back((key.clone(), rev));
        self.map.insert(key, (rev, message));
    }
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

    /// The cached messages of `(key, rev)` pairs, `None` where absent.
    pub fn get_many<'a>(
        &self,
        kind: u64,
        wanted: impl Iterator<Item = (&'a Bytes, u64)>,
    ) -> Vec<Option<Bytes>> {
        let inner = self.inner.lock();
        wanted
            .map(|(key, rev)| {
                inner
                    .map
                    .get(&(kind, key.clone()))
                    .filter(|(r, _)| *r == rev)
                    .map(|(_, m)| m.clone())
            })
            .collect()
    }

    /// Keeps messages of `(key, rev)`.
    pub fn put_many(&self, kind: u64, entries: impl Iterator<Item = (Bytes, u64, Bytes)>) {
        let mut inner = self.inner.lock();
        inner.map.reserve(entries.size_hint().0);
        for (key, rev, message) in entries {
            // Owned, not a slice of a log segment that it would pin.
            let key = Bytes::copy_from_slice(&key);
            inner.put(self.budget, (kind, key), rev, message);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: &'static [u8]) -> Bytes {
        Bytes::from_static(k)
    }

    fn get(cache: &MessageCache, k: &'static [u8], rev: u64) -> Option<Bytes> {
        cache.get_many(1, [(&key(k), rev)].into_iter()).remove(0)
    }

    #[test]
    fn keeps_within_budget_dropping_oldest_first() {
        let cache = MessageCache::new(3 * (100 + 2 + OVERHEAD));
        for k in [b"/a", b"/b", b"/c", b"/d", b"/e"] {
            cache.put_many(1, [(key(k), 1, Bytes::from(vec![0; 100]))].into_iter());
        }
        assert!(get(&cache, b"/a", 1).is_none());
        assert!(get(&cache, b"/b", 1).is_none());
        for k in [b"/c", b"/d", b"/e"] {
            assert!(get(&cache, k, 1).is_some());
        }
        assert!(cache.get_many(2, [(&key(b"/e"), 1)].into_iter())[0].is_none());
    }

    #[test]
    fn a_newer_revision_replaces_the_older() {
        let cache = MessageCache::new(1 << 20);
        cache.put_many(1, [(key(b"/a"), 1, Bytes::from_static(b"one"))].into_iter());
        cache.put_many(1, [(key(b"/a"), 2, Bytes::from_static(b"two"))].into_iter());
        assert!(get(&cache, b"/a", 1).is_none());
        assert_eq!(get(&cache, b"/a", 2).as_deref(), Some(&b"two"[..]));
        cache.put_many(1, [(key(b"/a"), 1, Bytes::from_static(b"one"))].into_iter());
        assert_eq!(get(&cache, b"/a", 2).as_deref(), Some(&b"two"[..]));
        assert_eq!(cache.inner.lock().bytes, 3 + 2 + OVERHEAD);
    }
}
