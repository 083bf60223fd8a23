//! The storage boundary's one error type. Each backend maps its own errors
//! here; the API layer maps these to a `Status` in one place
//! (`api::store::storage_error`).

use bytes::Bytes;

use crate::storage::types::{KeyValue, Revision};

/// What a storage operation can fail with.
#[derive(Clone, Debug, thiserror::Error)]
pub enum StorageError {
    /// The revision asked for is older than the compaction point.
    #[error("revision {requested} has been compacted; the oldest readable revision is {compacted}")]
    Compacted {
        requested: Revision,
        compacted: Revision,
    },
    /// The revision asked for has not been written yet.
    #[error("revision {requested} is newer than the current revision {current}")]
    FutureRevision {
        requested: Revision,
        current: Revision,
    },
    /// A transaction guard failed on a key that exists; nothing was written.
    #[error("transaction guard {guard} failed: the key is at revision {}", current.mod_revision)]
    Conflict {
        /// Position of the guard in the transaction.
        guard: usize,
        /// The key's current record, so a caller can decide again without
        /// another read (kube-apiserver's "else get").
        current: Box<KeyValue>,
    },
    /// A transaction guard needed a key that does not exist; nothing was
    /// written.
    #[error("transaction guard {guard} failed: the key does not exist")]
    NotFound { guard: usize },
    /// A watcher fell too far behind the writers and was ended; it must
    /// re-read and watch again.
    #[error("the watcher fell behind the writers and was ended")]
    Lagged,
    /// The backend was closed (the server is stopping, or its writer stopped
    /// after a failure).
    #[error("storage is closed")]
    Closed,
    /// The backend cannot be reached or cannot serve now.
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// The backend did not answer in time.
    #[error("storage timed out: {0}")]
    Timeout(String),
    /// A stored value could not be turned back into what was written (a
    /// transformer failed: wrong key, damaged ciphertext).
    #[error(
        "the value of {} cannot be read: {reason}",
        String::from_utf8_lossy(key)
    )]
    CorruptValue { key: Bytes, reason: String },
    /// Anything else the backend reports (I/O, damaged files, limits).
    #[error("{0}")]
    Internal(String),
}
