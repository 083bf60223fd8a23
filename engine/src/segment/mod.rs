//! Segment files: an append-only run of transaction records, read back through
//! a memory map.
//!
//! A segment is *active* while the writer appends to it and *sealed* once a
//! newer one exists; a sealed segment has a sidecar (`.idx`) holding its
//! records without values, so reopening never reads the values again.

pub(crate) mod recovery;
pub(crate) mod sidecar;
pub(crate) mod writer;
pub(crate) mod zero_fill;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use bytes::Bytes;
use memmap2::{Mmap, MmapOptions, UncheckedAdvice};

use crate::codec::{OP_HEADER_LEN, OpHeader, OpKind};
use crate::error::{Error, Result};
use crate::record::{KeyValue, time_from_micros};
use crate::revision::Revision;

/// File name of segment `id` inside the data directory.
pub(crate) fn segment_path(dir: &Path, id: u64) -> PathBuf {
    dir.join(format!("{id:016x}.seg"))
}

/// File name of the sidecar of segment `id`.
pub(crate) fn sidecar_path(dir: &Path, id: u64) -> PathBuf {
    dir.join(format!("{id:016x}.idx"))
}

/// Owns a segment's mapping; `alive` dies with it, so the housekeeper can
/// tell when no reader holds a byte of a retired segment any more.
struct MapOwner {
    mmap: Mmap,
    _alive: Arc<()>,
}

/// The mapping as `Bytes` hand it out: shared with the segment, which keeps
/// a handle to give the mapped pages back (see [`Segment::release_pages`]).
struct SharedMap(Arc<MapOwner>);

impl AsRef<[u8]> for SharedMap {
    fn as_ref(&self) -> &[u8] {
        &self.0.mmap
    }
}

/// A mapped segment. Readers hold it through an `Arc`; a value handed out as
/// `Bytes` keeps the mapping alive after compaction has unlinked the file.
pub(crate) struct Segment {
    pub id: u32,
    pub path: PathBuf,
    map: Bytes,
    owner: Arc<MapOwner>,
    /// Upgradable while anything (this segment or a value handed out) still
    /// holds the mapping.
    pub mapped: Weak<()>,
    /// Bytes of whole, durable records (the file may be longer while a write
    /// is in flight, never shorter).
    committed: AtomicU64,
    /// Ops written to the segment, and ops of them dropped by compaction.
    /// Counting ops (not bytes) keeps compaction from reading every dropped
    /// op's header; reclaimable bytes are estimated from the average op size.
    pub ops: AtomicU64,
    pub dead_ops: AtomicU64,
    pub records: AtomicU64,
    pub first_revision: AtomicU64,
    pub last_revision: AtomicU64,
    pub sealed: AtomicBool,
}

impl Segment {
    /// Maps `file`. `capacity` may exceed the file's length: the writer
    /// appends with `pwrite` and readers only touch committed bytes, which
    /// lie inside the file.
    pub(crate) fn map(
        id: u32,
        path: PathBuf,
        file: &File,
        capacity: u64,
        committed: u64,
    ) -> Result<Segment> {
        let len = usize::try_from(capacity.max(committed))
            .map_err(|_| Error::InvalidArgument("segment too large".into()))?;
        // SAFETY: segment bytes below `committed` are never rewritten in place
        // (the log is append-only and compaction writes new files), and the
        // engine only reads below `committed`, which lies inside the file.
        let mmap = unsafe { MmapOptions::new().len(len).map(file) }
            .map_err(|e| Error::io("mmap", &path, e))?;
        let alive = Arc::new(());
        let mapped = Arc::downgrade(&alive);
        let owner = Arc::new(MapOwner {
            mmap,
            _alive: alive,
        });
        Ok(Segment {
            id,
            path,
            map: Bytes::from_owner(SharedMap(Arc::clone(&owner))),
            owner,
            mapped,
            committed: AtomicU64::new(committed),
            ops: AtomicU64::new(0),
            dead_ops: AtomicU64::new(0),
            records: AtomicU64::new(0),
            first_revision: AtomicU64::new(0),
            last_revision: AtomicU64::new(0),
            sealed: AtomicBool::new(false),
        })
    }

    pub(crate) fn committed(&self) -> u64 {
        self.committed.load(Ordering::Acquire)
    }

    pub(crate) fn set_committed(&self, len: u64) {
        self.committed.store(len, Ordering::Release);
    }

    /// The committed bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        let n = usize::try_from(self.committed())
            .unwrap_or(usize::MAX)
            .min(self.map.len());
        &self.map[..n]
    }

    /// Unmaps the pages readers faulted in, so they stop counting towards the
    /// process's resident memory; they stay in the kernel's page cache, and
    /// the next read maps them again (a minor fault, no disk read).
    pub(crate) fn release_pages(&self) -> Result<()> {
        // SAFETY: the mapping is a shared, read-only mapping of a file whose
        // bytes below `committed` never change, so MADV_DONTNEED only drops
        // page-table entries: every later read sees the same bytes again,
        // including through slices handed out before the call.
        unsafe { self.owner.mmap.unchecked_advise(UncheckedAdvice::DontNeed) }
            .map_err(|e| Error::io("madvise", &self.path, e))
    }

    /// Records a committed record's revision in the segment's bookkeeping.
    pub(crate) fn note_record(&self, revision: u64, ops: u64) {
        self.ops.fetch_add(ops, Ordering::Relaxed);
        if self.records.fetch_add(1, Ordering::Relaxed) == 0 {
            self.first_revision.store(revision, Ordering::Relaxed);
        }
        self.last_revision.store(revision, Ordering::Relaxed);
    }

    /// Estimated bytes a rewrite would give back.
    pub(crate) fn reclaimable_bytes(&self) -> u64 {
        let ops = self.ops.load(Ordering::Relaxed);
        let dead = self.dead_ops.load(Ordering::Relaxed).min(ops);
        if ops == 0 {
            return 0;
        }
        let len = self.committed();
        u64::try_from(u128::from(len) * u128::from(dead) / u128::from(ops)).unwrap_or(len)
    }

    /// Decodes the op header at `offset`.
    pub(crate) fn op_header(&self, offset: u32) -> Option<OpHeader> {
        OpHeader::decode(self.bytes().get(offset as usize..)?)
    }

    /// The record a put op at `offset` stored, as of `mod_revision`.
    pub(crate) fn key_value(&self, offset: u32, mod_revision: u64) -> Option<KeyValue> {
        let h = self.op_header(offset)?;
        if h.kind != OpKind::Put {
            return None;
        }
        let key_start = offset as usize + OP_HEADER_LEN;
        let value_start = key_start + h.key_len as usize;
        let value_end = value_start + h.value_len as usize;
        if value_end as u64 > self.committed() {
            return None;
        }
        Some(KeyValue {
            key: self.map.slice(key_start..value_start),
            value: self.map.slice(value_start..value_end),
            create_revision: Revision(h.create_revision),
            mod_revision: Revision(mod_revision),
            version: h.version,
            expires_at: (h.expires_at != 0).then(|| time_from_micros(h.expires_at)),
        })
    }

    /// The key stored by the op at `offset`.
    pub(crate) fn key_at(&self, offset: u32) -> Option<Bytes> {
        let h = self.op_header(offset)?;
        let key_start = offset as usize + OP_HEADER_LEN;
        Some(self.map.slice(key_start..key_start + h.key_len as usize))
    }
}
