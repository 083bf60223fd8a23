//! Selective watchers, the shape real clusters have: every watcher selects
//! its own few objects while 64 writers create. Watchers are cluster-wide
//! (`/api/v1/events?watch=true&fieldSelector=…`, as a kubelet watches its
//! pods); the objects go to a namespace of the phase's own. Every object
//! must reach exactly the watchers that select it (`selective`).
//!
//! - `watch_select_N_{events,pods}`: N watchers, watcher t selecting
//!   `involvedObject.name=pod-t` (Events) or `spec.nodeName=node-t` (Pods);
//!   object i goes to target i mod N. etcd: N watchers each on its own
//!   prefix, the writers putting the same bytes under those prefixes.
//! - `watch_select_scale_N`: the Events shape with N watchers and N targets
//!   (each object still matches exactly one watcher), for N in
//!   `--scale-watchers`: server CPU per created object at each.
//! - `watch_select_labels_N`: N watchers on `app=app-t` plus `app!=x`,
//!   `app!=app-0`, `app notin (app-1,app-2)`, `app notin (app-3,app-4)`,
//!   beside the same watchers written as field selectors on Events.

use std::sync::Arc;
use std::time::{Duration, Instant};

use http::{Method, StatusCode};

use super::Ctx;
use crate::cairn::client::Conn;
use crate::proc::CpuSpan;
use crate::report::{Target, per_sec, ratio_text};
use crate::selective::{SelectiveResult, Selects, run_selective};
pub use crate::shape::Kind;
use crate::shape::{Selector, Shape};
use crate::stats::ms;
use crate::{Result, cairn, etcd, event};

/// Ack → receipt p99 every selective phase is held to.
const MAX_P99: Duration = Duration::from_millis(50);

/// One server's run of a selective phase.
struct Run {
    result: SelectiveResult,
    server_cpu: Option<Duration>,
    bench_cpu: Option<Duration>,
}

impl Run {
    fn per_op(&self, total: Option<Duration>) -> Option<Duration> {
        let ops = self.result.writers.ops.max(1) as f64;
        total.map(|t| Duration::from_secs_f64(t.as_secs_f64() / ops))
    }

    /// Server CPU per created object, in µs.
    fn cpu_us(&self) -> Option<f64> {
        self.per_op(self.server_cpu).map(|d| d.as_secs_f64() * 1e6)
    }

    fn line(&self, op: &str) -> String {
        let r = &self.result;
        let us = |d: Option<Duration>| {
            d.map_or("?".into(), |d| format!("{:.1} µs", d.as_secs_f64() * 1e6))
        };
        let early = r.before_ack as f64 * 100.0 / r.delivery.count().max(1) as f64;
        format!(
            "writers {} (p99 {}); ack → receipt p50 {}, p99 {}, max {} ({early:.0}% before the \
             ack); server CPU {}/{op}, bench {}; {}",
            per_sec(r.writers.rate()),
            ms(r.writers.latency.p99()),
            ms(r.delivery.p50()),
            ms(r.delivery.p99()),
            ms(r.delivery.max()),
            us(self.per_op(self.server_cpu)),
            us(self.per_op(self.bench_cpu)),
            r.verdict(),
        )
    }
}

/// Creates namespace `ns` (an existing one is fine).
pub async fn ensure_namespace(conn: &mut Conn, ns: &str) -> Result<()> {
    let body = event::namespace_body(ns);
    let (status, resp) = conn
        .call(Method::POST, "/api/v1/namespaces", Some(body))
        .await?;
    if status != StatusCode::CREATED && status != StatusCode::CONFLICT {
        let text = String::from_utf8_lossy(&resp[..resp.len().min(300)]);
        return Err(format!("create namespace {ns}: {status}: {text}").into());
    }
    Ok(())
}

fn selects(shape: &Shape, selector: &Selector) -> Selects {
    let (targets, selector) = (shape.targets, selector.clone());
    Arc::new(move |i| selector.selects(i % targets))
}

/// The fd limit: each watcher holds a connection here and one in the server.
fn check_fd_limit(watchers: usize) -> Result<()> {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    let soft = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .and_then(|l| l.split_whitespace().nth(3)?.parse::<usize>().ok());
    match soft {
        Some(n) if n < watchers + 1_000 => Err(format!(
            "{watchers} watchers need more open files than the limit of {n}: run `ulimit -n 65536` first"
        )
        .into()),
        _ => Ok(()),
    }
}

