//! kube's timing-ratio histogram: a quantity (requests executing) divided
//! by its limit, observed "at the end of every nanosecond" — each bucket
//! accumulates the nanoseconds the ratio spent in it, the count the
//! nanoseconds elapsed, the sum the ratio weighted by them. Used for
//! `apiserver_flowcontrol_read_vs_write_current_requests`, which the
//! max-in-flight filter feeds.

use parking_lot::Mutex;
use prometheus_client::encoding::{EncodeLabelSet, EncodeMetric, MetricEncoder, NoLabelSet};
use prometheus_client::metrics::MetricType;

use super::clock::Stamp;

/// kube's buckets for the read-vs-write ratio.
pub const READ_VS_WRITE_BOUNDS: [f64; 15] = [
    0.0, 0.001, 0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0,
];

struct State {
    since: Stamp,
    value: i64,
    /// Nanoseconds per bucket (not cumulative), the last for `+Inf`.
    nanos: Vec<u64>,
    /// Value × nanoseconds, divided by the denominator only when read:
    /// every request pays two changes, so they stay integer work.
    weighted: i128,
    count: u64,
}

/// One series: a changing value over a fixed denominator.
pub struct TimingRatio {
    bounds: &'static [f64],
    denominator: f64,
    /// The bucket of each value from 0 to the denominator, worked out once.
    slots: Box<[u8]>,
    state: Mutex<State>,
}

impl std::fmt::Debug for TimingRatio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TimingRatio")
            .field("denominator", &self.denominator)
            .finish_non_exhaustive()
    }
}

/// A histogram read at one moment: `(sum, count, per-bucket counts)`.
pub type Reading = (f64, u64, Vec<(f64, u64)>);

impl TimingRatio {
    /// A series at 0 from now, divided by `denominator` (> 0).
    #[must_use]
    pub fn new(bounds: &'static [f64], denominator: f64) -> TimingRatio {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let top = denominator.clamp(0.0, 65_536.0) as u32;
        let slots = (0..=top)
            .map(|value| {
                let slot = slot_of(bounds, f64::from(value) / denominator);
                u8::try_from(slot).unwrap_or(u8::MAX)
            })
            .collect();
        TimingRatio {
            bounds,
            denominator,
            slots,
            state: Mutex::new(State {
                since: Stamp::now(),
                value: 0,
                nanos: vec![0; bounds.len() + 1],
                weighted: 0,
                count: 0,
            }),
        }
    }

    /// Moves the value by `delta` (a request starting or ending).
    pub fn add(&self, delta: i64) {
        let mut state = self.state.lock();
        self.advance(&mut state, Stamp::now());
        state.value += delta;
    }

    /// Credits the time since the last change to the current ratio.
    fn advance(&self, state: &mut State, now: Stamp) {
        let nanos = now.nanos_since(state.since);
        if nanos == 0 {
            return;
        }
        let slot = match usize::try_from(state.value)
            .ok()
            .and_then(|v| self.slots.get(v))
        {
            Some(&slot) => usize::from(slot),
            #[allow(clippy::cast_precision_loss)]
            None => slot_of(self.bounds, state.value as f64 / self.denominator),
        };
        state.nanos[slot] += nanos;
        state.weighted += i128::from(state.value) * i128::from(nanos);
        state.count += nanos;
        state.since = now;
    }

    /// The histogram as of now.
    #[must_use]
    pub fn read(&self) -> Reading {
        let mut state = self.state.lock();
        self.advance(&mut state, Stamp::now());
        let buckets = self
            .bounds
            .iter()
            .copied()
            .chain(std::iter::once(f64::INFINITY))
            .zip(state.nanos.iter().copied())
            .collect();
        #[allow(clippy::cast_precision_loss)]
        let sum = state.weighted as f64 / self.denominator;
        (sum, state.count, buckets)
    }
}

/// The first bucket whose bound holds `ratio`.
fn slot_of(bounds: &[f64], ratio: f64) -> usize {
    bounds.partition_point(|&b| b < ratio)
}

/// Labelled timing-ratio series encoded as one histogram family.
#[derive(Debug)]
pub struct TimingRatioFamily<L> {
    pub series: Vec<(L, std::sync::Arc<TimingRatio>)>,
}

impl<L: EncodeLabelSet + std::fmt::Debug + Send + Sync> EncodeMetric for TimingRatioFamily<L> {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), std::fmt::Error> {
        for (labels, series) in &self.series {
            let (sum, count, buckets) = series.read();
            encoder
                .encode_family(labels)?
                .encode_histogram::<NoLabelSet>(sum, count, &buckets, None)?;
        }
        Ok(())
    }

    fn metric_type(&self) -> MetricType {
        MetricType::Histogram
    }

    fn is_empty(&self) -> bool {
        self.series.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn time_is_credited_to_the_ratio_that_held_it() {
        let series = TimingRatio::new(&READ_VS_WRITE_BOUNDS, 4.0);
        series.add(2);
        std::thread::sleep(Duration::from_millis(20));
        series.add(-2);
        let (sum, count, buckets) = series.read();
        // Half the limit for ≥ 20 ms: bucket le=0.5 holds that time, and the
        // sum is 0.5 × those nanoseconds.
        let half = buckets.iter().find(|(b, _)| *b == 0.5).unwrap().1;
        assert!(half >= 20_000_000, "{buckets:?}");
        #[allow(clippy::cast_precision_loss)]
        let expected = 0.5 * half as f64;
        assert!((sum - expected).abs() < 1.0, "{sum} vs {expected}");
        let at_zero = buckets[0].1;
        assert_eq!(count, half + at_zero);
        assert!(
            buckets
                .iter()
                .filter(|(b, _)| *b != 0.5 && *b != 0.0)
                .all(|(_, n)| *n == 0)
        );
    }

    #[test]
    fn ratios_above_one_land_in_the_overflow_bucket() {
        let series = TimingRatio::new(&READ_VS_WRITE_BOUNDS, 1.0);
        series.add(3);
        std::thread::sleep(Duration::from_millis(2));
        let (_, _, buckets) = series.read();
        let (bound, nanos) = *buckets.last().unwrap();
        assert!(bound.is_infinite());
        assert!(nanos > 0);
    }
}
