//! State shared by the engine handle, the writer thread, the compactor, the
//! expiry reaper and watchers.
//!
//! Lock order: `segments` before `index` (readers hold `segments` across an
//! index lookup so a location they found cannot vanish), `compaction` before
//! either, and `manifest` is taken alone. No lock is held across an fsync
//! except `manifest`, whose holders are the writer (rolling a segment) and the
//! compactor (swapping segments), and `compaction`.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use parking_lot::{Mutex, RwLock};

use crate::codec::Manifest;
use crate::commit::Queue;
use crate::error::{Error, Result};
use crate::housekeeping::Jobs;
use crate::index::{Index, Loc};
use crate::lease::ExpiryQueue;
use crate::options::Options;
use crate::record::KeyValue;
use crate::revision::Revision;
use crate::segment::Segment;
use crate::watch::hub::Hub;

/// Mapped segments by id. Looked up once per record read, so it hashes its
/// small integer ids with one multiplication instead of SipHash.
pub(crate) type SegmentTable = HashMap<u32, Arc<Segment>, BuildHasherDefault<IdHasher>>;

/// Fibonacci hashing of a `u32` id (spreads sequential ids over the high bits
/// hashbrown uses).
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u32(&mut self, id: u32) {
        self.0 = u64::from(id).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

pub(crate) struct Shared {
    pub dir: PathBuf,
    pub options: Options,
    pub read_only: bool,
    pub segments: RwLock<SegmentTable>,
    pub index: RwLock<Index>,
    /// Newest revision visible to readers (index updated before this moves).
    pub current: AtomicU64,
    /// Reads below this fail; set before the index is compacted.
    pub compacted: AtomicU64,
    pub hub: Hub,
    /// The on-disk manifest as last written.
    pub manifest: Mutex<Manifest>,
    pub queue: Queue,
    pub expiry: ExpiryQueue,
    pub housekeeping: Jobs,
    /// Serialises compaction passes (index compaction and space reclaim).
    pub compaction: Mutex<()>,
    pub closed: AtomicBool,
    /// Set when the writer stopped on an I/O error: the engine then refuses
    /// writes rather than acknowledge anything it could not make durable.
    pub failure: Mutex<Option<String>>,
    /// What commits and compactions took (read by whoever reports metrics).
    pub timings: crate::timings::Timings,
}

impl Shared {
    pub(crate) fn current(&self) -> u64 {
        self.current.load(Ordering::Acquire)
    }

    pub(crate) fn compacted(&self) -> u64 {
        self.compacted.load(Ordering::Acquire)
    }

    /// The revision a read at `at` is served at, or why it cannot be.
    /// Call while holding the index read lock, so a compaction cannot slip in
    /// between the check and the read.
    pub(crate) fn resolve_locked(&self, at: Option<Revision>) -> Result<u64> {
        let current = self.current();
        let rev = at.map_or(current, Revision::get);
        let compacted = self.compacted();
        if rev < compacted {
            return Err(Error::Compacted {
                requested: Revision(rev),
                compacted: Revision(compacted),
            });
        }
        if rev > current {
            return Err(Error::FutureRevision {
                requested: Revision(rev),
                current: Revision(current),
            });
        }
        Ok(rev)
    }

    /// The record a put location holds, at `mod_revision`.
    pub(crate) fn key_value(
        segments: &SegmentTable,
        loc: Loc,
        mod_revision: u64,
    ) -> Option<KeyValue> {
        if loc.is_tombstone() {
            return None;
        }
        segments
            .get(&loc.segment())?
            .key_value(loc.offset, mod_revision)
    }

    /// Counts dropped versions against their segments.
    pub(crate) fn note_dead(segments: &SegmentTable, locs: &[Loc]) {
        for loc in locs {
            if let Some(seg) = segments.get(&loc.segment()) {
                seg.dead_ops.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    pub(crate) fn check_writable(&self) -> Result<()> {
        if self.read_only {
            return Err(Error::ReadOnly);
        }
        if let Some(stopped) = self.writes_stopped() {
            return Err(stopped);
        }
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::Closed);
        }
        Ok(())
    }

    /// The error every write gets once the writer stopped after a failure
    /// (an I/O error naming the first failure, not "closed": the server
    /// answers it as an internal error, not as shutting down).
    pub(crate) fn writes_stopped(&self) -> Option<Error> {
        let why = self.failure.lock().clone()?;
        Some(Error::Io {
            op: "commit",
            path: self.dir.clone(),
            source: std::io::Error::other(format!(
                "writes stopped after an earlier failure: {why}"
            )),
        })
    }
}
