//! `reopen_N` (`--reopen-1m`): N Events stored (64 writers, the create
//! phase's bodies), the server stopped with SIGTERM and started again on the
//! same data: the time until `/readyz` is ok, then one full list streamed
//! and one paged list (`--page-size`), each with the server's RSS sampled
//! every 50 ms for its peak rise. etcd in the same run: an etcd the bench
//! starts itself (`--etcd-bin`), the same N values put, restarted, timed
//! until `/health` is true, then one range of every key and paged ranges.

use std::path::Path;
use std::time::Duration;

use super::{Ctx, count_name};
use crate::cairn::client::Conn;
use crate::etcd::Etcd;
use crate::etcd::process::EtcdProcess;
use crate::load::{ListOutcome, run_writers};
use crate::proc::{PeakSampler, mib, rss_bytes};
use crate::report::{Target, per_sec};
use crate::stats::ms;
use crate::{Result, cairn, etcd};

/// A reopen of this many objects is held to being ready within this.
const MAX_READY: Duration = Duration::from_secs(2);
/// The full list's peak RSS rise is held to this (MiB).
const MAX_LIST_RISE: f64 = 64.0;

/// Bytes of every file under `dir`.
fn dir_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => dir_bytes(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

/// What one server did.
struct Reopened {
    stored_rate: f64,
    rss_stored: Option<u64>,
    stop: Duration,
    ready: Duration,
    data_bytes: u64,
    rss_reopened: Option<u64>,
    full: (ListOutcome, Option<u64>),
    paged: (ListOutcome, Option<u64>),
}

impl Reopened {
    fn ready_line(&self, what: &str) -> String {
        let rss = |r: Option<u64>| r.map_or("?".into(), |r| format!("{:.0} MiB", mib(r)));
        format!(
            "{what} in {} after a restart (stop took {}; data {:.0} MiB; stored at {}; RSS {} \
             before the restart, {} after it)",
            ms(self.ready),
            ms(self.stop),
            mib(self.data_bytes),
            per_sec(self.stored_rate),
            rss(self.rss_stored),
            rss(self.rss_reopened),
        )
    }
}

fn list_line((out, rise): &(ListOutcome, Option<u64>), before: Option<u64>) -> String {
    let rise = match (rise, before) {
        (Some(r), Some(b)) => format!("peak RSS +{:.1} MiB over {:.0} MiB", mib(*r), mib(b)),
        _ => "peak RSS unknown".into(),
    };
    format!(
        "{} ({} items, {} page(s), {:.0} MiB); {rise}",
        ms(out.elapsed),
        out.items,
        out.pages,
        mib(out.bytes)
    )
}

/// Runs `list` with the RSS of `pid` sampled every 50 ms; returns its peak rise.
async fn sampled<F: Future<Output = Result<ListOutcome>>>(
    pid: Option<u32>,
    list: F,
) -> Result<(ListOutcome, Option<u64>)> {
    let before = pid.and_then(rss_bytes);
    let sampler =
        pid.map(|p| PeakSampler::start(p, Duration::from_millis(50), Duration::from_secs(3600)));
    let out = list.await?;
    let rise = match (sampler, pid, before) {
        (Some(s), Some(p), Some(b)) => Some(s.finish(p).saturating_sub(b)),
        _ => None,
    };
    Ok((out, rise))
}

async fn on_cairn(ctx: &mut Ctx, n: u64) -> Result<Reopened> {
    eprintln!("-- reopen: storing {n} Events on cairn");
    let endpoint = cairn::Endpoint::plain(ctx.cairn.addr);
    let writers = cairn::ops::writers(&endpoint, ctx.args.concurrency).await?;
    let stored = run_writers(writers, 0..n, None).await?;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss_stored = ctx.cairn_rss();
    eprintln!("   stopping and reopening cairn");
    let stop = ctx.cairn.stop().await?;
    let data_bytes = ctx.cairn.data_dir().map_or(0, dir_bytes);
    let ready = ctx.cairn.reopen().await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_reopened = ctx.cairn_rss();
    let pid = ctx.cairn_pid();
    let mut conn = Conn::connect(ctx.cairn.addr).await?;
    eprintln!("   listing {n} Events");
    let full = sampled(pid, cairn::ops::list_full(&mut conn)).await?;
    let paged = sampled(
        pid,
        cairn::ops::list_paged(&mut conn, ctx.args.page_size, n),
    )
    .await?;
    Ok(Reopened {
        stored_rate: stored.rate(),
        rss_stored,
        stop,
        ready,
        data_bytes,
        rss_reopened,
        full,
        paged,
    })
}

async fn on_etcd(ctx: &Ctx, n: u64) -> Result<Reopened> {
    eprintln!("-- reopen: storing {n} values on an etcd of the bench's own");
    let mut proc = EtcdProcess::start(&ctx.args.etcd_bin, &ctx.args.work_dir).await?;
    let conns = ctx.args.etcd_conns;
    let etcd = Etcd::connect(&proc.url(), conns, proc.pid()).await?;
    let stored = run_writers(etcd::ops::writers(&etcd, ctx.args.concurrency), 0..n, None).await?;
    drop(etcd);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss_stored = proc.pid().and_then(rss_bytes);
    let stop = proc.stop().await?;
    let data_bytes = dir_bytes(&proc.data_dir());
    let ready = proc.reopen().await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let pid = proc.pid();
    let rss_reopened = pid.and_then(rss_bytes);
    let etcd = Etcd::connect(&proc.url(), conns, pid).await?;
    let full = sampled(pid, etcd::ops::range_full(&mut etcd.client(0))).await?;
    let limit = ctx.args.page_size;
    let paged = sampled(pid, etcd::ops::range_paged(&mut etcd.client(0), limit, n)).await?;
    Ok(Reopened {
        stored_rate: stored.rate(),
        rss_stored,
        stop,
        ready,
        data_bytes,
        rss_reopened,
        full,
        paged,
    })
}

pub async fn run(ctx: &mut Ctx) -> Result<()> {
    let n = ctx.sizes.reopen_objects;
    let name = format!("reopen_{}", count_name(n));
    let c = on_cairn(ctx, n).await?;
    let e = on_etcd(ctx, n).await?;
    let ratio = e.ready.as_secs_f64() / c.ready.as_secs_f64().max(1e-9);
    ctx.report.figure(
        &format!("{name}_ready"),
        &c.ready_line("ready"),
        Some(&e.ready_line("healthy")),
        Some(ratio),
        Some(Target {
            text: format!("ready < {}", ms(MAX_READY)),
            met: c.ready < MAX_READY,
        }),
    );
    for (list, items) in [(&c.full, c.full.0.items), (&c.paged, c.paged.0.items)] {
        if items != n {
            ctx.report.note(&format!(
                "{name}: a list after the reopen returned {items} of {n} Events ({} page(s))",
                list.0.pages
            ));
        }
    }
    let rise = c.full.1.map(mib);
    ctx.report.figure(
        &format!("{name}_list_full"),
        &list_line(&c.full, c.rss_reopened),
        Some(&format!("range {}", list_line(&e.full, e.rss_reopened))),
        Some(e.full.0.elapsed.as_secs_f64() / c.full.0.elapsed.as_secs_f64().max(1e-9)),
        rise.map(|r| Target::at_most(r, MAX_LIST_RISE, " MiB peak RSS rise")),
    );
    ctx.report.figure(
        &format!("{name}_list_paged_{}", ctx.args.page_size),
        &list_line(&c.paged, c.rss_reopened),
        Some(&format!(
            "paged range {}",
            list_line(&e.paged, e.rss_reopened)
        )),
        Some(e.paged.0.elapsed.as_secs_f64() / c.paged.0.elapsed.as_secs_f64().max(1e-9)),
        None,
    );
    Ok(())
}
