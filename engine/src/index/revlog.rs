//! The revision-ordered log of retained transactions: where each record is
//! and when it was committed.

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
    txns: VecDeque<TxnRef>,
}

impl RevLog {
    pub(crate) fn push(&mut self, t: TxnRef) {
        debug_assert!(self.txns.back().is_none_or(|b| b.rev < t.rev));
        self.txns.push_back(t);
    }

    pub(crate) fn len(&self) -> usize {
        self.txns.len()
    }

    /// Forgets transactions at or before `rev`.
    pub(crate) fn trim_through(&mut self, rev: u64) {
        let n = self.txns.partition_point(|t| t.rev <= rev);
        self.txns.drain(..n);
    }

    /// Transactions with `from <= rev <= to`, at most `max`.
    pub(crate) fn between(&self, from: u64, to: u64, max: usize) -> Vec<TxnRef> {
        let start = self.txns.partition_point(|t| t.rev < from);
        self.txns
            .range(start..)
            .take_while(|t| t.rev <= to)
            .take(max)
            .copied()
            .collect()
    }

    /// The newest transaction committed at or before `time_micros`.
    pub(crate) fn newest_at_or_before(&self, time_micros: u64) -> Option<TxnRef> {
        let n = self.txns.partition_point(|t| t.time_micros <= time_micros);
        n.checked_sub(1).map(|i| self.txns[i])
    }
}
