//! Selective watch fan-out: each watcher selects some of the created
//! objects; every object must reach exactly the watchers that select it,
//! once, and none other. Receipts are timed from the create's ack as in
//! `fanout`. Watchers keep reading for a grace period after the last of them
//! is complete, so an object sent to a watcher that does not select it is
//! seen and counted even when it comes late.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, watch};

use crate::Result;
use crate::fanout::{AckTable, Shards};
use crate::load::{LoadResult, WatchStream, Writer, run_writers};
use crate::stats::Histogram;

/// Which object indexes a watcher selects.
pub type Selects = Arc<dyn Fn(u64) -> bool + Send + Sync>;

/// How long watchers keep reading once all are complete, to catch strays.
pub const GRACE: Duration = Duration::from_millis(500);

/// What the writers and the selective watchers of one phase did.
#[derive(Debug, Default)]
pub struct SelectiveResult {
    pub writers: LoadResult,
    pub watchers: usize,
    /// Watchers that received every object they select.
    pub complete: usize,
    /// Deliveries due, summed over watchers.
    pub expected: u64,
    /// Due deliveries that never came.
    pub missing: u64,
    /// Objects received by a watcher that does not select them (or outside the range).
    pub stray: u64,
    /// Objects a watcher received more than once.
    pub duplicate: u64,
    /// Ack → receipt of the due deliveries.
    pub delivery: Histogram,
    /// Create sent → receipt.
    pub end_to_end: Histogram,
    pub before_ack: u64,
    /// The watchers were still incomplete when the drain time ran out.
    pub timed_out: bool,
}

impl SelectiveResult {
    /// Every object reached exactly its watchers.
    pub fn exact(&self) -> bool {
        self.missing == 0 && self.stray == 0 && self.duplicate == 0
    }

    /// "1000/1000 watchers complete, 0 missing, 0 stray, 0 duplicate of 10000 due".
    pub fn verdict(&self) -> String {
        format!(
            "{}/{} watchers complete, {} missing, {} stray, {} duplicate of {} due{}",
            self.complete,
            self.watchers,
            self.missing,
            self.stray,
            self.duplicate,
            self.expected,
            if self.timed_out {
                " (drain time ran out)"
            } else {
                ""
            }
        )
    }
}

struct Outcome {
    want: u64,
    seen: u64,
    stray: u64,
    duplicate: u64,
}

/// What every watcher task shares.
struct Shared {
    acks: Arc<AckTable>,
    shards: Arc<Shards>,
    range: Range<u64>,
    incomplete: AtomicUsize,
    all_complete: Notify,
}

impl Shared {
    fn completed_one(&self) {
        if self.incomplete.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.all_complete.notify_one();
        }
    }
}

/// Starts `watchers` (established, each with what it selects), runs
/// `writers` over `range` (giving up after `limit`), waits up to `drain`
/// after the last ack for every watcher to be complete, then `GRACE` more.
pub async fn run_selective<W: Writer, S: WatchStream>(
    writers: Vec<W>,
    watchers: Vec<(S, Selects)>,
    range: Range<u64>,
    drain: Duration,
    limit: Duration,
) -> Result<SelectiveResult> {
    let shared = Arc::new(Shared {
        acks: Arc::new(AckTable::new(&range)),
        shards: Arc::new(Shards::new()),
        range: range.clone(),
        incomplete: AtomicUsize::new(watchers.len()),
        all_complete: Notify::new(),
    });
    let (stop_tx, stop_rx) = watch::channel(false);
    let n_watchers = watchers.len();
    let tasks: Vec<_> = watchers
        .into_iter()
        .map(|(s, selects)| {
            let want = range.clone().filter(|&i| selects(i)).count() as u64;
            tokio::spawn(watcher(
                s,
                selects,
                want,
                Arc::clone(&shared),
                stop_rx.clone(),
            ))
        })
        .collect();
    let acks = Some(Arc::clone(&shared.acks));
    let writers = tokio::time::timeout(limit, run_writers(writers, range, acks))
        .await
        .map_err(|_| format!("the writers did not finish within {} s", limit.as_secs()))??;
    let waited = async {
        while shared.incomplete.load(Ordering::Acquire) > 0 {
            shared.all_complete.notified().await;
        }
    };
    let timed_out = tokio::time::timeout(drain, waited).await.is_err();
    tokio::time::sleep(GRACE).await;
    let _ = stop_tx.send(true);
    let mut r = SelectiveResult {
        writers,
        watchers: n_watchers,
        timed_out,
        ..Default::default()
    };
    for t in tasks {
        let o = t.await??;
        r.expected += o.want;
        r.missing += o.want - o.seen;
        r.stray += o.stray;
        r.duplicate += o.duplicate;
        r.complete += usize::from(o.seen == o.want);
    }
    (r.delivery, r.end_to_end, r.before_ack) = shared.shards.totals();
    Ok(r)
}

