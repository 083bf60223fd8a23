//! The values a backend reads and returns: revisions, key ranges, a key's
//! record, and the options and results of reads.

use std::fmt;

use bytes::Bytes;

/// A store's logical clock: one value per committed transaction, strictly
/// increasing (etcd's revision). `Revision(0)` is "before anything".
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Revision(pub u64);

impl Revision {
    /// The revision of an empty store.
    pub const ZERO: Revision = Revision(0);

    /// The number, as it appears in a resourceVersion.
    #[must_use]
    pub fn get(self) -> u64 {
        self.0
    }

    /// The revision that follows this one.
    #[must_use]
    pub fn next(self) -> Revision {
        Revision(self.0 + 1)
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The lease a key is attached to: the key is deleted, as an ordinary delete
/// event, when the lease expires (etcd's lease id).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct LeaseId(pub i64);

/// One version of a key, as etcd describes it.
///
/// `key` and `value` may be slices of a backend's memory (the embedded
/// backend's mapped segment files): holding a record copies no bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyValue {
    pub key: Bytes,
    /// The value stored at `mod_revision` (empty for keys-only reads).
    pub value: Bytes,
    /// Revision of the put that created this generation of the key.
    pub create_revision: Revision,
    /// Revision of this version.
    pub mod_revision: Revision,
    /// Puts since the key was (re)created; 1 for a fresh key.
    pub version: u64,
    /// Set when the key was written with a TTL.
    pub lease: Option<LeaseId>,
}

/// A half-open key interval `[start, end)`; an empty `end` means "to the end
/// of the key space".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyRange {
    pub start: Vec<u8>,
    pub end: Vec<u8>,
}

impl KeyRange {
    /// Exactly one key.
    #[must_use]
    pub fn key(key: &[u8]) -> KeyRange {
        let mut end = key.to_vec();
        end.push(0);
        KeyRange {
            start: key.to_vec(),
            end,
        }
    }

    /// Every key starting with `prefix`.
    #[must_use]
    pub fn prefix(prefix: &[u8]) -> KeyRange {
        KeyRange {
            start: prefix.to_vec(),
            end: prefix_end(prefix),
        }
    }

    /// `[start, end)`.
    #[must_use]
    pub fn between(start: &[u8], end: &[u8]) -> KeyRange {
        KeyRange {
            start: start.to_vec(),
            end: end.to_vec(),
        }
    }

    /// Whether `key` lies inside the range.
    #[must_use]
    pub fn contains(&self, key: &[u8]) -> bool {
        key >= self.start.as_slice() && (self.end.is_empty() || key < self.end.as_slice())
    }
}

/// The smallest key greater than every key starting with `prefix` (empty when
/// there is none: the prefix is all 0xff).
#[must_use]
pub fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    Vec::new()
}

/// A key read at a revision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GetResult {
    /// The record, if the key existed at `revision`.
    pub kv: Option<KeyValue>,
    /// The revision the read was served at.
    pub revision: Revision,
}

/// How a range is read (etcd's RangeRequest).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RangeOptions {
    /// Read at this revision instead of the latest.
    pub at: Option<Revision>,
    /// With `at` unset: a read at any revision from this one on will do
    /// (`resourceVersion=0`, `NotOlderThan`), so a cache may answer from
    /// what it holds without asking its backend how far it is. Unset: the
    /// newest revision (a consistent read).
    pub not_older_than: Option<Revision>,
    /// At most this many items (0 = no limit).
    pub limit: usize,
    /// Count every key in the range even past `limit`.
    pub count_total: bool,
    /// Items without their values.
    pub keys_only: bool,
    /// No items, only the exact count of the range.
    pub count_only: bool,
    /// One page of a read through much of the store (a streamed list, an
    /// informer's list): the backend need not keep what it reads resident
    /// (as a key-value store's "do not fill the cache" read option).
    pub bulk: bool,
}

/// A range read at a revision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangeResult {
    /// Records in key order.
    pub items: Vec<KeyValue>,
    /// Whether keys remain past the last item.
    pub more: bool,
    /// Keys in the range at `revision`: exact when `count_total` or
    /// `count_only` was asked or `more` is false, otherwise at least the
    /// number of items plus one.
    pub count: u64,
    /// The revision the read was served at.
    pub revision: Revision,
}

/// What a backend reports about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// The newest committed revision.
    pub current_revision: Revision,
    /// Reads and watches below this revision fail with `Compacted`.
    pub compacted_revision: Revision,
    /// Bytes the backend's data takes (etcd's db size).
    pub size_bytes: u64,
    /// Keys that exist at the current revision.
    pub keys: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_prefix_ends() {
        assert_eq!(prefix_end(b"/a/"), b"/a0");
        assert_eq!(prefix_end(b"a\xff"), b"b");
        assert!(prefix_end(b"\xff\xff").is_empty());
        let r = KeyRange::prefix(b"/a/");
        assert!(r.contains(b"/a/x") && !r.contains(b"/a0") && !r.contains(b"/a"));
        let one = KeyRange::key(b"/k");
        assert!(one.contains(b"/k") && !one.contains(b"/k/"));
        let open = KeyRange::between(b"/m", b"");
        assert!(open.contains(b"\xff") && !open.contains(b"/a"));
    }
}
