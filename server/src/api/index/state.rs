//! One kind's stored objects as its list index knows them — each key's
//! newest version and selectable attributes, current through a revision,
//! with postings by the families lists select by — plus a bounded log of
//! the keys changed recently, so a list at an older revision still knows
//! which keys it must read rather than trust.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ops::Bound;
use std::sync::Arc;

use crate::api::index::postings::{Key, Postings};
use crate::api::index::{Attributes, Family, Term};
use crate::api::kind::KindSpec;
use crate::storage::Revision;

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
    kind: Arc<KindSpec>,
    /// Every change through this revision is applied.
    applied: Revision,
    objects: BTreeMap<Key, Entry>,
    postings: Postings,
    /// The keys whose entry is unreadable, which no posting holds.
    unreadable: BTreeSet<Key>,
    /// The keys changed after `log_from`, oldest first.
    changes: VecDeque<(Revision, Box<[u8]>)>,
    log_from: Revision,
}

impl IndexState {
    /// An empty index of the store as it was at `at`.
    #[must_use]
    pub fn new(kind: Arc<KindSpec>, at: Revision) -> IndexState {
        IndexState {
            kind,
            applied: at,
            objects: BTreeMap::new(),
            postings: Postings::default(),
            unreadable: BTreeSet::new(),
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
        self.set(key, entry);
    }

    /// A key written at `entry.rev`.
    pub fn put(&mut self, key: &[u8], entry: Entry) {
        self.log(entry.rev, key);
        self.set(key, entry);
    }

    /// A key deleted at `rev`.
    pub fn delete(&mut self, key: &[u8], rev: Revision) {
        self.log(rev, key);
        if let Some((key, old)) = self.objects.remove_entry(key) {
            self.postings
                .change(&self.kind, &key, old.attrs.as_ref(), None);
            self.unreadable.remove(&key);
        }
    }

    fn set(&mut self, key: &[u8], entry: Entry) {
        let key = match self.objects.get_key_value(key) {
            Some((shared, _)) => Arc::clone(shared),
            None => Key::from(key),
        };
        let readable = entry.attrs.is_some();
        let old = self.objects.insert(Arc::clone(&key), entry);
        let new = self.objects.get(&key).and_then(|e| e.attrs.as_ref());
        let old = old.as_ref().and_then(|e| e.attrs.as_ref());
        self.postings.change(&self.kind, &key, old, new);
        if readable {
            self.unreadable.remove(&key);
        } else {
            self.unreadable.insert(key);
        }
    }

    /// Whether lists selecting by `family` can visit only its postings:
    /// builds them on first use, unless the kind indexes enough families.
    pub fn index_by(&mut self, family: &Family) -> bool {
        if self.postings.has(family) {
            return true;
        }
        let objects = self.objects.iter().map(|(k, e)| (k, e.attrs.as_ref()));
        self.postings.build(&self.kind, family, objects)
    }

    #[must_use]
    pub fn indexes_by(&self, family: &Family) -> bool {
        self.postings.has(family)
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
    /// every key changed after `at`. With a `term` the kind has postings
    /// for, only the keys filed under its values are visited (every object
    /// `selects` picks has one of them). Stops after `enough` certain picks
    /// (0: never). `None` when the index cannot answer for `at` (not yet
    /// current through it, or its log does not reach back to it).
    #[must_use]
    pub fn candidates(
        &self,
        start: &[u8],
        end: &[u8],
        at: Revision,
        enough: usize,
        term: Option<&Term>,
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
        let filed =
            term.and_then(|(family, values)| self.postings.keys(family, values, start, end));
        let walk = Walk {
            at,
            enough,
            changed,
        };
        Some(match filed {
            Some(mut keys) => {
                let bounds = (Bound::Included(start), upper);
                keys.extend(self.unreadable.range::<[u8], _>(bounds));
                keys.sort_unstable();
                keys.dedup();
                let entries = keys
                    .into_iter()
                    .filter_map(|k| self.objects.get_key_value(k));
                walk.run(entries, selects)
            }
            None => {
                let entries = self
                    .objects
                    .range::<[u8], _>((Bound::Included(start), upper));
                walk.run(entries, selects)
            }
        })
    }
}

/// One pass of a list over index entries in key order.
struct Walk<'a> {
    at: Revision,
    enough: usize,
    /// Keys changed after `at`, in the list's range.
    changed: BTreeSet<&'a [u8]>,
}

impl Walk<'_> {
    fn run<'e>(
        self,
        entries: impl Iterator<Item = (&'e Key, &'e Entry)>,
        selects: impl Fn(&Attributes) -> bool,
    ) -> Vec<Candidate> {
        let mut out = Vec::new();
        let mut sure = 0;
        let mut changed = self.changed.iter().peekable();
        for (key, entry) in entries {
            while let Some(c) = changed.next_if(|c| **c < &key[..]) {
                out.push(Candidate::Unsure(c.to_vec()));
            }
            if changed.next_if(|c| **c == &key[..]).is_some()
                || entry.rev > self.at
                || entry.attrs.is_none()
            {
                out.push(Candidate::Unsure(key.to_vec()));
                continue;
            }
            if entry.attrs.as_ref().is_some_and(&selects) {
                out.push(Candidate::Selected(key.to_vec()));
                sure += 1;
                if sure == self.enough {
                    return out;
                }
            }
        }
        out.extend(changed.map(|c| Candidate::Unsure(c.to_vec())));
        out
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
