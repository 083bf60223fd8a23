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

#[derive(Default)]
pub(crate) struct IndexBuilder {
    /// Key → its number.
    ids: HashMap<Box<[u8]>, u32, WordHash>,
    /// Every version met, tagged with its key's number, in revision order.
    versions: Vec<(u32, Version)>,
    pub revlog: RevLog,
}

impl IndexBuilder {
    /// Appends a version, as `Index::push` does.
    pub(crate) fn push(&mut self, key: &[u8], v: Version) {
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
        self.versions.push((id, v));
    }

    pub(crate) fn finish(self) -> Index {
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
        Index::from_sorted(entries, total, self.revlog)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Loc;

    #[test]
    fn groups_versions_per_key_in_revision_order() {
        let mut b = IndexBuilder::default();
        let put = |rev| Version {
            rev,
            loc: Loc::put(1, u32::try_from(rev).expect("small")),
        };
        let del = |rev| Version {
            rev,
            loc: Loc::delete(1, 0),
        };
        b.push(b"b", put(1));
        b.push(b"a", put(2));
        b.push(b"zz", del(3));
        b.push(b"b", put(4));
        b.push(b"a", del(5));
        b.push(b"b", put(6));
        let idx = b.finish();
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
