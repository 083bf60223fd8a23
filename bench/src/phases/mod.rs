//! The run: the servers, then each phase in turn against cairn and then etcd,
//! so every ratio comes from one run on the same machine state.

mod auth;
mod cases;
mod ceiling;
mod create;
mod encodings;
mod list;
mod list_select;
mod rbac;
mod reopen;
mod secrets;
mod select;
mod watch;
mod webhook;

use std::time::{Duration, Instant};

use crate::Result;
use crate::cairn::{self, Server};
use crate::cli::{Args, Sizes};
use crate::etcd::Etcd;
use crate::proc::{mib, rss_bytes, rss_text};
use crate::report::{Report, Target};

/// Everything the phases share.
pub struct Ctx {
    pub cairn: Server,
    pub etcd: Option<Etcd>,
    pub sizes: Sizes,
    pub args: Args,
    pub report: Report,
}

impl Ctx {
    /// The cairn server's pid, if known.
    pub fn cairn_pid(&self) -> Option<u32> {
        (self.cairn.pid != 0).then_some(self.cairn.pid)
    }

    pub fn cairn_rss(&self) -> Option<u64> {
        rss_bytes(self.cairn_pid()?)
    }

    pub fn etcd_rss(&self) -> Option<u64> {
        rss_bytes(self.etcd.as_ref()?.pid?)
    }
}

pub async fn run(args: Args) -> Result<String> {
    let started = Instant::now();
    let sizes = args.sizes();
    if args.secrets_only {
        return secrets::run(&args).await;
    }
    let cairn = match (&args.server_bin, &args.server_url) {
        (Some(bin), _) => Server::start(bin, &args.work_dir).await?,
        (None, Some(url)) => Server::external(url, args.server_pid.unwrap_or(0)).await?,
        (None, None) => return Err("give --server-bin or --server-url".into()),
    };
    let etcd = match &args.etcd {
        Some(url) => Some(Etcd::connect(url, args.etcd_conns, args.etcd_pid).await?),
        None => None,
    };
    eprintln!(
        "cairn at {} (pid {}), etcd {}; {sizes:?}",
        cairn.addr,
        cairn.pid,
        args.etcd.as_deref().unwrap_or("not given (cairn only)")
    );
    cairn::ops::setup(cairn.addr).await?;
    let mut ctx = Ctx {
        cairn,
        etcd,
        sizes,
        args,
        report: Report::default(),
    };
    let s = ctx.sizes;
    let conc = ctx.args.concurrency;
    if ctx.args.auth_only {
        auth::run(&mut ctx, 0).await?;
        return Ok(ctx.report.summary());
    }
    if ctx.args.webhook_only {
        webhook::run(&mut ctx, 0).await?;
        return Ok(ctx.report.summary());
    }
    if ctx.args.reopen_1m {
        reopen::run(&mut ctx).await?;
        return Ok(ctx.report.summary());
    }
    if ctx.args.watch_only {
        let small = 0..s.watch_events;
        let large = small.end..small.end + s.watch_events;
        watch::run(&mut ctx, s.watchers_small, small, false).await?;
        watch::run(&mut ctx, s.watchers_large, large, true).await?;
        return Ok(ctx.report.summary());
    }
    if ctx.args.ceiling_only {
        ceiling::create(&mut ctx, conc, 0..s.events).await?;
        return Ok(ctx.report.summary());
    }
    if ctx.args.select_only {
        ceiling::create(&mut ctx, conc, 0..s.select_events).await?;
        selective_watches(&mut ctx).await?;
        return Ok(ctx.report.summary());
    }
    if ctx.args.list_select_only {
        list_select::fill(&mut ctx).await?;
        list_select::run(&mut ctx).await?;
        return Ok(ctx.report.summary());
    }
    create::run(&mut ctx, 1, 0..s.serial, None).await?;
    create::run(&mut ctx, conc, s.serial..s.events, Some(2.0)).await?;
    stored_rss(&mut ctx).await;
    encodings::run(&mut ctx).await?;
    if ctx.args.encodings_only {
        return Ok(ctx.report.summary());
    }
    list::full(&mut ctx).await?;
    list::paged(&mut ctx).await?;
    list_select::run(&mut ctx).await?;
    let small = s.events..s.events + s.watch_events;
    let large = small.end..small.end + s.watch_events;
    let auth_start = large.end;
    watch::run(&mut ctx, s.watchers_small, small, false).await?;
    watch::run(&mut ctx, s.watchers_large, large, true).await?;
    selective_watches(&mut ctx).await?;
    auth::run(&mut ctx, auth_start).await?;
    // Past every Event the auth cases may have created (their warm-ups too).
    let webhook_start = auth_start + 10 * s.auth_events;
    webhook::run(&mut ctx, webhook_start).await?;
    let mut summary = ctx.report.summary();
    summary.push_str(&format!(
        "run took {:.0} s\n",
        started.elapsed().as_secs_f64()
    ));
    Ok(summary)
}

/// The selective watch phases (`select`), in their own namespaces.
async fn selective_watches(ctx: &mut Ctx) -> Result<()> {
    select::field(ctx, select::Kind::EventField).await?;
    select::field(ctx, select::Kind::PodField).await?;
    select::scale(ctx).await?;
    select::labels(ctx).await
}

/// RSS with every Event stored, after a short settle.
async fn stored_rss(ctx: &mut Ctx) {
    tokio::time::sleep(Duration::from_secs(2)).await;
    let name = format!("rss_{}", count_name(ctx.sizes.events));
    let Some(c) = ctx.cairn_rss() else {
        ctx.report
            .note(&format!("{name}: cairn's pid is unknown (--server-pid)"));
        return;
    };
    let e = ctx.etcd_rss();
    let ratio = e.map(|e| c as f64 / e as f64);
    let text = |pid: Option<u32>, rss: u64| {
        pid.and_then(rss_text)
            .unwrap_or_else(|| format!("{:.0} MiB", mib(rss)))
    };
    let c_text = text(ctx.cairn_pid(), c);
    let e_text = e.map(|e| text(ctx.etcd.as_ref().and_then(|x| x.pid), e));
    ctx.report.figure(
        &name,
        &c_text,
        e_text.as_deref(),
        ratio,
        ratio.map(|r| Target::at_most(r, 0.5, "x")),
    );
}

/// 100000 → "100k".
pub fn count_name(n: u64) -> String {
    if n >= 1000 && n.is_multiple_of(1000) {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}