async fn on_cairn(ctx: &Ctx, shape: &Arc<Shape>, selectors: &[Selector]) -> Result<Run> {
    let addr = ctx.cairn.addr;
    check_fd_limit(selectors.len())?;
    let mut conn = Conn::connect(addr).await?;
    ensure_namespace(&mut conn, &shape.namespace).await?;
    let rv = cairn::ops::current_rv(&mut conn).await?;
    let t = Instant::now();
    let mut watchers = Vec::with_capacity(selectors.len());
    for sel in selectors {
        let w = cairn::watch::open_path(addr, &shape.watch_path(rv, sel)).await?;
        watchers.push((w, selects(shape, sel)));
    }
    eprintln!(
        "   cairn: {} watchers open in {}",
        selectors.len(),
        ms(t.elapsed())
    );
    let endpoint = cairn::Endpoint::plain(addr);
    let writers = cairn::shaped::writers(&endpoint, shape, ctx.args.concurrency).await?;
    measured(ctx, ctx.cairn_pid(), writers, watchers).await
}

async fn measured<W: crate::load::Writer, S: crate::load::WatchStream>(
    ctx: &Ctx,
    pid: Option<u32>,
    writers: Vec<W>,
    watchers: Vec<(S, Selects)>,
) -> Result<Run> {
    let range = 0..ctx.sizes.select_events;
    let drain = Duration::from_secs(ctx.args.drain_secs);
    let limit = Duration::from_secs(ctx.args.phase_secs);
    let cpu = CpuSpan::start(pid);
    let result = run_selective(writers, watchers, range, drain, limit).await?;
    let (server_cpu, bench_cpu) = cpu.used();
    Ok(Run {
        result,
        server_cpu,
        bench_cpu,
    })
}

/// etcd: one watcher per target, each on the target's own prefix.
async fn on_etcd(ctx: &Ctx, etcd: &etcd::Etcd, shape: &Arc<Shape>) -> Result<Run> {
    let rev = etcd::ops::current_revision(&mut etcd.client(0)).await?;
    let channels = etcd.extra_channels(ctx.args.etcd_conns.max(1)).await?;
    let t = Instant::now();
    let mut watchers = Vec::with_capacity(shape.targets as usize);
    for target in 0..shape.targets {
        let ch = channels[target as usize % channels.len()].clone();
        let w = etcd::watch::open_prefix(ch, &shape.etcd_prefix(target), rev + 1).await?;
        watchers.push((w, selects(shape, &Selector::equals(target))));
    }
    eprintln!(
        "   etcd: {} watchers open in {}",
        shape.targets,
        ms(t.elapsed())
    );
    let writers = etcd::shaped::writers(etcd, shape, ctx.args.concurrency);
    measured(ctx, etcd.pid, writers, watchers).await
}

fn one_each(targets: u64) -> Vec<Selector> {
    (0..targets).map(Selector::equals).collect()
}

/// Holds a run to exactness and the p99 target under `name`.
fn judge(ctx: &mut Ctx, name: &str, c: &Run) {
    let r = &c.result;
    ctx.report.figure(
        &format!("{name}_exact"),
        &r.verdict(),
        None,
        None,
        Some(Target {
            text: "every object to exactly the watchers selecting it".into(),
            met: r.exact() && !r.timed_out,
        }),
    );
    let p99 = r.delivery.p99();
    ctx.report.figure(
        &format!("{name}_p99"),
        &format!("ack → receipt p99 {}", ms(p99)),
        None,
        None,
        Some(Target {
            text: format!("< {}", ms(MAX_P99)),
            met: r.delivery.count() > 0 && p99 < MAX_P99,
        }),
    );
}

