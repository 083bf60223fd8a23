//! The storage boundary: what the API layer needs from a backend — reads at a
//! revision, guarded transactions, watches from a revision, compaction.
//!
//! Keys, bytes and revisions only; backends know nothing of kinds. The
//! embedded engine is the default backend; the value types are the engine's
//! generic key-value types.

pub mod embedded;

use std::future::Future;
use std::pin::Pin;
use std::time::SystemTime;

pub use cairn_engine::{
    Committed, Error as StorageError, Event, EventKind, Events, GetResult, Guard, KeyRange,
    KeyValue, RangeOptions, RangeResult, Revision, Txn, Watch,
};

/// A boxed future, so `Storage` stays object-safe.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A key-value backend with MVCC revisions.
pub trait Storage: Send + Sync + 'static {
    /// The key at a revision (latest when `None`).
    fn get(&self, key: &[u8], at: Option<Revision>) -> Result<GetResult, StorageError>;
    /// Keys of a range at a revision.
    fn range(&self, range: &KeyRange, opts: RangeOptions) -> Result<RangeResult, StorageError>;
    /// Commits a guarded transaction once durable.
    fn commit(&self, txn: Txn) -> BoxFuture<'_, Result<Committed, StorageError>>;
    /// Changes to a range after a revision.
    fn watch(&self, range: KeyRange, after: Revision) -> Result<Watch, StorageError>;
    fn current_revision(&self) -> Revision;
    fn compacted_revision(&self) -> Revision;
    /// Forgets history before `at`.
    fn compact(&self, at: Revision) -> Result<(), StorageError>;
    /// The newest revision committed at or before `time`.
    fn revision_at(&self, time: SystemTime) -> Option<Revision>;
    /// `Ok` while the backend can take writes (the readiness check).
    fn health(&self) -> Result<(), String>;
    /// Stops background work and ends watches.
    fn close(&self);
}
