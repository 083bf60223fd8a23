//! Watch fan-out: N watchers of every Event while the writers create, on
//! each server; every event must reach every watcher, and its ack → receipt
//! delay and the writers' rate are reported.

use std::ops::Range;
use std::time::{Duration, Instant};

use super::Ctx;
use crate::ceiling;
use crate::fanout::{WatchResult, run_watch};
use crate::load::{WatchStream, Writer};
use crate::proc::{CpuSpan, PeakSampler, mib};
use crate::report::{Target, per_sec};
use crate::stats::ms;
use crate::{Result, cairn, etcd};

/// One server's watch phase: what the watchers saw, peak RSS, CPU used.
struct Phase {
    result: WatchResult,
    peak_rss: Option<u64>,
    cpu: String,
}

fn line(p: &Phase, want: u64) -> String {
    let r = &p.result;
    let early = r.before_ack as f64 * 100.0 / r.delivered().max(1) as f64;
    let mut s = format!(
        "writers {} (p99 {}); ack → receipt p50 {}, p99 {}, max {} ({early:.0}% before the ack); \
         send → receipt p50 {}, p99 {}; ",
        per_sec(r.writers.rate()),
        ms(r.writers.latency.p99()),
        ms(r.delivery.p50()),
        ms(r.delivery.p99()),
        ms(r.delivery.max()),
        ms(r.end_to_end.p50()),
        ms(r.end_to_end.p99()),
    );
    if r.complete == r.watchers {
        s.push_str(&format!(
            "all {} watchers got all {want} events",
            r.watchers
        ));
    } else {
        s.push_str(&format!(
            "{}/{} watchers complete, {} events missing",
            r.complete, r.watchers, r.missing
        ));
    }
    if r.unexpected > 0 {
        s.push_str(&format!(", {} duplicate or unexpected", r.unexpected));
    }
    s.push_str(&format!(
        " ({:.2}M events/s, {:.2} GB/s of stream delivered, {:.0} B per event)",
        r.delivered_rate() / 1e6,
        r.delivered_rate() * r.bytes_per_event() / 1e9,
        r.bytes_per_event(),
    ));
    if let Some(rss) = p.peak_rss {
        s.push_str(&format!("; peak RSS {:.0} MiB", mib(rss)));
    }
    s.push_str(&format!("; {}", p.cpu));
    s
}

fn sampler(pid: Option<u32>) -> Option<(u32, PeakSampler)> {
    pid.map(|p| {
        let s = PeakSampler::start(p, Duration::from_millis(50), Duration::from_secs(600));
        (p, s)
    })
}

async fn on_cairn(ctx: &Ctx, n: usize, range: Range<u64>) -> Result<Phase> {
    let addr = ctx.cairn.addr;
    let mut conn = cairn::client::Conn::connect(addr).await?;
    let rv = cairn::ops::current_rv(&mut conn).await?;
    let t = Instant::now();
    let mut watchers = Vec::with_capacity(n);
    for _ in 0..n {
        watchers.push(cairn::watch::open(addr, rv).await?);
    }
    eprintln!("   cairn: {n} watchers open in {}", ms(t.elapsed()));
    let writers = cairn::ops::writers(&cairn::Endpoint::plain(addr), ctx.args.concurrency).await?;
    measured(ctx, ctx.cairn_pid(), writers, watchers, range).await
}

async fn measured<W: Writer, S: WatchStream>(
    ctx: &Ctx,
    pid: Option<u32>,
    writers: Vec<W>,
    watchers: Vec<S>,
    range: Range<u64>,
) -> Result<Phase> {
    let rss = sampler(pid);
    let cpu = CpuSpan::start(pid);
    let drain = Duration::from_secs(ctx.args.drain_secs);
    let result = run_watch(writers, watchers, range, drain).await?;
    Ok(Phase {
        result,
        peak_rss: rss.map(|(p, s)| s.finish(p)),
        cpu: cpu.text(),
    })
}

