//! Watch fan-out: watchers that check every event of a range arrives exactly
//! once, timing each receipt from its create's send and ack, while writers run.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::Result;
use crate::load::{LoadResult, WatchStream, Writer, run_writers};
use crate::stats::{Histogram, rate};

/// When each Event of a watched range was sent by its writer and acknowledged to it.
pub struct AckTable {
    base: u64,
    epoch: Instant,
    /// Nanoseconds since `epoch`, plus one; 0 while not yet sent / acknowledged.
    sent: Vec<AtomicU64>,
    acked: Vec<AtomicU64>,
}

/// How long one event took to reach one watcher.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Delay {
    /// From the writer's ack; zero when the event arrived before the ack did.
    pub from_ack: Duration,
    /// From the moment the writer sent the create.
    pub from_send: Duration,
    pub before_ack: bool,
}

impl AckTable {
    pub fn new(range: &Range<u64>) -> Self {
        let slots = || {
            (range.start..range.end)
                .map(|_| AtomicU64::new(0))
                .collect()
        };
        Self {
            base: range.start,
            epoch: Instant::now(),
            sent: slots(),
            acked: slots(),
        }
    }

    fn nanos(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.epoch).as_nanos() as u64 + 1
    }

    fn mark(&self, table: &[AtomicU64], i: u64, t: Instant) {
        if let Some(slot) = table.get((i - self.base) as usize) {
            slot.store(self.nanos(t), Ordering::Release);
        }
    }

    pub fn send(&self, i: u64, t: Instant) {
        self.mark(&self.sent, i, t);
    }

    pub fn ack(&self, i: u64, t: Instant) {
        self.mark(&self.acked, i, t);
    }

    pub fn delay(&self, i: u64, received: Instant) -> Delay {
        let k = (i - self.base) as usize;
        let now = self.nanos(received);
        let (sent, acked) = (
            self.sent[k].load(Ordering::Acquire),
            self.acked[k].load(Ordering::Acquire),
        );
        let since = |t: u64| Duration::from_nanos(now.saturating_sub(t));
        Delay {
            from_ack: if acked == 0 {
                Duration::ZERO
            } else {
                since(acked)
            },
            from_send: if sent == 0 {
                Duration::ZERO
            } else {
                since(sent)
            },
            before_ack: acked == 0 || acked > now,
        }
    }
}

/// What the watchers of one phase saw.
#[derive(Debug, Default)]
pub struct WatchResult {
    pub writers: LoadResult,
    pub watchers: usize,
    /// Watchers that saw every event of the range.
    pub complete: usize,
    /// Events not seen, summed over watchers.
    pub missing: u64,
    /// Events seen twice, or outside the range.
    pub unexpected: u64,
    /// Ack → receipt (the target's measure).
    pub delivery: Histogram,
    /// Create sent → receipt.
    pub end_to_end: Histogram,
    /// Receipts that came before the writer had its ack.
    pub before_ack: u64,
    /// From the first write to the last watcher's last needed event.
    pub span: Duration,
    /// Stream bytes the watchers received, summed.
    pub bytes: u64,
}

impl WatchResult {
    pub fn delivered(&self) -> u64 {
        self.delivery.count()
    }

    pub fn delivered_rate(&self) -> f64 {
        rate(self.delivered(), self.span)
    }

    /// Stream bytes per delivered event.
    pub fn bytes_per_event(&self) -> f64 {
        self.bytes as f64 / self.delivered().max(1) as f64
    }
}

/// Delay histograms shared by the watchers that run on one thread: a
/// thousand watchers each with their own would miss the cache on every event.
#[derive(Default)]
pub struct Shard {
    delivery: Histogram,
    end_to_end: Histogram,
    before_ack: u64,
}

/// One shard per runtime thread (threads get an index on first use); a
/// watcher locks its thread's shard once per batch of events.
pub struct Shards(Vec<Mutex<Shard>>);

const SHARDS: usize = 16;

impl Shards {
    pub fn new() -> Self {
        Self((0..SHARDS).map(|_| Mutex::default()).collect())
    }

    pub fn record(&self, delays: &[Delay]) {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        thread_local! {
            static INDEX: usize = NEXT.fetch_add(1, Ordering::Relaxed) % SHARDS;
        }
        let shard = &self.0[INDEX.with(|i| *i)];
        let mut s = shard.lock().unwrap_or_else(|p| p.into_inner());
        for d in delays {
            s.delivery.record(d.from_ack);
            s.end_to_end.record(d.from_send);
            s.before_ack += u64::from(d.before_ack);
        }
    }

    fn merge_into(&self, r: &mut WatchResult) {
        let (delivery, end_to_end, before_ack) = self.totals();
        r.delivery.merge(&delivery);
        r.end_to_end.merge(&end_to_end);
        r.before_ack += before_ack;
    }

    /// Ack → receipt, send → receipt, and receipts before the ack, over every shard.
    pub fn totals(&self) -> (Histogram, Histogram, u64) {
        let mut t = Shard::default();
        for shard in &self.0 {
            let s = shard.lock().unwrap_or_else(|p| p.into_inner());
            t.delivery.merge(&s.delivery);
            t.end_to_end.merge(&s.end_to_end);
            t.before_ack += s.before_ack;
        }
        (t.delivery, t.end_to_end, t.before_ack)
    }
}

struct WatcherOutcome {
    seen: u64,
    unexpected: u64,
    finished: Option<Instant>,
    bytes: u64,
}

