//! Building the index during replay.
//!
//! Replay meets versions in revision order. Keys are numbered on first sight
//! (a hash map with a fast seeded hash), versions are appended to one flat
//! array, and `finish` groups them per key with a counting sort, so every
//! history is allocated once at its final size. The ordered map is then built
//! in one pass from sorted entries, which packs its nodes full and leaves no
//! freed half-empty nodes in the allocator (`scenarios` benchmark: reopen time
//! and bytes per key).

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

use crate::index::{History, Index, RevLog, Version};

/// A multiply-xor hash over 8-byte words, seeded per process so crafted keys
/// cannot be made to collide ahead of time. Several times faster than SipHash
/// on short keys; replay hashes every op.
#[derive(Clone, Copy)]
struct WordHash {
    seed: u64,
}

impl Default for WordHash {
    fn default() -> Self {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u8(0);
        WordHash {
            seed: h.finish() | 1,
        }
    }
}

struct WordHasher(u64);

const MUL: u64 = 0x9e37_79b9_7f4a_7c15;

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        let h = self.0;
        (h ^ (h >> 29)).wrapping_mul(MUL) ^ (h >> 32)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("8-byte chunk"));
            self.0 = (self.0.rotate_left(23) ^ w).wrapping_mul(MUL);
        }
        let mut tail = [0u8; 8];
        let rest = chunks.remainder();
        tail[..rest.len()].copy_from_slice(rest);
        self.0 = (self.0.rotate_left(23) ^ u64::from_le_bytes(tail) ^ ((rest.len() as u64) << 56))
            .wrapping_mul(MUL);
    }
}

impl BuildHasher for WordHash {
    type Hasher = WordHasher;
    fn build_hasher(&self) -> WordHasher {
        WordHasher(self.seed)
    }
}

/// A key's expiry as replay met it: (key number, expires_at_micros, revision).
type Expiry = (u32, u64, u64);

/// Keys whose newest version expires: (expires_at_micros, key, revision).
pub(crate) type Expiring = Vec<(u64, Vec<u8>, u64)>;

#[derive(Default)]
pub(crate) struct IndexBuilder {
    /// Key → its number.
    ids: HashMap<Box<[u8]>, u32, WordHash>,
    /// Every version met, tagged with its key's number, in revision order.
    versions: Vec<(u32, Version)>,
    /// Every put with an expiry; only those still a key's newest version
    /// when replay ends count.
    expiries: Vec<Expiry>,
    pub revlog: RevLog,
}

impl IndexBuilder {
    /// Appends a version, as `Index::push` does; a put expiring at
    /// `expires_at` (micros, 0: never) is remembered for the expiry queue.
    pub(crate) fn push(&mut self, key: &[u8], v: Version, expires_at: u64) {
        let id = match self.ids.get(key) {
            Some(&id) => id,
            // A delete of a key whose history was compacted away.
            None if v.loc.is_tombstone() => return,
            None => {
                let id = u32::try_from(self.ids.len()).expect("fewer than 4 billion keys");
                self.ids.insert(key.into(), id);
                id
            }
        };
        if expires_at != 0 && !v.loc.is_tombstone() {
            self.expiries.push((id, expires_at, v.rev));
        }
        self.versions.push((id, v));
    }

    /// Sizes the key map and the version list for `total` segments like the
    /// `replayed` ones so far, so a large store's replay does not regrow
    /// them (rehashing every key) as it goes.
    pub(crate) fn expect(&mut self, replayed: usize, total: usize) {
        let scale = |n: usize| (n / replayed.max(1)).saturating_mul(total);
        let (keys, versions) = (scale(self.ids.len()), scale(self.versions.len()));
        self.ids.reserve(keys.saturating_sub(self.ids.len()));
        self.versions
            .reserve(versions.saturating_sub(self.versions.len()));
    }

