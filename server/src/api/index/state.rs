//! One kind's list index: postings of the stored objects by the families
//! lists select by, current through a revision, the keys that cannot be
//! read as the kind, and a bounded log of the keys changed recently, so a
//! list at an older revision still knows which keys it must read. It holds
//! no object and no attributes: a list reads every key it is given and
//! tests it, and the index only rules the others out.

use std::collections::{BTreeSet, VecDeque};
use std::ops::Bound;
use std::sync::Arc;

use crate::api::index::postings::{Key, Postings};
use crate::api::index::{Attributes, Family, Term};
use crate::api::kind::KindSpec;
use crate::storage::Revision;

/// How many recent changes the log keeps: a list (or a page of one) at a
/// revision older than the log's reach is answered from storage instead.
pub const LOG_CAPACITY: usize = 1 << 16;

/// Bounds on keys relative to the collection prefix.
type Bounds<'a> = (Bound<&'a [u8]>, Bound<&'a [u8]>);

/// The index of one kind.
pub struct IndexState {
    kind: Arc<KindSpec>,
    /// Every key the index holds starts with this, which it does not store.
    prefix: Box<[u8]>,
    /// Every change through this revision is applied.
    applied: Revision,
    postings: Postings,
    /// The keys whose newest version is unreadable, which no posting holds.
    unreadable: BTreeSet<Key>,
    /// The keys changed after `log_from`, oldest first.
    changes: VecDeque<(Revision, Key)>,
    log_from: Revision,
}

impl IndexState {
    /// An empty index of the keys under `prefix` as they were at `at`.
    #[must_use]
    pub fn new(kind: Arc<KindSpec>, prefix: &[u8], at: Revision) -> IndexState {
        IndexState {
            kind,
            prefix: prefix.into(),
            applied: at,
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

    fn relative<'k>(&self, key: &'k [u8]) -> Option<&'k [u8]> {
        key.strip_prefix(&self.prefix[..])
    }

    /// A key stored before the index started (`None`: unreadable), filed
    /// under `family` only.
    pub fn load(&mut self, family: &Family, key: &[u8], attrs: Option<&Attributes>) {
        let Some(rel) = self.relative(key) else {
            return;
        };
        match attrs {
            Some(a) => self.postings.file(&self.kind, family, rel, a),
            None => {
                self.unreadable.insert(rel.into());
            }
        }
    }

    /// A key written at `rev`, from `old` to `new` (`None`: absent or
    /// unreadable).
    pub fn put(
        &mut self,
        key: &[u8],
        rev: Revision,
        old: Option<&Attributes>,
        new: Option<&Attributes>,
    ) {
        let Some(rel) = self.relative(key) else {
            return;
        };
        let rel: Key = rel.into();
        self.postings.change(&self.kind, &rel, old, new);
        match new {
            Some(_) => {
                self.unreadable.remove(&rel);
            }
            None => {
                self.unreadable.insert(rel.clone());
            }
        }
        self.log(rev, rel);
    }

    /// A key deleted at `rev`; `old` its last attributes.
    pub fn delete(&mut self, key: &[u8], rev: Revision, old: Option<&Attributes>) {
        let Some(rel) = self.relative(key) else {
            return;
        };
        let rel: Key = rel.into();
        self.postings.change(&self.kind, &rel, old, None);
        self.unreadable.remove(&rel);
        self.log(rev, rel);
    }

    /// Starts filing `family` (see [`Postings::begin`]).
    pub fn begin(&mut self, family: &Family) -> bool {
        self.postings.begin(family)
    }

    /// Every stored object of `family` is filed.
    pub fn finish(&mut self, family: &Family) {
        self.postings.finish(family);
    }

    pub fn abandon(&mut self, family: &Family) {
        self.postings.abandon(family);
    }

    #[must_use]
    pub fn indexes_by(&self, family: &Family) -> bool {
        self.postings.has(family)
    }

    /// Every change through `rev` has been applied.
    pub fn advance(&mut self, rev: Revision) {
        self.applied = self.applied.max(rev);
    }

    fn log(&mut self, rev: Revision, key: Key) {
        self.applied = self.applied.max(rev);
        self.changes.push_back((rev, key));
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

    /// `[start, end)` (`end` empty: unbounded) as bounds on relative keys;
    /// `None` when no key under the prefix is in it.
    fn bounds<'a>(&self, start: &'a [u8], end: &'a [u8]) -> Option<Bounds<'a>> {
        let lower = match self.relative(start) {
            Some(rel) => Bound::Included(rel),
            None if start < &self.prefix[..] => Bound::Unbounded,
            None => return None,
        };
        let upper = match self.relative(end) {
            _ if end.is_empty() => Bound::Unbounded,
            Some(rel) => Bound::Excluded(rel),
            None if end > &self.prefix[..] => Bound::Unbounded,
            None => return None,
        };
        Some((lower, upper))
    }

    /// The keys a list at `at` selecting by `term` must read in
    /// `[start, end)` (`end` empty: unbounded), in key order: every key
    /// filed under one of the term's values, every unreadable key, and
    /// every key changed after `at`; any other key the list could select
    /// at `at` has none of the values. `None` when the index cannot answer
    /// for `at` (not yet current through it, or its log does not reach
    /// back to it), or does not index the term's family.
    #[must_use]
    pub fn candidates(
        &self,
        start: &[u8],
        end: &[u8],
        at: Revision,
        term: &Term,
    ) -> Option<Vec<Vec<u8>>> {
        if at > self.applied || at < self.log_from {
            return None;
        }
        let (family, values) = term;
        let Some(bounds) = self.bounds(start, end) else {
            return self.indexes_by(family).then(Vec::new);
        };
        let mut keys = self.postings.keys(family, values, bounds)?;
        keys.extend(self.unreadable.range::<[u8], _>(bounds));
        keys.extend(
            self.changes
                .iter()
                .rev()
                .take_while(|(r, _)| *r > at)
                .map(|(_, k)| k)
                .filter(|k| std::ops::RangeBounds::<[u8]>::contains(&bounds, &k[..])),
        );
        keys.sort_unstable();
        keys.dedup();
        Some(
            keys.into_iter()
                .map(|rel| [&self.prefix[..], &rel[..]].concat())
                .collect(),
        )
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
