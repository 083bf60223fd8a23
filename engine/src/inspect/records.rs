//! What reading the log yields: records and ops as stored, the views that
//! filter them, and the torn tail a read can end at.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::record::EventKind;
use crate::revision::Revision;

/// Which ops of the log a read shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// Every op stored in the segment files, including versions compaction
    /// dropped whose space has not been reclaimed yet.
    Physical,
    /// The versions the engine holds: everything after the compaction point
    /// and, at or below it, each key's version visible at it.
    Retained,
    /// The state at one revision: each key's version visible there (deletes
    /// and shadowed versions left out).
    At(Revision),
}

/// What [`crate::inspect::Log::read`] visits.
#[derive(Clone, Copy, Debug)]
pub struct LogFilter {
    /// First revision shown.
    pub from: Revision,
    /// Last revision shown (inclusive).
    pub to: Revision,
    /// Which ops.
    pub view: View,
}

impl Default for LogFilter {
    fn default() -> Self {
        LogFilter {
            from: Revision::ZERO,
            to: Revision(u64::MAX),
            view: View::Retained,
        }
    }
}

/// One op of a record, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogOp<'a> {
    /// Put or delete.
    pub kind: EventKind,
    /// The key.
    pub key: &'a [u8],
    /// The value (empty for a delete).
    pub value: &'a [u8],
    /// Revision that created this generation of the key (0 for a delete).
    pub create_revision: Revision,
    /// Puts since the key was (re)created (0 for a delete).
    pub version: u64,
    /// Expiry, when the key was written with a TTL.
    pub expires_at: Option<SystemTime>,
    /// Byte offset of the op's header in the segment file.
    pub offset: u64,
    /// Whether the engine still holds this version (see [`View::Retained`]).
    pub retained: bool,
}

/// One transaction record, with the ops the read's view shows.
#[derive(Clone, Debug)]
pub struct LogRecord<'a> {
    /// The segment file.
    pub file: &'a Path,
    /// Byte offset of the record in it.
    pub offset: u64,
    /// Bytes the record occupies.
    pub len: u64,
    /// The transaction's revision.
    pub revision: Revision,
    /// Its commit time.
    pub time: SystemTime,
    /// Ops stored in the record.
    pub stored_ops: u32,
    /// Ops shown (never empty: records without any are skipped).
    pub ops: Vec<LogOp<'a>>,
}

/// Bytes at the end of the last segment that do not form a valid record and
/// are followed by none: an interrupted, never acknowledged write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TornTail {
    /// The last segment.
    pub file: PathBuf,
    /// Where the valid records end.
    pub offset: u64,
    /// Bytes after that.
    pub bytes: u64,
    /// Why the record there is not valid.
    pub reason: String,
}

/// What a read found.
#[derive(Clone, Debug, Default)]
pub struct LogSummary {
    /// Records visited.
    pub records: u64,
    /// Ops visited.
    pub ops: u64,
    /// The torn tail the read stopped at, if any.
    pub torn_tail: Option<TornTail>,
}
