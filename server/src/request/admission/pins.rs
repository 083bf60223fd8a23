//! What a validating decision rests on: the stored records it read, which
//! guard the write's commit, and the records it writes with it.

use crate::storage::{Guard, Revision, Txn};

/// Stored records (key, mod revision) a validating decision read: the
/// commit is guarded on each, so a decision never outlives what it saw.
/// A decision may also write records with the commit (a quota's new
/// usage), so that both land together or neither does. One pin (the usual
/// case) needs no allocation.
#[derive(Debug, Default)]
pub struct Pins {
    first: Option<(Vec<u8>, Revision)>,
    more: Vec<(Vec<u8>, Revision)>,
    writes: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Pins {
    pub fn pin(&mut self, key: Vec<u8>, revision: Revision) {
        if self.first.is_none() {
            self.first = Some((key, revision));
        } else {
            self.more.push((key, revision));
        }
    }

    /// Pins `key` at `revision` and replaces it with `value` in the
    /// commit (stored bytes, as the store encodes them).
    pub fn write(&mut self, key: Vec<u8>, revision: Revision, value: Vec<u8>) {
        self.pin(key.clone(), revision);
        self.writes.push((key, value));
    }

    #[must_use]
    pub fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.more.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    /// `txn` guarded on every pin (after its own guards, whose indexes
    /// keep their meaning), with the pinned writes.
    #[must_use]
    pub fn guard(self, txn: Txn) -> Txn {
        let txn = self
            .first
            .into_iter()
            .chain(self.more)
            .fold(txn, |txn, (key, rev)| {
                txn.guard(Guard::ModRevision(key, rev))
            });
        self.writes
            .into_iter()
            .fold(txn, |txn, (key, value)| txn.put(key, value))
    }
}
