//! Compare-and-swap transactions in kube-apiserver's shapes: a create
//! guards "key absent", an update or delete guards "mod revision is R"; the
//! writes commit atomically at one new revision, or nothing is written.

use std::time::Duration;

use crate::storage::types::Revision;

/// A precondition on one key, checked against the latest state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Guard {
    /// The key does not exist (etcd: `mod_revision == 0`).
    Absent(Vec<u8>),
    /// The key exists with exactly this mod revision.
    ModRevision(Vec<u8>, Revision),
}

impl Guard {
    /// The key the guard looks at.
    #[must_use]
    pub fn key(&self) -> &[u8] {
        match self {
            Guard::Absent(k) | Guard::ModRevision(k, _) => k,
        }
    }
}

/// One write of a transaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Sets `key` to `value`; with a TTL the backend deletes the key once it
    /// has passed (through a lease), as an ordinary delete at a new revision.
    Put {
        key: Vec<u8>,
        value: Vec<u8>,
        ttl: Option<Duration>,
    },
    /// Removes `key` (nothing when it does not exist).
    Delete { key: Vec<u8> },
}

/// Guards and writes, committed together or not at all. When a guard fails
/// the commit is `StorageError::Conflict` (carrying the key's current
/// record) or `StorageError::NotFound`, naming the guard by position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Txn {
    pub guards: Vec<Guard>,
    pub ops: Vec<Op>,
}

impl Txn {
    #[must_use]
    pub fn new() -> Txn {
        Txn::default()
    }

    #[must_use]
    pub fn guard(mut self, guard: Guard) -> Txn {
        self.guards.push(guard);
        self
    }

    #[must_use]
    pub fn put(mut self, key: impl Into<Vec<u8>>, value: impl Into<Vec<u8>>) -> Txn {
        self.ops.push(Op::Put {
            key: key.into(),
            value: value.into(),
            ttl: None,
        });
        self
    }

    /// A put whose key expires `ttl` after the commit.
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
            ttl: Some(ttl),
        });
        self
    }

    #[must_use]
    pub fn delete(mut self, key: impl Into<Vec<u8>>) -> Txn {
        self.ops.push(Op::Delete { key: key.into() });
        self
    }
}

/// A committed transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Committed {
    /// The revision it was written at (for one that changed nothing, such as
    /// a delete of an absent key, the revision it observed).
    pub revision: Revision,
}
