//! Transactions: puts and deletes committed atomically at one revision,
//! guarded by preconditions.

use std::time::{Duration, SystemTime};

use crate::record::KeyValue;
use crate::revision::Revision;

/// One write inside a transaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Set `key` to `value`, optionally expiring at a wall-clock time.
    Put {
        /// The key (non-empty).
        key: Vec<u8>,
        /// The value.
        value: Vec<u8>,
        /// When the engine deletes the key by itself.
        expires_at: Option<SystemTime>,
    },
    /// Remove `key`; a no-op when it does not exist.
    Delete {
        /// The key.
        key: Vec<u8>,
    },
}

impl Op {
    pub(crate) fn key(&self) -> &[u8] {
        match self {
            Op::Put { key, .. } | Op::Delete { key } => key,
        }
    }
}

/// A precondition checked against the latest committed state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Guard {
    /// The key must not exist.
    Absent(Vec<u8>),
    /// The key must exist.
    Present(Vec<u8>),
    /// The key must exist with exactly this `mod_revision`.
    ModRevision(Vec<u8>, Revision),
}

impl Guard {
    pub(crate) fn key(&self) -> &[u8] {
        match self {
            Guard::Absent(k) | Guard::Present(k) | Guard::ModRevision(k, _) => k,
        }
    }

    pub(crate) fn holds(&self, current_mod_revision: Option<u64>) -> bool {
        match (self, current_mod_revision) {
            (Guard::Absent(_), cur) => cur.is_none(),
            (Guard::Present(_), cur) => cur.is_some(),
            (Guard::ModRevision(_, want), Some(cur)) => want.get() == cur,
            (Guard::ModRevision(..), None) => false,
        }
    }
}

/// A transaction under construction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Txn {
    pub(crate) guards: Vec<Guard>,
    pub(crate) ops: Vec<Op>,
    pub(crate) want_prev: bool,
}

impl Txn {
    /// An empty transaction.
    #[must_use]
    pub fn new() -> Txn {
        Txn::default()
    }

    /// A transaction of guards and ops built elsewhere (no copy of either).
    #[must_use]
    pub fn from_parts(guards: Vec<Guard>, ops: Vec<Op>) -> Txn {
        Txn {
            guards,
            ops,
            want_prev: false,
        }
    }

    /// Adds a precondition.
    #[must_use]
    pub fn guard(mut self, guard: Guard) -> Txn {
        self.guards.push(guard);
        self
    }

    /// Adds a put.
    #[must_use]
    pub fn put(mut self, key: impl Into<Vec<u8>>, value: impl Into<Vec<u8>>) -> Txn {
        self.ops.push(Op::Put {
            key: key.into(),
            value: value.into(),
            expires_at: None,
        });
        self
    }

    /// Adds a put whose key the engine deletes once `ttl` has passed.
    #[must_use]
    pub fn put_with_ttl(
        mut self,
        key: impl Into<Vec<u8>>,
        value: impl Into<Vec<u8>>,
        ttl: Duration,
    ) -> Txn {
        self.ops.push(Op::Put {
            key: key.into(),
            value: value.into(),
            expires_at: Some(SystemTime::now() + ttl),
        });
        self
    }

    /// Adds a delete.
    #[must_use]
    pub fn delete(mut self, key: impl Into<Vec<u8>>) -> Txn {
        self.ops.push(Op::Delete { key: key.into() });
        self
    }

    /// Adds an arbitrary op.
    #[must_use]
    pub fn op(mut self, op: Op) -> Txn {
        self.ops.push(op);
        self
    }

    /// Asks for each op's previous record in [`Committed::prev`].
    #[must_use]
    pub fn with_prev(mut self) -> Txn {
        self.want_prev = true;
        self
    }

    /// The ops added so far.
    #[must_use]
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }
}

/// The result of a committed transaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Committed {
    /// The revision the transaction was written at; for a transaction that
    /// changed nothing (only deletes of absent keys), the revision it observed.
    pub revision: Revision,
    /// Whether anything was written.
    pub changed: bool,
    /// Per op, the record it replaced (only when [`Txn::with_prev`] was set).
    pub prev: Vec<Option<KeyValue>>,
}
