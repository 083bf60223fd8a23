//! Distributions of what the engine does, kept in plain atomics for anyone
//! to read (the server turns them into metrics): fdatasync latency,
//! transactions per group commit, compaction pass durations, and how long
//! live watchers take to pick up a commit.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Upper bounds of fsync and compaction buckets, in microseconds.
pub const DURATION_BOUNDS_MICROS: [u64; 14] = [
    100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
    1_000_000, 5_000_000,
];
/// Upper bounds of the group-commit buckets, in transactions.
pub const BATCH_BOUNDS: [u64; 10] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

/// A fixed-bucket histogram updated without locks.
#[derive(Debug)]
pub struct Distribution {
    bounds: &'static [u64],
    /// One per bound, plus one for values above the last.
    counts: Box<[AtomicU64]>,
    sum: AtomicU64,
}

/// A distribution as read at one moment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DistributionSnapshot {
    /// `(upper bound, values at or below it)`, cumulative, bounds ascending.
    pub buckets: Vec<(u64, u64)>,
    pub count: u64,
    pub sum: u64,
}

impl Distribution {
    #[must_use]
    pub fn new(bounds: &'static [u64]) -> Distribution {
        Distribution {
            bounds,
            counts: (0..=bounds.len()).map(|_| AtomicU64::new(0)).collect(),
            sum: AtomicU64::new(0),
        }
    }

    pub fn record(&self, value: u64) {
        let slot = self.bounds.partition_point(|&b| b < value);
        self.counts[slot].fetch_add(1, Ordering::Relaxed);
        self.sum.fetch_add(value, Ordering::Relaxed);
    }

    pub fn record_duration(&self, d: Duration) {
        self.record(u64::try_from(d.as_micros()).unwrap_or(u64::MAX));
    }

    #[must_use]
    pub fn snapshot(&self) -> DistributionSnapshot {
        let mut running = 0;
        let mut buckets = Vec::with_capacity(self.bounds.len());
        for (bound, count) in self.bounds.iter().zip(self.counts.iter()) {
            running += count.load(Ordering::Relaxed);
            buckets.push((*bound, running));
        }
        let above = self.counts[self.bounds.len()].load(Ordering::Relaxed);
        DistributionSnapshot {
            buckets,
            count: running + above,
            sum: self.sum.load(Ordering::Relaxed),
        }
    }
}

/// The engine's distributions.
#[derive(Debug)]
pub struct Timings {
    /// fdatasync of a commit batch, microseconds.
    pub fsync: Distribution,
    /// Transactions made durable by one sync.
    pub group_commit: Distribution,
    /// One compaction pass, microseconds.
    pub compaction: Distribution,
    /// From a commit batch's publication to a live watcher taking it,
    /// microseconds.
    pub watch_lag: Distribution,
}

impl Default for Timings {
    fn default() -> Timings {
        Timings {
            fsync: Distribution::new(&DURATION_BOUNDS_MICROS),
            group_commit: Distribution::new(&BATCH_BOUNDS),
            compaction: Distribution::new(&DURATION_BOUNDS_MICROS),
            watch_lag: Distribution::new(&DURATION_BOUNDS_MICROS),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_cumulative_and_bounds_inclusive() {
        let d = Distribution::new(&BATCH_BOUNDS);
        for v in [1, 1, 2, 3, 600] {
            d.record(v);
        }
        let s = d.snapshot();
        assert_eq!(s.count, 5);
        assert_eq!(s.sum, 607);
        assert_eq!(s.buckets[0], (1, 2));
        assert_eq!(s.buckets[1], (2, 3));
        assert_eq!(s.buckets[2], (4, 4));
        assert_eq!(s.buckets.last(), Some(&(512, 4)));
    }
}
