//! Latency histograms (log-linear buckets, < 1% error) and the figures read from them.

use std::time::Duration;

/// Linear sub-buckets per power of two: 128 gives a relative error below 0.8%.
const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;

/// A histogram of durations in nanoseconds. Buckets grow only as far as the
/// largest value recorded, so a thousand of them (one per watcher) stay small.
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    counts: Vec<u64>,
    count: u64,
    min_ns: u64,
    max_ns: u64,
}

/// Bucket of a value: values below 256 have their own bucket, larger ones
/// share one with the values that agree in their top 8 bits.
fn bucket(v: u64) -> usize {
    if v < 2 * SUB {
        return v as usize;
    }
    let shift = 63 - v.leading_zeros() - SUB_BITS;
    let mantissa = v >> shift; // in [SUB, 2 * SUB)
    (((shift as u64 + 1) << SUB_BITS) + (mantissa - SUB)) as usize
}

/// Smallest value that falls in bucket `i`.
fn lower_bound(i: usize) -> u64 {
    let i = i as u64;
    if i < 2 * SUB {
        return i;
    }
    let shift = (i >> SUB_BITS) - 1;
    let v = u128::from((i & (SUB - 1)) + SUB) << shift;
    u64::try_from(v).unwrap_or(u64::MAX)
}

impl Histogram {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn record(&mut self, d: Duration) {
        self.record_ns(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    }

    pub fn record_ns(&mut self, ns: u64) {
        let b = bucket(ns);
        if b >= self.counts.len() {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
        if self.count == 0 || ns < self.min_ns {
            self.min_ns = ns;
        }
        self.max_ns = self.max_ns.max(ns);
        self.count += 1;
    }

    pub fn merge(&mut self, other: &Histogram) {
        if other.count == 0 {
            return;
        }
        if other.counts.len() > self.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        if self.count == 0 || other.min_ns < self.min_ns {
            self.min_ns = other.min_ns;
        }
        self.max_ns = self.max_ns.max(other.max_ns);
        self.count += other.count;
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn max(&self) -> Duration {
        Duration::from_nanos(self.max_ns)
    }

    /// The value at quantile `q` (0..=1): the middle of the bucket holding the
    /// ceil(q * count)-th smallest value, clamped to the exact min and max
    /// (which the smallest and largest ranks return exactly).
    pub fn quantile(&self, q: f64) -> Duration {
        if self.count == 0 {
            return Duration::ZERO;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).max(1);
        if rank >= self.count {
            return Duration::from_nanos(self.max_ns);
        }
        if rank == 1 {
            return Duration::from_nanos(self.min_ns);
        }
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let lo = lower_bound(i);
                let hi = lower_bound(i + 1);
                let mid = lo + (hi - lo) / 2;
                return Duration::from_nanos(mid.clamp(self.min_ns, self.max_ns));
            }
        }
        Duration::from_nanos(self.max_ns)
    }

    pub fn p50(&self) -> Duration {
        self.quantile(0.50)
    }

    pub fn p99(&self) -> Duration {
        self.quantile(0.99)
    }
}

/// Median of a set of durations (the lower middle for an even count).
pub fn median(samples: &[Duration]) -> Duration {
    let mut v = samples.to_vec();
    v.sort();
    v.get(v.len().saturating_sub(1) / 2)
        .copied()
        .unwrap_or_default()
}

/// Operations per second.
pub fn rate(ops: u64, elapsed: Duration) -> f64 {
    let s = elapsed.as_secs_f64();
    if s <= 0.0 { 0.0 } else { ops as f64 / s }
}

/// A duration as milliseconds with a sensible number of digits.
pub fn ms(d: Duration) -> String {
    let v = d.as_secs_f64() * 1e3;
    if v >= 100.0 {
        format!("{v:.0} ms")
    } else if v >= 10.0 {
        format!("{v:.1} ms")
    } else {
        format!("{v:.2} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_ordered() {
        let mut prev = 0;
        for i in 1..4000 {
            let lo = lower_bound(i);
            assert!(lo > prev, "bucket {i} starts at {lo}, previous at {prev}");
            assert_eq!(bucket(lo), i);
            assert_eq!(bucket(lo - 1), i - 1);
            prev = lo;
        }
        assert_eq!(bucket(u64::MAX), bucket(u64::MAX - 1));
    }

    #[test]
    fn quantiles_of_a_uniform_range_are_within_one_percent() {
        let mut h = Histogram::new();
        for v in 1..=100_000u64 {
            h.record_ns(v * 1000); // 1 µs .. 100 ms
        }
        assert_eq!(h.count(), 100_000);
        let close = |got: Duration, want_ns: f64| {
            let got = got.as_nanos() as f64;
            assert!((got - want_ns).abs() / want_ns < 0.01, "{got} vs {want_ns}");
        };
        close(h.p50(), 50_000_000.0);
        close(h.p99(), 99_000_000.0);
        close(h.quantile(0.001), 100_000.0);
        assert_eq!(h.quantile(1.0), Duration::from_millis(100));
        assert_eq!(h.quantile(0.0), Duration::from_micros(1));
    }

    #[test]
    fn merge_equals_recording_everything_in_one() {
        let (mut a, mut b, mut all) = (Histogram::new(), Histogram::new(), Histogram::new());
        for v in [5u64, 700, 1_000_000, 3, 42_000_000] {
            a.record_ns(v);
            all.record_ns(v);
        }
        for v in [9u64, 80_000, 2] {
            b.record_ns(v);
            all.record_ns(v);
        }
        a.merge(&b);
        a.merge(&Histogram::new());
        assert_eq!(a.count(), all.count());
        for q in [0.0, 0.25, 0.5, 0.9, 0.99, 1.0] {
            assert_eq!(a.quantile(q), all.quantile(q));
        }
        assert_eq!(a.max(), Duration::from_nanos(42_000_000));
        assert_eq!(a.quantile(0.0), Duration::from_nanos(2));
    }

    #[test]
    fn small_helpers() {
        assert_eq!(Histogram::new().p99(), Duration::ZERO);
        let d = |ms| Duration::from_millis(ms);
        assert_eq!(median(&[d(5), d(1), d(3)]), d(3));
        assert_eq!(median(&[d(4), d(1), d(3), d(2)]), d(2));
        assert_eq!(median(&[]), Duration::ZERO);
        assert_eq!(rate(500, Duration::from_millis(250)), 2000.0);
        assert_eq!(ms(Duration::from_micros(1900)), "1.90 ms");
        assert_eq!(ms(Duration::from_millis(320)), "320 ms");
    }
}
