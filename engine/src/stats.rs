//! Counters that describe a store: sizes, key counts, revisions.

use std::sync::atomic::Ordering;

use crate::revision::Revision;
use crate::shared::Shared;

/// A snapshot of the store's counters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Newest committed revision.
    pub current_revision: Revision,
    /// Oldest readable revision.
    pub compacted_revision: Revision,
    /// Keys that exist at the current revision.
    pub live_keys: u64,
    /// Versions held by the index (all keys, tombstones included).
    pub versions: u64,
    /// Transaction records in the segment files.
    pub records: u64,
    /// Retained revisions (watch history).
    pub retained_revisions: u64,
    /// Segment files.
    pub segments: u64,
    /// Bytes in segment files.
    pub bytes_on_disk: u64,
    /// Estimated bytes a rewrite of compacted segments would give back
    /// (each segment's size times its share of dropped ops).
    pub bytes_reclaimable: u64,
    /// Keys waiting to expire.
    pub expiring_keys: u64,
    /// Watches receiving live events.
    pub live_watchers: u64,
}

impl Stats {
    pub(crate) fn collect(shared: &Shared) -> Stats {
        let segments = shared.segments.read();
        let (mut records, mut bytes, mut dead) = (0, 0, 0);
        for s in segments.values() {
            records += s.records.load(Ordering::Relaxed);
            bytes += s.committed();
            dead += s.reclaimable_bytes();
        }
        let index = shared.index.read();
        Stats {
            current_revision: Revision(shared.current()),
            compacted_revision: Revision(shared.compacted()),
            live_keys: index.live_keys() as u64,
            versions: index.versions() as u64,
            records,
            retained_revisions: index.revlog.len() as u64,
            segments: segments.len() as u64,
            bytes_on_disk: bytes,
            bytes_reclaimable: dead,
            expiring_keys: shared.expiry.len() as u64,
            live_watchers: shared.hub.watchers() as u64,
        }
    }
}
