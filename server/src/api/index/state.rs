//! One kind's stored objects as its list index knows them — each key's
//! newest version and selectable attributes, current through a revision —
//! plus a bounded log of the keys changed recently, so a list at an older
//! revision still knows which keys it must read rather than trust.

use crate::api::index::Attributes;
use crate::storage::Revision;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ops::Bound;

/// How many recent changes the log keeps: a list (or a page of one) at a
/// revision older than the log's reach is answered from storage instead.
pub const LOG_CAPACITY: usize = 1 << 16;

/// A key's newest version.
#[derive(Clone, Debug)]
pub struct Entry {
    pub rev: Revision,
    /// `None`: unreadable as the kind (never selected; a list reading it
    /// fails as an unfiltered one would).
    pub attrs: Option<Attributes>,
}

/// What a list at a revision must do with one key, in key order.
#[derive(Debug, PartialEq, Eq)]
pub enum Candidate {
    /// Its version at the revision is the indexed one, which the selector
    /// picks: read it and serve it.
    Selected(Vec<u8>),
    /// Changed since the revision (or unreadable): read it there and test it.
    Unsure(Vec<u8>),
}

impl Candidate {
    #[must_use]
    pub fn key(&self) -> &[u8] {
        match self {
            Candidate::Selected(k) | Candidate::Unsure(k) => k,
        }
    }
}

/// The index of one kind.
pub struct IndexState {
    /// Every change through this revision is applied.
    applied: Revision,
    objects: BTreeMap<Box<[u8]>, Entry>,
    /// The keys changed after `log_from`, oldest first.
    changes: VecDeque<(Revision, Box<[u8]>)>,
    log_from: Revision,
}

impl IndexState {
    /// An empty index of the store as it was at `at`.
    #[must_use]
    pub fn new(at: Revision) -> IndexState {
        IndexState {
            applied: at,
            objects: BTreeMap::new(),
            changes: VecDeque::new(),
            log_from: at,
        }
    }

    #[must_use]
    pub fn applied(&self) -> Revision {
        self.applied
    }

    /// A key as it was at the index's start (no change logged).
    pub fn load(&mut self, key: &[u8], entry: Entry) {
        self.objects.insert(key.into(), entry);
    }

    /// A key written at `entry.rev`.
    pub fn put(&mut self, key: &[u8], entry: Entry) {
        self.log(entry.rev, key);
        self.objects.insert(key.into(), entry);
    }

    /// A key deleted at `rev`.
    pub fn delete(&mut self, key: &[u8], rev: Revision) {
        self.log(rev, key);
        self.objects.remove(key);
    }

    /// Every change through `rev` has been applied.
    pub fn advance(&mut self, rev: Revision) {
        self.applied = self.applied.max(rev);
    }

    fn log(&mut self, rev: Revision, key: &[u8]) {
        self.applied = self.applied.max(rev);
        self.changes.push_back((rev, key.into()));
        while self.changes.len() > LOG_CAPACITY {
            // Drop whole revisions so the log holds every change after
            // `log_from`.
            let Some((dropped, _)) = self.changes.pop_front() else {
                break;
            };
            while self.changes.front().is_some_and(|(r, _)| *r == dropped) {
                self.changes.pop_front();
            }
            self.log_from = dropped;
        }
    }

    /// The newest version of `key` the index knows.
    #[must_use]
    pub fn entry(&self, key: &[u8]) -> Option<&Entry> {
        self.objects.get(key)
    }

    /// The keys a list at `at` must look at in `[start, end)` (`end` empty:
    /// unbounded), in key order: every indexed key `selects` picks, and
    /// every key changed after `at`. Stops after `enough` certain picks
    /// (0: never). `None` when the index cannot answer for `at` (not yet
    /// current through it, or its log does not reach back to it).
    #[must_use]
    pub fn candidates(
        &self,
        start: &[u8],
        end: &[u8],
        at: Revision,
        enough: usize,
        selects: impl Fn(&Attributes) -> bool,
    ) -> Option<Vec<Candidate>> {
        if at > self.applied || at < self.log_from {
            return None;
        }
        let upper = if end.is_empty() {
            Bound::Unbounded
        } else {
            Bound::Excluded(end)
        };
        let in_range = |k: &[u8]| k >= start && (end.is_empty() || k < end);
        let changed: BTreeSet<&[u8]> = self
            .changes
            .iter()
            .rev()
            .take_while(|(r, _)| *r > at)
            .map(|(_, k)| &k[..])
            .filter(|k| in_range(k))
            .collect();
        let mut out = Vec::new();
        let mut sure = 0;
        let mut changed_iter = changed.iter().peekable();
        let range = self
            .objects
            .range::<[u8], _>((Bound::Included(start), upper));
        for (key, entry) in range {
            while let Some(c) = changed_iter.next_if(|c| **c < &key[..]) {
                out.push(Candidate::Unsure(c.to_vec()));
            }
            if changed_iter.next_if(|c| **c == &key[..]).is_some()
                || entry.rev > at
                || entry.attrs.is_none()
            {
                out.push(Candidate::Unsure(key.to_vec()));
                continue;
            }
            if entry.attrs.as_ref().is_some_and(&selects) {
                out.push(Candidate::Selected(key.to_vec()));
                sure += 1;
                if sure == enough {
                    return Some(out);
                }
            }
        }
        out.extend(changed_iter.map(|c| Candidate::Unsure(c.to_vec())));
        Some(out)
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
