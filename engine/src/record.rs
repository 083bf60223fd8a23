//! Public value types: a key's record, watch events and key ranges.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;

use crate::revision::Revision;

/// One version of a key, as etcd describes it.
///
/// `key` and `value` are slices of the memory-mapped segment file: reading a
/// record copies no value bytes onto the heap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyValue {
    /// The key.
    pub key: Bytes,
    /// The value stored at `mod_revision`.
    pub value: Bytes,
    /// Revision of the put that created this generation of the key.
    pub create_revision: Revision,
    /// Revision of this version.
    pub mod_revision: Revision,
    /// Number of puts since the key was (re)created; 1 for a fresh key.
    pub version: u64,
    /// Wall-clock expiry, when the key was written with a TTL.
    pub expires_at: Option<SystemTime>,
}

/// What happened to a key at a revision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// The key was created or updated.
    Put,
    /// The key was deleted (explicitly or by expiry).
    Delete,
}

/// A change delivered to watchers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// Put or delete.
    pub kind: EventKind,
    /// The key that changed.
    pub key: Bytes,
    /// Revision of the change.
    pub revision: Revision,
    /// The new record (`None` for deletes).
    pub kv: Option<KeyValue>,
    /// The record before the change (`None` when the key did not exist, or when
    /// its previous version was compacted away).
    pub prev: Option<KeyValue>,
}

/// A half-open key interval `[start, end)`; an empty `end` means "to the end
/// of the key space".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyRange {
    /// First key included.
    pub start: Vec<u8>,
    /// First key excluded; empty for unbounded.
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

    /// Every key.
    #[must_use]
    pub fn all() -> KeyRange {
        KeyRange {
            start: Vec::new(),
            end: Vec::new(),
        }
    }

    /// Whether `key` lies inside the range.
    #[must_use]
    pub fn contains(&self, key: &[u8]) -> bool {
        key >= self.start.as_slice() && (self.end.is_empty() || key < self.end.as_slice())
    }
}

/// The smallest key greater than every key starting with `prefix` (empty when
/// no such key exists, i.e. the prefix is all 0xff).
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

pub(crate) fn micros_since_epoch(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

pub(crate) fn time_from_micros(micros: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_micros(micros)
}
