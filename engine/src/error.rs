//! The engine's one error type: every variant carries facts, not prose.

use std::io;
use std::path::PathBuf;

use crate::record::KeyValue;
use crate::revision::Revision;

/// Result alias used throughout the engine.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the engine.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An operating-system call failed.
    #[error("{op} {path}: {source}")]
    Io {
        /// What the engine was doing ("open", "write", "fdatasync", ...).
        op: &'static str,
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// Bytes on disk do not hold what the format promises.
    #[error("corrupt data in {} at byte offset {offset}: {reason}", file.display())]
    Corrupt {
        /// The damaged file.
        file: PathBuf,
        /// Byte offset of the first bad byte or record in that file.
        offset: u64,
        /// What was wrong.
        reason: String,
    },
    /// A file was written by a newer (or unknown) format version.
    #[error("{} has format version {found}; this build reads version {supported}", file.display())]
    UnsupportedFormat {
        /// The file.
        file: PathBuf,
        /// Version found in its header.
        found: u32,
        /// Version this build reads and writes.
        supported: u32,
    },
    /// Another process holds the data directory's write lock.
    #[error("data directory is locked by another process ({holder}); lock file {}", lock_file.display())]
    Locked {
        /// The lock file.
        lock_file: PathBuf,
        /// What the holder wrote into the lock file (pid, start time).
        holder: String,
    },
    /// The requested revision is older than the compaction point.
    #[error("revision {requested} has been compacted; the oldest readable revision is {compacted}")]
    Compacted {
        /// The revision asked for.
        requested: Revision,
        /// The current compaction revision.
        compacted: Revision,
    },
    /// The requested revision has not been written yet.
    #[error("revision {requested} is newer than the current revision {current}")]
    FutureRevision {
        /// The revision asked for.
        requested: Revision,
        /// The newest committed revision.
        current: Revision,
    },
    /// A transaction guard did not hold; nothing was written.
    #[error("transaction guard {index} failed")]
    GuardFailed {
        /// Position of the failed guard in the transaction's guard list.
        index: usize,
        /// The key's current record (`None` when the key is absent).
        current: Option<Box<KeyValue>>,
    },
    /// A watcher fell too far behind the writers and was ended.
    #[error(
        "watcher fell more than {buffered} commit batches behind and was ended; re-read and watch again"
    )]
    Lagged {
        /// How many batches its buffer held.
        buffered: usize,
    },
    /// The engine was closed (or its writer stopped after an I/O failure).
    #[error("the engine is closed")]
    Closed,
    /// A write was attempted on a read-only handle.
    #[error("the engine was opened read-only")]
    ReadOnly,
    /// An argument was out of range (empty key, oversized transaction, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

impl Error {
    /// An fsync or fdatasync failed: the kernel may have dropped the dirty
    /// pages, so what was written since the last good sync is in doubt.
    pub(crate) fn is_failed_sync(&self) -> bool {
        matches!(self, Error::Io { op, .. } if op.starts_with("fsync") || op.starts_with("fdatasync"))
    }

    pub(crate) fn io(op: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Error {
        Error::Io {
            op,
            path: path.into(),
            source,
        }
    }

    pub(crate) fn corrupt(
        file: impl Into<PathBuf>,
        offset: u64,
        reason: impl Into<String>,
    ) -> Error {
        Error::Corrupt {
            file: file.into(),
            offset,
            reason: reason.into(),
        }
    }
}
