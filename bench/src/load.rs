//! The load both servers get: concurrent writers over a range of Event
//! indexes (and the traits each server's client implements).

use std::future::Future;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::Result;
use crate::fanout::AckTable;
use crate::stats::{Histogram, rate};

/// One connection's worth of writing.
pub trait Writer: Send + 'static {
    /// Creates Event `i`; returns once the server acknowledged it.
    fn create(&mut self, i: u64) -> impl Future<Output = Result<()>> + Send;
}

/// One established watch.
pub trait WatchStream: Send + 'static {
    /// Waits for what the server sends next and pushes the index of every
    /// created Event in it onto `out`. `Ok(false)`: the stream ended.
    fn next_batch(&mut self, out: &mut Vec<u64>) -> impl Future<Output = Result<bool>> + Send;

    /// Bytes of the stream received so far (its body or messages, as sent).
    fn received_bytes(&self) -> u64;
}

/// What a set of writers achieved.
#[derive(Debug, Default)]
pub struct LoadResult {
    pub ops: u64,
    pub elapsed: Duration,
    pub latency: Histogram,
}

impl LoadResult {
    pub fn rate(&self) -> f64 {
        rate(self.ops, self.elapsed)
    }

    /// Adds another run of the same load (e.g. one round of several).
    pub fn absorb(&mut self, other: &LoadResult) {
        self.ops += other.ops;
        self.elapsed += other.elapsed;
        self.latency.merge(&other.latency);
    }
}

/// How one full or paged list went.
#[derive(Clone, Copy, Debug)]
pub struct ListOutcome {
    pub elapsed: Duration,
    pub items: u64,
    pub bytes: u64,
    pub pages: u64,
}

/// Runs `writers` concurrently (one task each) until every index of `range`
/// was created once; records acks in `acks` when given.
pub async fn run_writers<W: Writer>(
    writers: Vec<W>,
    range: Range<u64>,
    acks: Option<Arc<AckTable>>,
) -> Result<LoadResult> {
    Ok(run_writers_keep(writers, range, acks).await?.0)
}

/// `run_writers` that hands the writers (and their connections) back.
pub async fn run_writers_keep<W: Writer>(
    writers: Vec<W>,
    range: Range<u64>,
    acks: Option<Arc<AckTable>>,
) -> Result<(LoadResult, Vec<W>)> {
    let next = Arc::new(AtomicU64::new(range.start));
    let end = range.end;
    let start = Instant::now();
    let tasks: Vec<_> = writers
        .into_iter()
        .map(|mut w| {
            let (next, acks) = (Arc::clone(&next), acks.clone());
            tokio::spawn(async move {
                let mut hist = Histogram::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= end {
                        return Ok::<_, crate::Error>((hist, w));
                    }
                    let t = Instant::now();
                    if let Some(a) = &acks {
                        a.send(i, t);
                    }
                    w.create(i).await?;
                    let done = Instant::now();
                    hist.record(done - t);
                    if let Some(a) = &acks {
                        a.ack(i, done);
                    }
                }
            })
        })
        .collect();
    let mut latency = Histogram::new();
    let mut back = Vec::with_capacity(tasks.len());
    for t in tasks {
        let (hist, w) = t.await??;
        latency.merge(&hist);
        back.push(w);
    }
    let result = LoadResult {
        ops: range.end - range.start,
        elapsed: start.elapsed(),
        latency,
    };
    Ok((result, back))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub struct Counter(pub Arc<AtomicU64>);
    impl Writer for Counter {
        async fn create(&mut self, _i: u64) -> Result<()> {
            self.0.fetch_add(1, Ordering::Relaxed);
            Ok(())
        }
    }

    #[tokio::test]
    async fn writers_cover_the_range_once() {
        let n = Arc::new(AtomicU64::new(0));
        let ws = (0..8).map(|_| Counter(Arc::clone(&n))).collect();
        let r = run_writers(ws, 100..1100, None).await.unwrap();
        assert_eq!(r.ops, 1000);
        assert_eq!(r.latency.count(), 1000);
        assert_eq!(n.load(Ordering::Relaxed), 1000);
        let (again, ws) = run_writers_keep(ws_again(&n), 0..10, None).await.unwrap();
        assert_eq!(ws.len(), 8);
        let mut total = r;
        total.absorb(&again);
        assert_eq!((total.ops, total.latency.count()), (1010, 1010));
    }

    fn ws_again(n: &Arc<AtomicU64>) -> Vec<Counter> {
        (0..8).map(|_| Counter(Arc::clone(n))).collect()
    }
}