    /// The index, and the keys whose newest version expires (sorted by
    /// expiry time).
    pub(crate) fn finish(self) -> (Index, Expiring) {
        let keys = self.ids.len();
        let total = self.versions.len();
        // Counting sort of the versions by key number, keeping revision order.
        let mut start = vec![0usize; keys + 1];
        for (id, _) in &self.versions {
            start[*id as usize + 1] += 1;
        }
        for i in 0..keys {
            start[i + 1] += start[i];
        }
        let mut next = start.clone();
        let mut grouped = vec![
            Version {
                rev: 0,
                loc: crate::index::Loc::put(0, 0)
            };
            total
        ];
        for (id, v) in self.versions {
            grouped[next[id as usize]] = v;
            next[id as usize] += 1;
        }
        drop(next);
        // A put's expiry holds while it is its key's newest version.
        let newest = |id: u32| grouped[start[id as usize + 1] - 1].rev;
        let mut expiries = self.expiries;
        expiries.retain(|&(id, _, rev)| newest(id) == rev);
        let expiring = if expiries.is_empty() {
            Vec::new()
        } else {
            let mut names: Vec<&[u8]> = vec![&[]; keys];
            for (key, &id) in &self.ids {
                names[id as usize] = key;
            }
            let mut out: Expiring = expiries
                .into_iter()
                .map(|(id, at, rev)| (at, names[id as usize].to_vec(), rev))
                .collect();
            out.sort_unstable();
            out
        };
        let mut entries: Vec<(Box<[u8]>, History)> = self
            .ids
            .into_iter()
            .map(|(key, id)| {
                let vs = &grouped[start[id as usize]..start[id as usize + 1]];
                let history = if vs.len() == 1 {
                    History::One(vs[0])
                } else {
                    History::Many(vs.to_vec())
                };
                (key, history)
            })
            .collect();
        drop(grouped);
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        (Index::from_sorted(entries, total, self.revlog), expiring)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Loc;

    fn put(rev: u64) -> Version {
        Version {
            rev,
            loc: Loc::put(1, u32::try_from(rev).expect("small")),
        }
    }

    fn del(rev: u64) -> Version {
        Version {
            rev,
            loc: Loc::delete(1, 0),
        }
    }

    #[test]
    fn groups_versions_per_key_in_revision_order() {
        let mut b = IndexBuilder::default();
        b.push(b"b", put(1), 0);
        b.push(b"a", put(2), 0);
        b.push(b"zz", del(3), 0);
        b.push(b"b", put(4), 0);
        b.push(b"a", del(5), 0);
        b.push(b"b", put(6), 0);
        let (idx, expiring) = b.finish();
        assert!(expiring.is_empty());
        let revs = |k: &[u8]| {
            idx.history(k)
                .map(|h| h.versions().iter().map(|v| v.rev).collect::<Vec<_>>())
        };
        assert_eq!(revs(b"a"), Some(vec![2, 5]));
        assert_eq!(revs(b"b"), Some(vec![1, 4, 6]));
        assert_eq!(revs(b"zz"), None, "a delete of an unknown key is dropped");
        assert_eq!((idx.live_keys(), idx.versions()), (1, 5));
    }

    #[test]
    fn only_a_newest_version_keeps_its_expiry() {
        let mut b = IndexBuilder::default();
        b.push(b"kept", put(1), 900);
        b.push(b"rewritten", put(2), 500);
        b.push(b"deleted", put(3), 400);
        b.push(b"later", put(4), 0);
        b.push(b"rewritten", put(5), 0);
        b.push(b"deleted", del(6), 0);
        b.push(b"later", put(7), 300);
        let (_, expiring) = b.finish();
        assert_eq!(
            expiring,
            [(300, b"later".to_vec(), 7), (900, b"kept".to_vec(), 1)]
        );
    }

    #[test]
    fn the_hash_spreads_short_and_long_keys() {
        let h = WordHash::default();
        let hash = |k: &[u8]| {
            let mut s = h.build_hasher();
            s.write(k);
            s.finish()
        };
        assert_ne!(hash(b""), hash(b"\0"));
        assert_ne!(
            hash(b"/registry/events/ns-1/ev-00000001"),
            hash(b"/registry/events/ns-1/ev-00000002")
        );
        let distinct: std::collections::HashSet<u64> = (0..10_000)
            .map(|i| hash(format!("/k/{i}").as_bytes()) >> 57)
            .collect();
        assert_eq!(distinct.len(), 128, "the top 7 bits (hashbrown's tag) vary");
    }
}
