//! Per-segment facts of an open engine, for tools.

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use crate::engine::Engine;
use crate::revision::Revision;
use crate::segment::sidecar_path;

/// One segment file as the engine sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SegmentInfo {
    /// Segment id.
    pub id: u64,
    /// The file.
    pub file: PathBuf,
    /// The segment commits are appended to (the last one).
    pub active: bool,
    /// Bytes of whole, valid records (header included).
    pub bytes: u64,
    /// The file's length on disk: longer than `bytes` when the active
    /// segment holds zeros ahead of its appends, or when a torn tail follows
    /// the valid records (a read-only open leaves it in place;
    /// [`crate::inspect::torn_tail`] tells which).
    pub file_bytes: u64,
    /// Transaction records.
    pub records: u64,
    /// Ops in them.
    pub ops: u64,
    /// Ops compaction dropped from the index (their space is reclaimable).
    pub dropped_ops: u64,
    /// Revision of the first record.
    pub first_revision: Option<Revision>,
    /// Revision of the last record.
    pub last_revision: Option<Revision>,
    /// Estimated bytes a rewrite would give back.
    pub reclaimable_bytes: u64,
    /// Whether its sidecar file exists.
    pub sidecar: bool,
}

impl Engine {
    /// The segments, in replay order (the last is the active one).
    #[must_use]
    pub fn segments(&self) -> Vec<SegmentInfo> {
        let shared = self.shared();
        let ids = shared.manifest.lock().segments.clone();
        let segments = shared.segments.read();
        let count = ids.len();
        ids.iter()
            .enumerate()
            .filter_map(|(i, &id)| {
                let seg = segments.get(&u32::try_from(id).ok()?)?;
                let records = seg.records.load(Ordering::Relaxed);
                let rev = |r: u64| (records > 0).then_some(Revision(r));
                Some(SegmentInfo {
                    id,
                    file: seg.path.clone(),
                    active: i + 1 == count,
                    bytes: seg.committed(),
                    file_bytes: std::fs::metadata(&seg.path).map_or(0, |m| m.len()),
                    records,
                    ops: seg.ops.load(Ordering::Relaxed),
                    dropped_ops: seg.dead_ops.load(Ordering::Relaxed),
                    first_revision: rev(seg.first_revision.load(Ordering::Relaxed)),
                    last_revision: rev(seg.last_revision.load(Ordering::Relaxed)),
                    reclaimable_bytes: seg.reclaimable_bytes(),
                    sidecar: sidecar_path(&shared.dir, id).exists(),
                })
            })
            .collect()
    }
}
