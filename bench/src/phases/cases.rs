//! One case of a phase whose cases take turns in rounds (so drift on a
//! shared machine hits them alike): its writers, and its creates, latencies
//! and CPU totalled over every round.

use std::time::Duration;

use super::create::rate_line;
use crate::Result;
use crate::load::{LoadResult, Writer, run_writers_keep};
use crate::proc::CpuSpan;

/// Quiet time before each measured span, so one case's tail is not billed to the next.
const SETTLE: Duration = Duration::from_millis(100);

/// One kind of writer, totalled over every round.
pub struct Case<W> {
    pub name: String,
    writers: Vec<W>,
    pid: Option<u32>,
    pub load: LoadResult,
    pub server_cpu: Option<Duration>,
    bench_cpu: Option<Duration>,
}

impl<W: Writer> Case<W> {
    pub fn new(name: String, writers: Vec<W>, pid: Option<u32>) -> Self {
        Self {
            name,
            writers,
            pid,
            load: LoadResult::default(),
            server_cpu: Some(Duration::ZERO),
            bench_cpu: Some(Duration::ZERO),
        }
    }

    /// One create per connection, unmeasured; returns the next free index.
    pub async fn warm(&mut self, mut next: u64) -> Result<u64> {
        for w in &mut self.writers {
            w.create(next)
                .await
                .map_err(|e| format!("{}: {e}", self.name))?;
            next += 1;
        }
        Ok(next)
    }

    /// Creates `n` Events from index `start`, measured.
    pub async fn round(&mut self, start: u64, n: u64) -> Result<()> {
        tokio::time::sleep(SETTLE).await;
        let cpu = CpuSpan::start(self.pid);
        let writers = std::mem::take(&mut self.writers);
        let (r, back) = run_writers_keep(writers, start..start + n, None)
            .await
            .map_err(|e| format!("{}: {e}", self.name))?;
        let (server, bench) = cpu.used();
        self.writers = back;
        self.load.absorb(&r);
        self.server_cpu = self.server_cpu.zip(server).map(|(a, b)| a + b);
        self.bench_cpu = self.bench_cpu.zip(bench).map(|(a, b)| a + b);
        Ok(())
    }

    pub fn per_op(&self, total: Option<Duration>) -> Option<Duration> {
        let ops = self.load.ops.max(1) as f64;
        total.map(|t| Duration::from_secs_f64(t.as_secs_f64() / ops))
    }

    /// "12,345/s (p50 …, p99 …); server CPU 41.0 µs/create, bench 20.1 µs"
    pub fn line(&self, op: &str) -> String {
        format!(
            "{}; server CPU {}/{op}, bench {}",
            rate_line(&self.load),
            us(self.per_op(self.server_cpu)),
            us(self.per_op(self.bench_cpu)),
        )
    }
}

fn us(d: Option<Duration>) -> String {
    d.map_or("?".into(), |d| format!("{:.1} µs", d.as_secs_f64() * 1e6))
}