async fn watcher<S: WatchStream>(
    mut s: S,
    selects: Selects,
    want: u64,
    shared: Arc<Shared>,
    mut stop: watch::Receiver<bool>,
) -> Result<Outcome> {
    let range = &shared.range;
    let mut bits = vec![0u64; (range.end - range.start).div_ceil(64) as usize];
    let mut out = Outcome {
        want,
        seen: 0,
        stray: 0,
        duplicate: 0,
    };
    if want == 0 {
        shared.completed_one();
    }
    let mut batch = Vec::with_capacity(256);
    let mut delays = Vec::with_capacity(256);
    let stopped = stop.wait_for(|&s| s);
    tokio::pin!(stopped);
    loop {
        batch.clear();
        let more = tokio::select! {
            r = s.next_batch(&mut batch) => r?,
            _ = &mut stopped => break,
        };
        let now = Instant::now();
        delays.clear();
        for &i in &batch {
            if !range.contains(&i) || !selects(i) {
                out.stray += 1;
                continue;
            }
            let k = (i - range.start) as usize;
            let (word, bit) = (k / 64, 1u64 << (k % 64));
            if bits[word] & bit != 0 {
                out.duplicate += 1;
                continue;
            }
            bits[word] |= bit;
            out.seen += 1;
            delays.push(shared.acks.delay(i, now));
            if out.seen == want {
                shared.completed_one();
            }
        }
        if !delays.is_empty() {
            shared.shards.record(&delays);
        }
        if !more {
            break;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::tests::Counter;
    use std::sync::atomic::AtomicU64;

    /// Replays fixed batches, then stays silent until stopped.
    struct Replay(Vec<Vec<u64>>);
    impl WatchStream for Replay {
        async fn next_batch(&mut self, out: &mut Vec<u64>) -> Result<bool> {
            tokio::time::sleep(Duration::from_millis(1)).await;
            if self.0.is_empty() {
                std::future::pending::<()>().await;
            }
            out.extend(self.0.remove(0));
            Ok(true)
        }

        fn received_bytes(&self) -> u64 {
            0
        }
    }

    fn modulo(m: u64, r: u64) -> Selects {
        Arc::new(move |i| i % m == r)
    }

    #[tokio::test]
    async fn strays_duplicates_and_gaps_are_counted_per_watcher() {
        let n = Arc::new(AtomicU64::new(0));
        let ws = vec![Counter(Arc::clone(&n))];
        // Range 0..6 over two targets: even → watcher 0, odd → watcher 1.
        let exact = (Replay(vec![vec![0, 2], vec![4]]), modulo(2, 0));
        let wrong = (Replay(vec![vec![1, 1, 2], vec![9]]), modulo(2, 1));
        let r = run_selective(
            ws,
            vec![exact, wrong],
            0..6,
            Duration::from_millis(50),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
        assert_eq!((r.watchers, r.complete, r.expected), (2, 1, 6));
        assert_eq!((r.missing, r.stray, r.duplicate), (2, 2, 1));
        assert_eq!(r.delivery.count(), 4);
        assert!(r.timed_out && !r.exact());
        assert_eq!(n.load(Ordering::Relaxed), 6);
    }

    #[tokio::test]
    async fn complete_watchers_end_the_drain_early() {
        let ws = vec![Counter(Arc::new(AtomicU64::new(0)))];
        let w = (Replay(vec![vec![0, 1, 2]]), Arc::new(|_| true) as Selects);
        let none = (Replay(vec![]), Arc::new(|_| false) as Selects);
        let r = run_selective(
            ws,
            vec![w, none],
            0..3,
            Duration::from_secs(30),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
        assert!(r.exact() && !r.timed_out);
        assert_eq!(r.complete, 2);
    }
}
