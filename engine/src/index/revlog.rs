//! The revision-ordered log of retained transactions: where each record is
//! and when it was committed.
//!
//! Retained revisions are contiguous (every revision after the compaction
//! point has its record, and compaction never rewrites those), so an entry's
//! revision is its position plus the first one: 16 bytes per revision.

use std::collections::VecDeque;

use crate::index::Loc;

/// One committed transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TxnRef {
    pub rev: u64,
    pub time_micros: u64,
    /// Location of the record (offset of its length prefix).
    pub loc: Loc,
}

/// Transactions newer than the compaction point, oldest first.
#[derive(Default)]
pub(crate) struct RevLog {
    /// Revision of `txns[0]`.
    first: u64,
    txns: VecDeque<(u64, Loc)>,
}

impl RevLog {
    /// Appends the next revision; `false` (and nothing appended) if `t.rev`
    /// does not directly follow the newest entry.
    #[must_use]
    pub(crate) fn push(&mut self, t: TxnRef) -> bool {
        if self.txns.is_empty() {
            self.first = t.rev;
        } else if t.rev != self.first + self.txns.len() as u64 {
            return false;
        }
        self.txns.push_back((t.time_micros, t.loc));
        true
    }

    pub(crate) fn len(&self) -> usize {
        self.txns.len()
    }

    fn at(&self, i: usize) -> TxnRef {
        let (time_micros, loc) = self.txns[i];
        TxnRef {
            rev: self.first + i as u64,
            time_micros,
            loc,
        }
    }

    /// Forgets transactions at or before `rev`.
    pub(crate) fn trim_through(&mut self, rev: u64) {
        let n = usize::try_from((rev + 1).saturating_sub(self.first))
            .unwrap_or(usize::MAX)
            .min(self.txns.len());
        self.txns.drain(..n);
        self.first += n as u64;
    }

    /// Transactions with `from <= rev <= to`, at most `max`.
    pub(crate) fn between(&self, from: u64, to: u64, max: usize) -> Vec<TxnRef> {
        let start = usize::try_from(from.saturating_sub(self.first)).unwrap_or(usize::MAX);
        let end = usize::try_from((to + 1).saturating_sub(self.first))
            .unwrap_or(usize::MAX)
            .min(self.txns.len());
        (start..end).take(max).map(|i| self.at(i)).collect()
    }

    /// The newest transaction committed at or before `time_micros`.
    pub(crate) fn newest_at_or_before(&self, time_micros: u64) -> Option<TxnRef> {
        let n = self.txns.partition_point(|t| t.0 <= time_micros);
        n.checked_sub(1).map(|i| self.at(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(revs: std::ops::RangeInclusive<u64>) -> RevLog {
        let mut l = RevLog::default();
        for r in revs {
            assert!(l.push(TxnRef {
                rev: r,
                time_micros: r * 10,
                loc: Loc::put(1, u32::try_from(r).expect("small"))
            }));
        }
        l
    }

    #[test]
    fn positions_are_revisions() {
        let mut l = log(5..=20);
        assert!(
            !l.push(TxnRef {
                rev: 23,
                time_micros: 0,
                loc: Loc::put(1, 0)
            }),
            "gaps are refused"
        );
        assert_eq!(
            l.between(0, 7, 10)
                .iter()
                .map(|t| t.rev)
                .collect::<Vec<_>>(),
            vec![5, 6, 7]
        );
        assert_eq!(
            l.between(18, 99, 10)
                .iter()
                .map(|t| t.rev)
                .collect::<Vec<_>>(),
            vec![18, 19, 20]
        );
        assert_eq!(
            l.between(8, 19, 2)
                .iter()
                .map(|t| t.rev)
                .collect::<Vec<_>>(),
            vec![8, 9]
        );
        assert!(l.between(21, 30, 10).is_empty());
        assert_eq!(l.newest_at_or_before(75).map(|t| t.rev), Some(7));
        assert_eq!(l.newest_at_or_before(49), None);
        l.trim_through(9);
        assert_eq!((l.len(), l.between(0, 99, 1)[0].rev), (11, 10));
        l.trim_through(3);
        assert_eq!(l.len(), 11);
        l.trim_through(40);
        assert_eq!(l.len(), 0);
        assert!(l.push(TxnRef {
            rev: 41,
            time_micros: 0,
            loc: Loc::put(1, 0)
        }));
    }
}
