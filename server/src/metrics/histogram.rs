//! A histogram recorded without a lock: one atomic counter per bucket and
//! the sum as an atomic `f64`. prometheus-client's own takes a mutex and
//! scans its buckets in order on every observation, which a create pays
//! for several times over; here an observation is a binary search and two
//! uncontended atomic adds.
//!
//! The count is not kept apart: it is read as the sum of the buckets, so a
//! scrape never shows a `+Inf` bucket that disagrees with `_count`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use prometheus_client::encoding::{EncodeMetric, MetricEncoder, NoLabelSet};
use prometheus_client::metrics::{MetricType, TypedMetric};

struct Inner {
    /// Finite upper bounds, ascending; `+Inf` is the bucket after them.
    bounds: Box<[f64]>,
    /// Observations per bucket (not cumulative), the last for `+Inf`.
    counts: Box<[AtomicU64]>,
    sum_bits: AtomicU64,
}

/// A classic histogram; clones share their series.
#[derive(Clone)]
pub struct Histogram {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Histogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Histogram")
            .field("bounds", &self.inner.bounds)
            .finish_non_exhaustive()
    }
}

impl Histogram {
    /// Buckets with these upper bounds (ascending; non-finite ones are
    /// dropped, `+Inf` is always there).
    pub fn new(bounds: impl IntoIterator<Item = f64>) -> Histogram {
        let bounds: Box<[f64]> = bounds.into_iter().filter(|b| b.is_finite()).collect();
        let counts = (0..=bounds.len()).map(|_| AtomicU64::new(0)).collect();
        Histogram {
            inner: Arc::new(Inner {
                bounds,
                counts,
                sum_bits: AtomicU64::new(0f64.to_bits()),
            }),
        }
    }

    /// Records one observation (a NaN lands in `+Inf`, as Prometheus'
    /// clients put it).
    pub fn observe(&self, value: f64) {
        let inner = &*self.inner;
        let slot = if value.is_nan() {
            inner.bounds.len()
        } else {
            inner.bounds.partition_point(|&bound| bound < value)
        };
        inner.counts[slot].fetch_add(1, Ordering::Relaxed);
        let mut current = inner.sum_bits.load(Ordering::Relaxed);
        loop {
            let next = (f64::from_bits(current) + value).to_bits();
            match inner.sum_bits.compare_exchange_weak(
                current,
                next,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return,
                Err(seen) => current = seen,
            }
        }
    }

    /// `(sum, count, per-bucket counts)` as of now.
    #[must_use]
    pub fn read(&self) -> (f64, u64, Vec<(f64, u64)>) {
        let inner = &*self.inner;
        let buckets: Vec<(f64, u64)> = inner
            .bounds
            .iter()
            .copied()
            .chain(std::iter::once(f64::INFINITY))
            .zip(inner.counts.iter().map(|c| c.load(Ordering::Relaxed)))
            .collect();
        let count = buckets.iter().map(|(_, n)| n).sum();
        let sum = f64::from_bits(inner.sum_bits.load(Ordering::Relaxed));
        (sum, count, buckets)
    }
}

impl TypedMetric for Histogram {
    const TYPE: MetricType = MetricType::Histogram;
}

impl EncodeMetric for Histogram {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), std::fmt::Error> {
        let (sum, count, buckets) = self.read();
        encoder.encode_histogram::<NoLabelSet>(sum, count, &buckets, None)
    }

    fn metric_type(&self) -> MetricType {
        Self::TYPE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_land_in_the_first_bucket_that_holds_them() {
        let h = Histogram::new([0.1, 1.0, f64::INFINITY]);
        for v in [0.05, 0.1, 0.5, 1.0, 7.0, f64::NAN] {
            h.observe(v);
        }
        let (sum, count, buckets) = h.read();
        assert_eq!(
            buckets,
            [(0.1, 2), (1.0, 2), (f64::INFINITY, 2)],
            "bounds are inclusive; NaN and overflow go to +Inf"
        );
        assert_eq!(count, 6);
        assert!(sum.is_nan(), "a NaN observation poisons the sum, as in Go");
    }

    #[test]
    fn concurrent_observations_are_all_counted() {
        let h = Histogram::new([1.0]);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| (0..10_000).for_each(|_| h.observe(0.5)));
            }
        });
        let (sum, count, buckets) = h.read();
        assert_eq!((count, buckets[0].1), (40_000, 40_000));
        assert!((sum - 20_000.0).abs() < f64::EPSILON);
    }

    #[test]
    fn the_text_form_is_cumulative_with_count_and_sum() {
        let mut registry = prometheus_client::registry::Registry::default();
        let h = Histogram::new([0.5, 2.0]);
        registry.register("demo", "demo", h.clone());
        h.observe(0.25);
        h.observe(1.0);
        h.observe(3.0);
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).expect("encode");
        for line in [
            "demo_sum 4.25",
            "demo_count 3",
            "demo_bucket{le=\"0.5\"} 1",
            "demo_bucket{le=\"2.0\"} 2",
            "demo_bucket{le=\"+Inf\"} 3",
        ] {
            assert!(text.contains(line), "{line} in\n{text}");
        }
    }
}