/// `watch_select_N_{events,pods}` against etcd's per-prefix watchers.
pub async fn field(ctx: &mut Ctx, kind: Kind) -> Result<()> {
    let n = ctx.sizes.select_watchers as u64;
    let (what, op) = match kind {
        Kind::PodField => ("pods", "pod"),
        _ => ("events", "event"),
    };
    let name = format!("watch_select_{n}_{what}");
    eprintln!(
        "-- {name}: {} objects by {} writers, {n} selective watchers",
        ctx.sizes.select_events, ctx.args.concurrency
    );
    let shape = Arc::new(Shape::new(kind, &format!("sel-{what}"), n));
    let c = on_cairn(ctx, &shape, &one_each(n)).await?;
    let e = match &ctx.etcd {
        Some(etcd) => Some(on_etcd(ctx, etcd, &shape).await?),
        None => None,
    };
    let ratio = e
        .as_ref()
        .map(|e| c.result.writers.rate() / e.result.writers.rate());
    let e_line = e.as_ref().map(|e| format!("puts: {}", e.line("put")));
    ctx.report.figure(
        &name,
        &c.line(op),
        e_line.as_deref(),
        ratio,
        ratio.map(|r| Target::at_least(r, 2.0, "x etcd's puts")),
    );
    judge(ctx, &name, &c);
    Ok(())
}

/// `watch_select_scale_N` for each N, and CPU per object at the largest N
/// against the smallest.
pub async fn scale(ctx: &mut Ctx) -> Result<()> {
    let counts = ctx.args.scale_watchers();
    let mut cpu = Vec::new();
    for &n in &counts {
        let name = format!("watch_select_scale_{n}");
        eprintln!(
            "-- {name}: {} Events, {n} selective watchers",
            ctx.sizes.select_events
        );
        let shape = Arc::new(Shape::new(
            Kind::EventField,
            &format!("sel-scale-{n}"),
            n as u64,
        ));
        let c = on_cairn(ctx, &shape, &one_each(n as u64)).await?;
        ctx.report.figure(&name, &c.line("event"), None, None, None);
        judge(ctx, &name, &c);
        cpu.push((n, c.cpu_us()));
    }
    let (Some(&(lo, Some(lo_us))), Some(&(hi, Some(hi_us)))) = (cpu.first(), cpu.last()) else {
        ctx.report
            .note("watch_select_scale: server CPU unknown (no pid) or no watcher counts");
        return Ok(());
    };
    if lo == hi {
        return Ok(());
    }
    let growth = hi_us / lo_us.max(1e-9);
    ctx.report.figure(
        "watch_select_scale_cpu",
        &format!(
            "server CPU per created Event {hi_us:.1} µs with {hi} watchers, {lo_us:.1} µs with \
             {lo}: {} of it",
            ratio_text(growth)
        ),
        None,
        None,
        Some(Target::at_most(growth, 1.5, "x")),
    );
    Ok(())
}

/// The label phase's watchers: one per value, and four that select nearly everything.
fn label_selectors(n: u64) -> Vec<Selector> {
    let mut v = one_each(n);
    v.push(Selector::not_equals(None));
    v.push(Selector::not_equals(Some(0)));
    v.push(Selector::not_in(1, 2));
    v.push(Selector::not_in(3, 4));
    v
}

/// `watch_select_labels_N` beside the same selectors as field selectors.
pub async fn labels(ctx: &mut Ctx) -> Result<()> {
    let n = ctx.sizes.label_watchers as u64;
    let selectors = label_selectors(n);
    let name = format!("watch_select_labels_{n}");
    eprintln!(
        "-- {name}: {} Events, {} label-selected watchers (4 of them !=/notin), then the same as field selectors",
        ctx.sizes.select_events,
        selectors.len()
    );
    let labelled = Arc::new(Shape::new(Kind::EventLabel, "sel-labels", n));
    let l = on_cairn(ctx, &labelled, &selectors).await?;
    let fielded = Arc::new(Shape::new(Kind::EventField, "sel-labels-field", n));
    let f = on_cairn(ctx, &fielded, &selectors).await?;
    let field_name = format!("{name}_field");
    ctx.report
        .figure(&field_name, &f.line("event"), None, None, None);
    let ratio = l.cpu_us().zip(f.cpu_us()).map(|(l, f)| l / f.max(1e-9));
    let cpu = match ratio {
        Some(r) => format!("; CPU per event {} {field_name}'s", ratio_text(r)),
        None => "; CPU per event unknown (no pid)".into(),
    };
    ctx.report.figure(
        &name,
        &format!("{}{cpu}", l.line("event")),
        None,
        None,
        ratio.map(|r| Target::at_most(r, 2.0, "x the field selectors' CPU per event")),
    );
    judge(ctx, &name, &l);
    judge(ctx, &field_name, &f);
    Ok(())
}
