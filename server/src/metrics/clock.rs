//! Monotonic readings in whole nanoseconds for the metrics' clocks: one
//! `clock_gettime` to read, one subtraction for an interval. `Instant`
//! gives the same clock, but each `duration_since` normalises a pair of
//! timespecs, which a create paid about ten times over just to be
//! measured. rustix goes through libc here (`use-libc`): its own vDSO
//! lookup reads the auxiliary vector's ELF image directly, which crashes
//! under valgrind, whose instruction counts are how the cost is measured.

use rustix::time::{ClockId, clock_gettime};

/// A reading of the monotonic clock (`CLOCK_MONOTONIC`, as `Instant`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Stamp(u64);

impl Stamp {
    /// Now.
    #[must_use]
    pub fn now() -> Stamp {
        let t = clock_gettime(ClockId::Monotonic);
        // The monotonic clock counts from boot: both fields are small and
        // non-negative.
        let secs = u64::try_from(t.tv_sec).unwrap_or_default();
        let nanos = u64::try_from(t.tv_nsec).unwrap_or_default();
        Stamp(secs * 1_000_000_000 + nanos)
    }

    /// Nanoseconds from `earlier` to this reading (0 if `earlier` is later).
    #[must_use]
    pub fn nanos_since(self, earlier: Stamp) -> u64 {
        self.0.saturating_sub(earlier.0)
    }

    /// Nanoseconds from this reading to now.
    #[must_use]
    pub fn elapsed_nanos(self) -> u64 {
        Stamp::now().nanos_since(self)
    }
}

/// Nanoseconds as the seconds Prometheus records.
#[must_use]
#[allow(clippy::cast_precision_loss)]
pub fn seconds(nanos: u64) -> f64 {
    nanos as f64 * 1e-9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_advance_with_the_clock_instant_uses() {
        // Instant's readings bracket ours: on one clock, ours cannot span more.
        let instant = std::time::Instant::now();
        let a = Stamp::now();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let b = Stamp::now();
        let waited = instant.elapsed();
        let nanos = b.nanos_since(a);
        assert!(nanos >= 20_000_000, "{nanos} ns after a 20 ms sleep");
        let bracket = u64::try_from(waited.as_nanos()).unwrap();
        assert!(nanos <= bracket, "{nanos} ns, Instant saw {waited:?}");
        assert_eq!(a.nanos_since(b), 0, "an earlier reading is never after");
        assert!((seconds(1_500_000_000) - 1.5).abs() < 1e-12);
    }
}