/// Starts `watchers` (already established), runs `writers` over `range`, and
/// waits up to `drain` after the last ack for every watcher to see every event.
pub async fn run_watch<W: Writer, S: WatchStream>(
    writers: Vec<W>,
    watchers: Vec<S>,
    range: Range<u64>,
    drain: Duration,
) -> Result<WatchResult> {
    let acks = Arc::new(AckTable::new(&range));
    let shards = Arc::new(Shards::new());
    let (stop_tx, stop_rx) = watch::channel(false);
    let n_watchers = watchers.len();
    let tasks: Vec<_> = watchers
        .into_iter()
        .map(|s| {
            let seen = Seen {
                acks: Arc::clone(&acks),
                shards: Arc::clone(&shards),
                range: range.clone(),
            };
            tokio::spawn(watcher(s, seen, stop_rx.clone()))
        })
        .collect();
    let start = Instant::now();
    let writers = run_writers(writers, range.clone(), Some(acks)).await;
    // Bounded drain: watchers stop on their own once complete.
    let stopper = tokio::spawn(async move {
        tokio::time::sleep(drain).await;
        let _ = stop_tx.send(true);
    });
    let mut result = WatchResult {
        writers: writers?,
        watchers: n_watchers,
        ..Default::default()
    };
    let want = range.end - range.start;
    let mut last = start;
    for t in tasks {
        let o = t.await??;
        result.missing += want - o.seen;
        result.unexpected += o.unexpected;
        result.bytes += o.bytes;
        if o.seen == want {
            result.complete += 1;
        }
        last = last.max(o.finished.unwrap_or(start));
    }
    stopper.abort();
    shards.merge_into(&mut result);
    result.span = last - start;
    Ok(result)
}

/// What every watcher of a phase shares.
struct Seen {
    acks: Arc<AckTable>,
    shards: Arc<Shards>,
    range: Range<u64>,
}

async fn watcher<S: WatchStream>(
    mut s: S,
    seen: Seen,
    mut stop: watch::Receiver<bool>,
) -> Result<WatcherOutcome> {
    let range = &seen.range;
    let want = range.end - range.start;
    let mut bits = vec![0u64; want.div_ceil(64) as usize];
    let mut out = WatcherOutcome {
        seen: 0,
        unexpected: 0,
        finished: None,
        bytes: 0,
    };
    let mut batch = Vec::with_capacity(256);
    let mut delays = Vec::with_capacity(256);
    let stopped = stop.wait_for(|&s| s);
    tokio::pin!(stopped);
    while out.seen < want {
        batch.clear();
        let more = tokio::select! {
            r = s.next_batch(&mut batch) => r?,
            _ = &mut stopped => break,
        };
        let now = Instant::now();
        delays.clear();
        for &i in &batch {
            if !range.contains(&i) {
                out.unexpected += 1;
                continue;
            }
            let k = (i - range.start) as usize;
            let (word, bit) = (k / 64, 1u64 << (k % 64));
            if bits[word] & bit != 0 {
                out.unexpected += 1;
                continue;
            }
            bits[word] |= bit;
            out.seen += 1;
            delays.push(seen.acks.delay(i, now));
        }
        if !delays.is_empty() {
            seen.shards.record(&delays);
            out.finished = Some(now);
        }
        if !more {
            break;
        }
    }
    out.bytes = s.received_bytes();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::tests::Counter;

    /// Replays fixed batches (10 bytes per event), then ends.
    struct Replay(Vec<Vec<u64>>, u64);
    impl WatchStream for Replay {
        async fn next_batch(&mut self, out: &mut Vec<u64>) -> Result<bool> {
            tokio::time::sleep(Duration::from_millis(1)).await;
            if self.0.is_empty() {
                return Ok(false);
            }
            let batch = self.0.remove(0);
            self.1 += 10 * batch.len() as u64;
            out.extend(batch);
            Ok(true)
        }

        fn received_bytes(&self) -> u64 {
            self.1
        }
    }

    #[tokio::test]
    async fn watchers_count_missing_and_unexpected_events() {
        let n = Arc::new(AtomicU64::new(0));
        let ws = vec![Counter(Arc::clone(&n))];
        let full = Replay(vec![vec![10, 11], vec![12, 13, 14]], 0);
        let gappy = Replay(vec![vec![10, 10, 99], vec![14]], 0);
        let r = run_watch(ws, vec![full, gappy], 10..15, Duration::from_millis(50))
            .await
            .unwrap();
        assert_eq!((r.watchers, r.complete), (2, 1));
        assert_eq!(r.missing, 3);
        assert_eq!(r.unexpected, 2);
        assert_eq!(r.delivered(), 7);
        assert_eq!(r.end_to_end.count(), 7);
        assert_eq!(r.bytes, 90, "every batch read counts, the unexpected too");
    }

    #[test]
    fn delays_are_measured_from_send_and_ack() {
        let t = AckTable::new(&(5..8));
        let t0 = Instant::now();
        t.send(5, t0);
        t.ack(5, t0 + Duration::from_millis(2));
        let d = t.delay(5, t0 + Duration::from_millis(7));
        assert_eq!(d.from_ack, Duration::from_millis(5));
        assert_eq!(d.from_send, Duration::from_millis(7));
        assert!(!d.before_ack);
        t.send(6, t0);
        let early = t.delay(6, t0 + Duration::from_millis(1));
        assert_eq!(early.from_ack, Duration::ZERO);
        assert_eq!(early.from_send, Duration::from_millis(1));
        assert!(early.before_ack);
    }
}
