//! cairn-engine: an append-only, multi-version key-value log with revision
//! indexes, compaction and watch history. It knows keys, bytes and revisions —
//! nothing of HTTP, JSON or Kubernetes.
//!
//! ```
//! use cairn_engine::{Engine, KeyRange, Options, RangeOptions, Revision, Txn};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let engine = Engine::open(dir.path(), Options::no_sync()).unwrap();
//! let first = engine.commit_blocking(Txn::new().put("/a", "1").put("/b", "2")).unwrap();
//! engine.commit_blocking(Txn::new().put("/a", "3")).unwrap();
//!
//! // Reads at an older revision are snapshots.
//! let old = engine.get(b"/a", Some(first.revision)).unwrap().kv.unwrap();
//! assert_eq!(&old.value[..], b"1");
//! let all = engine.range(&KeyRange::prefix(b"/"), RangeOptions::default()).unwrap();
//! assert_eq!(all.items.len(), 2);
//!
//! // Watches replay history after a revision, then follow live commits.
//! let mut w = engine.watch(KeyRange::prefix(b"/a"), Revision::ZERO).unwrap();
//! assert_eq!(w.try_next().unwrap().unwrap().revision, first.revision);
//! ```
//!
//! Semantics follow etcd's MVCC store: each transaction gets one new revision;
//! each version carries `create_revision`, `mod_revision` and `version`;
//! compaction at C keeps, per key, the newest version at or below C (unless it
//! is a delete) and everything newer. The on-disk format is in `FORMAT.md`.
//!
//! Offline tools (cairn-store) read and repair data directories through
//! [`inspect`] (verify, the log record by record, repair) and [`snapshot`]
//! (single-file snapshots at a revision and their restore).

mod codec;
mod commit;
mod compaction;
mod engine;
mod error;
mod failpoint;
#[doc(hidden)]
pub mod fuzz_targets;
mod housekeeping;
mod index;
pub mod inspect;
mod lease;
mod lock;
mod manifest;
mod open;
mod options;
mod record;
mod revision;
mod segment;
mod shared;
pub mod snapshot;
mod stats;
pub mod timings;
mod txn;
mod watch;

pub use codec::FORMAT_VERSION;
pub use compaction::reclaim::ReclaimStats;
pub use engine::{Engine, GetResult, RangeOptions, RangeResult};
pub use error::{Error, Result};
pub use lock::lock_holder;
pub use options::{Options, SyncMode};
pub use record::{Event, EventKind, KeyRange, KeyValue, prefix_end};
pub use revision::Revision;
pub use stats::Stats;
pub use txn::{Committed, Guard, Op, Txn};
pub use watch::{Events, Watch};
