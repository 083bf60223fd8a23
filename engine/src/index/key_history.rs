//! One key's retained versions, oldest first.
//!
//! Worked example: `put@2 put@4 del@5 put@7 del@9` on one key gives the
//! history `[2, 4, 5†, 7, 9†]` († = tombstone). Compacting at
//!
//! | at | keeps             | why                                              |
//! |----|-------------------|--------------------------------------------------|
//! | 3  | `[2, 4, 5†, 7, 9†]` | 2 is the newest version ≤ 3: reads at 3 need it |
//! | 4  | `[4, 5†, 7, 9†]`    | 2 is shadowed by 4                              |
//! | 5  | `[7, 9†]`           | the newest ≤ 5 is a tombstone: it and all before go |
//! | 8  | `[7, 9†]`           | 7 is the newest ≤ 8                             |
//! | 9  | `[]`                | the key is gone: remove it from the index       |

/// Where an op lives: segment id and byte offset of its op header. The top
/// bit of `segment` marks a delete (tombstone), whose op is still on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Loc {
    segment: u32,
    pub offset: u32,
}

const TOMBSTONE_BIT: u32 = 1 << 31;

impl Loc {
    /// Largest segment id a location can name.
    pub const MAX_SEGMENT: u32 = TOMBSTONE_BIT - 1;

    pub(crate) fn put(segment: u32, offset: u32) -> Loc {
        debug_assert!(segment <= Loc::MAX_SEGMENT);
        Loc { segment, offset }
    }

    pub(crate) fn delete(segment: u32, offset: u32) -> Loc {
        Loc {
            segment: segment | TOMBSTONE_BIT,
            offset,
        }
    }

    pub(crate) fn segment(self) -> u32 {
        self.segment & !TOMBSTONE_BIT
    }

    pub(crate) fn is_tombstone(self) -> bool {
        self.segment & TOMBSTONE_BIT != 0
    }

    /// The same op at another place (compaction moved it).
    pub(crate) fn moved_to(self, segment: u32, offset: u32) -> Loc {
        if self.is_tombstone() {
            Loc::delete(segment, offset)
        } else {
            Loc::put(segment, offset)
        }
    }
}

/// One version of a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Version {
    pub rev: u64,
    pub loc: Loc,
}

/// A key's versions. Most keys have one, so it is kept inline.
#[derive(Clone, Debug)]
pub(crate) enum History {
    One(Version),
    Many(Vec<Version>),
}

impl History {
    pub(crate) fn versions(&self) -> &[Version] {
        match self {
            History::One(v) => std::slice::from_ref(v),
            History::Many(vs) => vs,
        }
    }

    fn versions_mut(&mut self) -> &mut [Version] {
        match self {
            History::One(v) => std::slice::from_mut(v),
            History::Many(vs) => vs,
        }
    }

    /// The newest version (a tombstone when the key is deleted).
    pub(crate) fn latest(&self) -> Version {
        *self.versions().last().expect("a history is never empty")
    }

    /// The newest version at or before `rev`.
    pub(crate) fn at(&self, rev: u64) -> Option<Version> {
        let vs = self.versions();
        let n = vs.partition_point(|v| v.rev <= rev);
        n.checked_sub(1).map(|i| vs[i])
    }

    /// The live (non-tombstone) version visible at `rev`.
    pub(crate) fn live_at(&self, rev: u64) -> Option<Version> {
        self.at(rev).filter(|v| !v.loc.is_tombstone())
    }

    /// The version just before `rev` (the previous record of a change at `rev`).
    pub(crate) fn before(&self, rev: u64) -> Option<Version> {
        self.at(rev.checked_sub(1)?)
    }

    pub(crate) fn push(&mut self, v: Version) {
        debug_assert!(
            v.rev > self.latest().rev,
            "versions are appended in revision order"
        );
        match self {
            History::One(first) => *self = History::Many(vec![*first, v]),
            History::Many(vs) => vs.push(v),
        }
    }

    pub(crate) fn find_mut(&mut self, rev: u64) -> Option<&mut Version> {
        self.versions_mut().iter_mut().find(|v| v.rev == rev)
    }

    /// Drops versions no read at or after `at` can see; reports each dropped
    /// version. Returns whether the history is now empty.
    pub(crate) fn compact(&mut self, at: u64, mut dropped: impl FnMut(Version)) -> bool {
        let vs = self.versions();
        let newest_le = vs.partition_point(|v| v.rev <= at);
        let Some(keep_from) = newest_le.checked_sub(1) else {
            return false;
        };
        let keep_from = if vs[keep_from].loc.is_tombstone() {
            keep_from + 1
        } else {
            keep_from
        };
        if keep_from == 0 {
            return false;
        }
        for v in &vs[..keep_from] {
            dropped(*v);
        }
        let rest: Vec<Version> = vs[keep_from..].to_vec();
        match rest.len() {
            0 => return true,
            1 => *self = History::One(rest[0]),
            _ => *self = History::Many(rest),
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(rev: u64) -> Version {
        Version {
            rev,
            loc: Loc::put(1, u32::try_from(rev).expect("small")),
        }
    }
    fn del(rev: u64) -> Version {
        Version {
            rev,
            loc: Loc::delete(1, 0),
        }
    }
    fn example() -> History {
        let mut h = History::One(put(2));
        for v in [put(4), del(5), put(7), del(9)] {
            h.push(v);
        }
        h
    }
    fn revs(h: &History) -> Vec<u64> {
        h.versions().iter().map(|v| v.rev).collect()
    }

    #[test]
    fn reads_at_every_boundary() {
        let h = example();
        // (rev, visible live version)
        let table = [
            (0, None),
            (1, None),
            (2, Some(2)),
            (3, Some(2)),
            (4, Some(4)),
            (5, None),
            (6, None),
            (7, Some(7)),
            (8, Some(7)),
            (9, None),
            (10, None),
        ];
        for (rev, want) in table {
            assert_eq!(h.live_at(rev).map(|v| v.rev), want, "at {rev}");
        }
        assert_eq!(h.before(7).map(|v| v.rev), Some(5));
        assert_eq!(h.before(2), None);
        assert_eq!(h.latest().rev, 9);
    }

    #[test]
    fn compaction_table_of_the_module_docs() {
        let table: [(u64, &[u64], bool); 7] = [
            (1, &[2, 4, 5, 7, 9], false),
            (3, &[2, 4, 5, 7, 9], false),
            (4, &[4, 5, 7, 9], false),
            (5, &[7, 9], false),
            (8, &[7, 9], false),
            (9, &[], true),
            (100, &[], true),
        ];
        for (at, keep, empty) in table {
            let mut h = example();
            let mut dropped = Vec::new();
            let is_empty = h.compact(at, |v| dropped.push(v.rev));
            assert_eq!(is_empty, empty, "at {at}");
            if !empty {
                assert_eq!(revs(&h), keep, "at {at}");
            }
            assert_eq!(dropped.len() + keep.len(), 5, "at {at}");
        }
    }
}
