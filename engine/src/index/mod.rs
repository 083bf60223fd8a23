//! The in-memory index: key → versions (an ordered map, for ranges) and the
//! revision-ordered log of transactions (for watches and `revision_at`).
//!
//! Guarded by one `RwLock` in the engine; only the writer thread and the
//! compactor take it for writing, and never while doing I/O.

pub(crate) mod builder;
pub(crate) mod key_history;
pub(crate) mod revlog;

use std::collections::BTreeMap;
use std::ops::Bound;

pub(crate) use key_history::{History, Loc, Version};
pub(crate) use revlog::RevLog;

/// Keys and their histories.
#[derive(Default)]
pub(crate) struct Index {
    keys: BTreeMap<Box<[u8]>, History>,
    /// Keys whose newest version is not a tombstone.
    live: usize,
    /// Versions held, tombstones included.
    versions: usize,
    pub revlog: RevLog,
}

/// Result of walking a range at a revision.
pub(crate) struct RangeLocs {
    pub items: Vec<(Loc, u64)>,
    pub more: bool,
    pub count: u64,
}

fn bounds<'a>(start: &'a [u8], end: &'a [u8]) -> (Bound<&'a [u8]>, Bound<&'a [u8]>) {
    let hi = if end.is_empty() {
        Bound::Unbounded
    } else {
        Bound::Excluded(end)
    };
    (Bound::Included(start), hi)
}

impl Index {
    pub(crate) fn live_keys(&self) -> usize {
        self.live
    }

    pub(crate) fn versions(&self) -> usize {
        self.versions
    }

    pub(crate) fn history(&self, key: &[u8]) -> Option<&History> {
        self.keys.get(key)
    }

    /// An index over entries already sorted by key.
    pub(crate) fn from_sorted(
        entries: Vec<(Box<[u8]>, History)>,
        versions: usize,
        revlog: RevLog,
    ) -> Index {
        let live = entries
            .iter()
            .filter(|(_, h)| !h.latest().loc.is_tombstone())
            .count();
        Index {
            keys: entries.into_iter().collect(),
            live,
            versions,
            revlog,
        }
    }

    /// Appends a version (put or tombstone) to a key's history.
    pub(crate) fn push(&mut self, key: &[u8], v: Version) {
        let live_now = !v.loc.is_tombstone();
        match self.keys.get_mut(key) {
            Some(h) => {
                let was_live = !h.latest().loc.is_tombstone();
                h.push(v);
                match (was_live, live_now) {
                    (false, true) => self.live += 1,
                    (true, false) => self.live -= 1,
                    _ => {}
                }
            }
            None => {
                if !live_now {
                    // A delete of a key whose history was compacted away.
                    return;
                }
                self.keys.insert(key.into(), History::One(v));
                self.live += 1;
            }
        }
        self.versions += 1;
    }

    /// Points the version `rev` of `key` at a new location, if it is still held
    /// at `old`.
    pub(crate) fn relocate(&mut self, key: &[u8], rev: u64, old: Loc, new: Loc) -> bool {
        match self.keys.get_mut(key).and_then(|h| h.find_mut(rev)) {
            Some(v) if v.loc == old => {
                v.loc = new;
                true
            }
            _ => false,
        }
    }

    /// Live versions in `[start, end)` at `rev`, up to `limit` (0 = all).
    pub(crate) fn range(
        &self,
        start: &[u8],
        end: &[u8],
        rev: u64,
        limit: usize,
        count_all: bool,
    ) -> RangeLocs {
        let mut items = Vec::new();
        let mut more = false;
        let mut count = 0u64;
        if !end.is_empty() && start >= end {
            return RangeLocs { items, more, count };
        }
        for (_, h) in self.keys.range::<[u8], _>(bounds(start, end)) {
            let Some(v) = h.live_at(rev) else { continue };
            if limit != 0 && items.len() == limit {
                more = true;
                if !count_all {
                    break;
                }
                count += 1;
                continue;
            }
            items.push((v.loc, v.rev));
            count += 1;
        }
        RangeLocs { items, more, count }
    }

    /// Compacts up to `max_keys` histories at `at`, starting at `from`.
    /// Returns the key to resume from, or `None` when the pass is complete.
    pub(crate) fn compact_some(
        &mut self,
        at: u64,
        from: &[u8],
        max_keys: usize,
        mut dropped: impl FnMut(Version),
    ) -> Option<Vec<u8>> {
        let mut emptied = Vec::new();
        let mut dropped_count = 0usize;
        let mut next = None;
        for (i, (k, h)) in self
            .keys
            .range_mut::<[u8], _>((Bound::Included(from), Bound::Unbounded))
            .enumerate()
        {
            if i == max_keys {
                next = Some(k.to_vec());
                break;
            }
            if h.compact(at, |v| {
                dropped_count += 1;
                dropped(v);
            }) {
                emptied.push(k.clone());
            }
        }
        for k in emptied {
            self.keys.remove(&k);
        }
        self.versions -= dropped_count;
        next
    }
}
