//! The storage boundary, owned by the server: what the API layer needs from
//! a backend — reads at a revision, compare-and-swap transactions, watches
//! from a revision, compaction, TTLs — in the server's own types.
//!
//! Keys, bytes and revisions only; backends know nothing of kinds. The
//! shapes are etcd v3's (revisions, mod-revision compares, range with
//! limit/count/more, watches with previous values, leases), so an etcd
//! backend implements the same trait as `embedded` (cairn-engine, the
//! default). `transform` wraps any backend with value transformers
//! (encryption at rest); `conformance` is the suite every backend passes.

pub mod backend;
pub mod cache;
pub mod conformance;
pub mod embedded;
pub mod encryption;
pub mod error;
pub mod etcd;
pub mod figures;
pub mod grpc;
pub mod kms;
pub mod migrate;
pub mod reply;
pub mod transform;
pub mod txn;
pub mod types;
pub mod watch;

pub use error::StorageError;
pub use reply::{BoxFuture, Reply};
pub use txn::{Committed, Guard, Op, Txn};
pub use types::{
    GetResult, KeyRange, KeyValue, LeaseId, RangeOptions, RangeResult, Revision, Status, prefix_end,
};
pub use watch::{Batch, Event, EventKind, Events, Watch, WatchStream};

/// A key-value backend with MVCC revisions.
///
/// Operations return a [`Reply`]: a backend that can answer at once does so
/// without allocating; one that waits on the network boxes its future.
pub trait Storage: Send + Sync + 'static {
    /// The key at a revision (the latest when `None`).
    fn get(&self, key: &[u8], at: Option<Revision>) -> Reply<'_, Result<GetResult, StorageError>>;

    /// The key as recently known, which may be a moment behind the newest
    /// write (a watch cache's copy): for a decision whose commit is guarded
    /// on the record's mod_revision, so that a stale answer costs a retry,
    /// never a wrong write. A key not known there is read from the latest
    /// revision. Backends without a cache read the latest.
    fn get_recent(&self, key: &[u8]) -> Reply<'_, Result<GetResult, StorageError>> {
        self.get(key, None)
    }

    /// Whether the backend has certainly reached `revision`, known without
    /// asking anyone (a cache's applied revision); `false` when only a call
    /// (`current_revision`) could tell.
    fn reached(&self, _revision: Revision) -> bool {
        false
    }

    /// Waits, briefly, until this backend's watches can deliver every
    /// change through `revision` (a cache catching up with its backend);
    /// whether they can. `false` where watches vouch for their own
    /// progress instead (`WatchStream::sync_progress`).
    fn catch_up(&self, _revision: Revision) -> Reply<'_, bool> {
        Reply::Ready(false)
    }

    /// Whether a range with a limit costs about the records it returns,
    /// so a large read may go page by page; etcd counts every key of the
    /// range for each request, so paging it costs the whole range per page.
    fn pages_cheaply(&self) -> bool {
        false
    }

    /// The keys of a range at a revision, in key order.
    fn range(
        &self,
        range: KeyRange,
        opts: RangeOptions,
    ) -> Reply<'_, Result<RangeResult, StorageError>>;

    /// Commits a transaction once durable; a failed guard is
    /// [`StorageError::Conflict`] or [`StorageError::NotFound`].
    fn commit(&self, txn: Txn) -> Reply<'_, Result<Committed, StorageError>>;

    /// Changes to a range with revisions after `after`: retained history
    /// first, then live, with no gap or duplicate. A start below the
    /// compaction point yields `Compacted` as the watch's first item.
    fn watch(&self, range: KeyRange, after: Revision) -> Watch;

    /// The newest committed revision.
    fn current_revision(&self) -> Reply<'_, Result<Revision, StorageError>>;

    /// Revisions, compaction point and size.
    fn status(&self) -> Reply<'_, Result<Status, StorageError>>;

    /// Forgets the history before `at`: reads and watches below it fail
    /// with `Compacted` from now on.
    fn compact(&self, at: Revision) -> Reply<'_, Result<(), StorageError>>;

    /// One round of periodic compaction to `at`; `true` when this server
    /// compacted. A backend shared by several servers lets one of them
    /// compact per round (etcd: kube-apiserver's `compact_rev_key`).
    fn compact_round(&self, at: Revision) -> Reply<'_, Result<bool, StorageError>> {
        self.compact(at).map(|done| done.map(|()| true))
    }

    /// `Ok` while the backend can take writes (the readiness check). A
    /// networked backend answers from its last probe, so this never waits.
    fn health(&self) -> Result<(), String>;

    /// Stops background work and ends watches.
    fn close(&self);

    /// Whether `key`'s value at `revision` is stored as a write would store
    /// it now (not under a key or provider rotated out of first place): a
    /// write that changes nothing may then be skipped, as Kubernetes skips
    /// it unless the stored value is stale. Untransformed backends: yes.
    fn stored_form_is_current(&self, _key: &[u8], _revision: Revision) -> Reply<'_, bool> {
        Reply::Ready(true)
    }
}
