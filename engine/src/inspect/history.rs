//! A key's retained history, version by version, with commit times.

use std::time::SystemTime;

use crate::codec::{FILE_HEADER_LEN, RECORD_PREFIX_LEN, u32_at, u64_at};
use crate::engine::Engine;
use crate::index::Loc;
use crate::record::{EventKind, KeyValue, time_from_micros};
use crate::revision::Revision;
use crate::shared::{SegmentTable, Shared};

/// One retained version of a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyVersion {
    /// Put, or delete (a tombstone).
    pub kind: EventKind,
    /// Revision of the change.
    pub revision: Revision,
    /// Commit time of that revision (`None` only if its record cannot be
    /// found, which the index never allows).
    pub time: Option<SystemTime>,
    /// The record written (puts only).
    pub kv: Option<KeyValue>,
}

impl Engine {
    /// Every version of `key` the engine retains, oldest first: all versions
    /// after the compaction point, and the one visible at it (unless that is
    /// a delete). Empty when the key has none.
    #[must_use]
    pub fn key_history(&self, key: &[u8]) -> Vec<KeyVersion> {
        let shared = self.shared();
        let segments = shared.segments.read();
        let index = shared.index.read();
        let Some(history) = index.history(key) else {
            return Vec::new();
        };
        history
            .versions()
            .iter()
            .map(|v| {
                let micros = index
                    .revlog
                    .between(v.rev, v.rev, 1)
                    .first()
                    .map(|t| t.time_micros)
                    .or_else(|| record_time(&segments, v.loc));
                KeyVersion {
                    kind: if v.loc.is_tombstone() {
                        EventKind::Delete
                    } else {
                        EventKind::Put
                    },
                    revision: Revision(v.rev),
                    time: micros.map(time_from_micros),
                    kv: Shared::key_value(&segments, v.loc, v.rev),
                }
            })
            .collect()
    }
}

/// Commit time of the record holding the op at `loc`, found by hopping from
/// record to record through the segment (only for versions at or below the
/// compaction point, which the revision log no longer lists).
fn record_time(segments: &SegmentTable, loc: Loc) -> Option<u64> {
    let bytes = segments.get(&loc.segment())?.bytes();
    let target = loc.offset as usize;
    let mut pos = FILE_HEADER_LEN;
    loop {
        let end = pos + RECORD_PREFIX_LEN + u32_at(bytes, pos)? as usize;
        if target < end {
            return u64_at(bytes, pos + RECORD_PREFIX_LEN + 8);
        }
        pos = end;
    }
}
