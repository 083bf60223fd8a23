//! How far watch delivery runs behind commits, and the pause that keeps it
//! near: every watch stream reports, as it takes a batch, how long ago the
//! batch was published, and writes wait a little while many recent takes
//! were late. Under a write load the watchers cannot keep up with, writers
//! then slow to what the watchers can take, instead of every watcher's
//! backlog (and every event's delay) growing until it is dropped. A few
//! slow watchers (a client on a slow link) do not slow anyone's writes.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Takes are counted per window; the last two windows count.
const WINDOW: Duration = Duration::from_millis(20);
/// A take later than this is late; delays up to it cost writers nothing.
const TARGET: Duration = Duration::from_millis(10);
/// Writes pause only when at least this many takes were late lately...
const MIN_LATE: u64 = 16;
/// ...and at least this share of all takes (1/4).
const LATE_SHARE_DIVISOR: u64 = 4;
/// The longest one write waits, however far behind delivery is.
const MAX_PAUSE: Duration = Duration::from_millis(50);

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// One window's takes.
#[derive(Default)]
struct Counts {
    window: AtomicU64,
    takes: AtomicU64,
    late: AtomicU64,
    /// Sum of the late takes' delays, µs.
    late_micros: AtomicU64,
}

/// The recent delivery delay of a store's watchers.
#[derive(Default)]
pub struct DeliveryLag {
    /// By window parity: this window's and the last one's.
    windows: [Counts; 2],
    /// Writes that waited, and how long in all (µs), since start.
    paced: AtomicU64,
    paced_micros: AtomicU64,
}

impl DeliveryLag {
    fn window_of(at: Instant) -> u64 {
        // Windows start at 1, so a never-used slot (0) is never current.
        micros(at.saturating_duration_since(epoch())) / micros(WINDOW) + 1
    }

    /// A watcher that started at `started` took a batch published at
    /// `published`. A batch published before the watcher started is history
    /// it replays, not a delivery running late, and is not counted.
    pub fn report(&self, started: Instant, published: Instant) {
        self.report_at(started, published, Instant::now());
    }

    fn report_at(&self, started: Instant, published: Instant, taken: Instant) {
        if published < started {
            return;
        }
        let delay = micros(taken.saturating_duration_since(published));
        let now = Self::window_of(taken);
        let slot = &self.windows[(now % 2) as usize];
        let window = slot.window.load(Ordering::Acquire);
        if window != now
            && slot
                .window
                .compare_exchange(window, now, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        {
            // Counts of a racing report may land in the new window: the
            // share is an estimate.
            slot.takes.store(0, Ordering::Release);
            slot.late.store(0, Ordering::Release);
            slot.late_micros.store(0, Ordering::Release);
        }
        slot.takes.fetch_add(1, Ordering::AcqRel);
        if delay > micros(TARGET) {
            slot.late.fetch_add(1, Ordering::AcqRel);
            slot.late_micros.fetch_add(delay, Ordering::AcqRel);
        }
    }

    /// How long a write should wait now: when many recent takes were late,
    /// their mean delay past the target, up to the longest pause.
    #[must_use]
    pub fn pause(&self) -> Duration {
        self.pause_at(Instant::now())
    }

    fn pause_at(&self, at: Instant) -> Duration {
        let now = Self::window_of(at);
        let (mut takes, mut late, mut late_micros) = (0, 0, 0);
        for slot in &self.windows {
            let window = slot.window.load(Ordering::Acquire);
            if window == now || window + 1 == now {
                takes += slot.takes.load(Ordering::Acquire);
                late += slot.late.load(Ordering::Acquire);
                late_micros += slot.late_micros.load(Ordering::Acquire);
            }
        }
        if late < MIN_LATE || late * LATE_SHARE_DIVISOR < takes {
            return Duration::ZERO;
        }
        Duration::from_micros(late_micros / late)
            .saturating_sub(TARGET)
            .min(MAX_PAUSE)
    }

    /// Waits [`DeliveryLag::pause`], if any.
    pub async fn pace(&self) {
        self.wait(self.pause()).await;
    }

    /// Waits `pause` (none when zero), counted.
    async fn wait(&self, pause: Duration) {
        if !pause.is_zero() {
            self.paced.fetch_add(1, Ordering::Relaxed);
            self.paced_micros
                .fetch_add(micros(pause), Ordering::Relaxed);
            tokio::time::sleep(pause).await;
        }
    }

    /// Writes that waited since start, and how long they waited in all.
    #[must_use]
    pub fn paced(&self) -> (u64, Duration) {
        (
            self.paced.load(Ordering::Relaxed),
            Duration::from_micros(self.paced_micros.load(Ordering::Relaxed)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Takes at `now`, of batches published `ms` before it.
    fn take(lag: &DeliveryLag, now: Instant, ms: u64, n: u64) {
        for _ in 0..n {
            lag.report_at(epoch(), now - Duration::from_millis(ms), now);
        }
    }

    #[test]
    fn writes_pause_while_many_takes_are_late_and_only_lately() {
        let lag = DeliveryLag::default();
        let now = epoch() + Duration::from_secs(100);
        assert_eq!(lag.pause_at(now), Duration::ZERO, "nothing reported");
        take(&lag, now, 0, 100);
        assert_eq!(lag.pause_at(now), Duration::ZERO, "on time");
        take(&lag, now, 30, 100);
        assert_eq!(lag.pause_at(now), Duration::from_millis(20));
        assert_eq!(
            lag.pause_at(now + WINDOW),
            Duration::from_millis(20),
            "the last window counts"
        );
        take(&lag, now, 5_000, 100);
        assert_eq!(lag.pause_at(now), MAX_PAUSE, "capped");
        assert_eq!(
            lag.pause_at(now + 2 * WINDOW),
            Duration::ZERO,
            "forgotten once two windows pass"
        );
        take(&lag, now + 2 * WINDOW, 0, 1);
        assert_eq!(
            lag.pause_at(now + 2 * WINDOW),
            Duration::ZERO,
            "a reused window starts afresh"
        );
    }

    #[test]
    fn a_few_slow_watchers_do_not_pause_writes() {
        let lag = DeliveryLag::default();
        let now = epoch() + Duration::from_secs(100);
        take(&lag, now, 5_000, MIN_LATE - 1);
        assert_eq!(lag.pause_at(now), Duration::ZERO, "too few late takes");
        take(&lag, now, 0, 1_000);
        take(&lag, now, 5_000, 1);
        assert_eq!(
            lag.pause_at(now),
            Duration::ZERO,
            "a small share of all takes"
        );
    }

    #[test]
    fn history_a_watcher_replays_is_not_late() {
        let lag = DeliveryLag::default();
        let now = epoch() + Duration::from_secs(100);
        let (published, started) = (now - Duration::from_secs(60), now - Duration::from_secs(1));
        for _ in 0..100 {
            lag.report_at(started, published, now);
        }
        assert_eq!(lag.pause_at(now), Duration::ZERO);
        let started = now - Duration::from_secs(90);
        for _ in 0..100 {
            lag.report_at(started, published, now);
        }
        assert_eq!(
            lag.pause_at(now),
            MAX_PAUSE,
            "a watcher's own late takes count"
        );
    }

    #[tokio::test]
    async fn waits_are_counted() {
        let lag = DeliveryLag::default();
        lag.pace().await;
        assert_eq!(lag.paced(), (0, Duration::ZERO), "nothing to wait for");
        lag.wait(Duration::from_millis(3)).await;
        lag.wait(Duration::from_millis(2)).await;
        assert_eq!(lag.paced(), (2, Duration::from_millis(5)));
    }
}