async fn on_etcd(ctx: &Ctx, etcd: &etcd::Etcd, n: usize, range: Range<u64>) -> Result<Phase> {
    let rev = etcd::ops::current_revision(&mut etcd.client(0)).await?;
    let channels = etcd.extra_channels(ctx.args.etcd_conns.max(1)).await?;
    let t = Instant::now();
    let mut watchers = Vec::with_capacity(n);
    for i in 0..n {
        let ch = channels[i % channels.len()].clone();
        watchers.push(etcd::watch::open(ch, rev + 1).await?);
    }
    eprintln!("   etcd: {n} watchers open in {}", ms(t.elapsed()));
    let writers = etcd::ops::writers(etcd, ctx.args.concurrency);
    measured(ctx, etcd.pid, writers, watchers, range).await
}

/// Runs one watch phase with `n` watchers on cairn and, when given, on etcd
/// with the same `n`; `judged` holds it to the targets (writers against
/// etcd's writers of the same phase).
pub async fn run(ctx: &mut Ctx, n: usize, range: Range<u64>, judged: bool) -> Result<()> {
    let name = format!("watch_{n}");
    let want = range.end - range.start;
    eprintln!(
        "-- {name}: {want} Events by {} writers",
        ctx.args.concurrency
    );
    let c_phase = on_cairn(ctx, n, range.clone()).await?;
    let e = match &ctx.etcd {
        Some(etcd) => Some(on_etcd(ctx, etcd, n, range).await?),
        None => None,
    };
    let c = &c_phase.result;
    let etcd_rate = e.as_ref().map(|e| e.result.writers.rate());
    let ratio = etcd_rate.map(|e| c.writers.rate() / e);
    let e_line = e.as_ref().map(|e| line(e, want));
    let c_line = line(&c_phase, want);
    ctx.report
        .figure(&name, &c_line, e_line.as_deref(), ratio, None);
    if !judged {
        return Ok(());
    }
    let all = c.complete == c.watchers && c.missing == 0 && c.unexpected == 0;
    let p99 = c.delivery.p99();
    ctx.report.figure(
        &format!("{name}_delivery"),
        &format!(
            "{}/{} watchers got every event, ack → receipt p99 {}",
            c.complete,
            c.watchers,
            ms(p99)
        ),
        None,
        None,
        Some(Target {
            text: "every event to every watcher, p99 < 50 ms".into(),
            met: all && p99 < Duration::from_millis(50),
        }),
    );
    let etcd_line = etcd_rate.map(|e| format!("{name} writers {}", per_sec(e)));
    ctx.report.figure(
        &format!("{name}_writers"),
        &per_sec(c.writers.rate()),
        etcd_line.as_deref(),
        ratio,
        ratio.map(|r| Target::at_least(r, 2.0, "x")),
    );
    if let Some(e) = etcd_rate {
        transport_ceiling(ctx, c, n, 2.0 * e).await?;
    }
    Ok(())
}

/// Measures how many bytes per second loopback TCP carries over `n`
/// connections on this machine with nothing else running, and sets it
/// beside the stream rate `n` watchers need when writers create `rate`/s.
async fn transport_ceiling(ctx: &mut Ctx, c: &WatchResult, n: usize, rate: f64) -> Result<()> {
    const CHUNK: usize = 64 * 1024;
    let probe =
        tokio::task::spawn_blocking(move || ceiling::probe(n, CHUNK, Duration::from_secs(1)))
            .await??;
    let ceiling = probe.bytes_per_sec();
    let needed = rate * n as f64 * c.bytes_per_event();
    ctx.report.note(&format!(
        "{n} watchers at {} writes need {:.2}M events/s = {:.2} GB/s of stream at {:.0} B per event; \
         this machine's loopback TCP carried {:.2} GB/s over {n} connections ({} KiB writes, one \
         sender and one reader thread, nothing else running): {:.2}x that ceiling, before the \
         server or the bench does any work",
        per_sec(rate),
        rate * n as f64 / 1e6,
        needed / 1e9,
        c.bytes_per_event(),
        ceiling / 1e9,
        CHUNK / 1024,
        needed / ceiling,
    ));
    Ok(())
}
