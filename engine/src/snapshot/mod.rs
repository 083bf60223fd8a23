//! Snapshots: one file holding the state of a data directory at one
//! revision, with its own checksum, and its restore into a new directory.
//!
//! A snapshot at revision R holds every key visible at R, each with its
//! create_revision, mod_revision, version and expiry, as records grouped by
//! mod_revision with their original commit times. Restoring writes those
//! records, at their original revisions, into fresh segments and sets the
//! compaction point to R: the restored directory's current revision is R,
//! reads at R see exactly what the source saw, reads below R are
//! `Compacted`, and the next commit gets R + 1. History before R is not
//! kept.
//!
//! A history snapshot (`Contents::History`, what `cairn-store snapshot save`
//! writes by default) holds instead every version the source retains up to
//! R, as etcd's snapshots keep MVCC history: each key's version visible at
//! the source's compaction point C and every record after C up to R,
//! deletes included. Its restore sets the compaction point to C, so reads
//! between C and R, `dump` and watches from there see what the source had.
//! The byte layout is in `FORMAT.md` ("Snapshot file").

mod format;
mod restore;
mod save;

use std::path::PathBuf;
use std::time::SystemTime;

use crate::revision::Revision;

pub use restore::{restore, verify};
pub use save::save;

/// What a snapshot keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contents {
    /// Each key's version visible at the snapshot's revision.
    State,
    /// Every version the source retains up to the snapshot's revision.
    History,
}

/// What a snapshot file holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotInfo {
    /// The file.
    pub file: PathBuf,
    /// The revision whose state it holds.
    pub revision: Revision,
    /// The source directory's compaction point when it was saved (that of
    /// the restored directory, for a history snapshot).
    pub source_compacted: Revision,
    /// What it keeps.
    pub contents: Contents,
    /// When it was saved.
    pub created: SystemTime,
    /// Keys (one op each).
    pub keys: u64,
    /// Records (one per distinct mod_revision).
    pub records: u64,
    /// Size of the file.
    pub bytes: u64,
}
