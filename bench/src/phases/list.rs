//! List speed: the full list and the paged list of every Event vs etcd's single
//! and paged ranges, with the server's peak RSS sampled every 10 ms meanwhile.

use std::time::Duration;

use tonic::client::Grpc;
use tonic::transport::Channel;

use super::{Ctx, count_name};
use crate::cairn::client::Conn;
use crate::load::ListOutcome;
use crate::proc::{PeakSampler, mib, rss_bytes};
use crate::report::Target;
use crate::stats::{median, ms};
use crate::{Result, cairn, etcd};

/// One server's way of listing.
enum Lister {
    Cairn(Conn),
    Etcd(Grpc<Channel>),
}

impl Lister {
    async fn once(&mut self, page: Option<u64>, expected: u64) -> Result<ListOutcome> {
        match (self, page) {
            (Lister::Cairn(c), None) => cairn::ops::list_full(c).await,
            (Lister::Cairn(c), Some(l)) => cairn::ops::list_paged(c, l, expected).await,
            (Lister::Etcd(g), None) => etcd::ops::range_full(g).await,
            (Lister::Etcd(g), Some(l)) => etcd::ops::range_paged(g, l, expected).await,
        }
    }
}

/// Repetitions of one list on one server.
struct Measured {
    times: Vec<Duration>,
    last: ListOutcome,
    wrong_counts: Vec<u64>,
    /// Largest rise of RSS over its value just before a repetition, and that value.
    rise: Option<(u64, u64)>,
}

impl Measured {
    fn median(&self) -> Duration {
        median(&self.times)
    }

    fn line(&self, what: &str) -> String {
        let (min, max) = (self.times.iter().min(), self.times.iter().max());
        let mb = mib(self.last.bytes);
        let pages = if self.last.pages > 1 {
            format!("{} pages, ", self.last.pages)
        } else {
            String::new()
        };
        format!(
            "{what}{} (median of {}, min {}, max {}; {} items, {pages}{mb:.1} MiB, {:.0} MiB/s)",
            ms(self.median()),
            self.times.len(),
            ms(min.copied().unwrap_or_default()),
            ms(max.copied().unwrap_or_default()),
            self.last.items,
            mb / self.median().as_secs_f64().max(1e-9),
        )
    }
}

async fn measure(
    mut lister: Lister,
    page: Option<u64>,
    reps: usize,
    pid: Option<u32>,
    expected: u64,
) -> Result<Measured> {
    let mut m = Measured {
        times: Vec::with_capacity(reps),
        last: ListOutcome {
            elapsed: Duration::ZERO,
            items: 0,
            bytes: 0,
            pages: 0,
        },
        wrong_counts: Vec::new(),
        rise: None,
    };
    for _ in 0..reps {
        let before = pid.and_then(rss_bytes);
        let sampler =
            pid.map(|p| PeakSampler::start(p, Duration::from_millis(10), Duration::from_secs(300)));
        let out = lister.once(page, expected).await?;
        if let (Some(s), Some(p), Some(before)) = (sampler, pid, before) {
            let rise = s.finish(p).saturating_sub(before);
            if m.rise.is_none_or(|(r, _)| rise > r) {
                m.rise = Some((rise, before));
            }
        }
        if out.items != expected {
            m.wrong_counts.push(out.items);
        }
        m.times.push(out.elapsed);
        m.last = out;
    }
    Ok(m)
}

fn check_counts(ctx: &mut Ctx, server: &str, what: &str, m: &Measured) {
    if !m.wrong_counts.is_empty() {
        let note = format!(
            "{server} {what} returned {:?} items where {} are stored",
            m.wrong_counts, ctx.sizes.events
        );
        ctx.report.note(&note);
    }
}

async fn both(
    ctx: &mut Ctx,
    page: Option<u64>,
    reps: usize,
) -> Result<(Measured, Option<Measured>)> {
    let n = ctx.sizes.events;
    let pid = ctx.cairn_pid();
    let conn = Conn::connect(ctx.cairn.addr).await?;
    let c = measure(Lister::Cairn(conn), page, reps, pid, n).await?;
    let e = match &ctx.etcd {
        Some(etcd) => {
            let lister = Lister::Etcd(etcd.client(0));
            Some(measure(lister, page, reps, etcd.pid, n).await?)
        }
        None => None,
    };
    let what = if page.is_some() {
        "paged list"
    } else {
        "full list"
    };
    check_counts(ctx, "cairn", what, &c);
    if let Some(e) = &e {
        check_counts(ctx, "etcd", what, e);
    }
    Ok((c, e))
}

fn rise_line(rise: Option<(u64, u64)>) -> Option<String> {
    rise.map(|(r, before)| format!("+{:.1} MiB over {:.0} MiB", mib(r), mib(before)))
}

/// `list_full`: one GET of every Event vs one etcd range of every key.
pub async fn full(ctx: &mut Ctx) -> Result<()> {
    let name = format!("list_full_{}", count_name(ctx.sizes.events));
    eprintln!("-- {name}");
    let (c, e) = both(ctx, None, ctx.sizes.list_reps).await?;
    let ratio = e
        .as_ref()
        .map(|e| e.median().as_secs_f64() / c.median().as_secs_f64());
    ctx.report.figure(
        &name,
        &c.line(""),
        e.as_ref().map(|e| e.line("range ")).as_deref(),
        ratio,
        ratio.map(|r| Target::at_least(r, 3.0, "x faster")),
    );
    match rise_line(c.rise) {
        Some(line) => {
            let rise = c.rise.map_or(0.0, |(r, _)| mib(r));
            let etcd_line = e.as_ref().and_then(|e| rise_line(e.rise));
            ctx.report.figure(
                &format!("{name}_peak_rss"),
                &line,
                etcd_line.as_deref(),
                None,
                Some(Target::at_most(rise, 64.0, " MiB")),
            );
        }
        None => ctx.report.note("list RSS: cairn's pid is unknown"),
    }
    Ok(())
}

/// `list_paged`: every Event `page_size` at a time vs etcd's paged range.
pub async fn paged(ctx: &mut Ctx) -> Result<()> {
    let limit = ctx.args.page_size;
    let name = format!("list_paged_{limit}");
    eprintln!("-- {name}");
    let (c, e) = both(ctx, Some(limit), ctx.sizes.paged_reps).await?;
    let ratio = e
        .as_ref()
        .map(|e| e.median().as_secs_f64() / c.median().as_secs_f64());
    ctx.report.figure(
        &name,
        &c.line(""),
        e.as_ref().map(|e| e.line("paged range ")).as_deref(),
        ratio,
        ratio.map(|r| Target::at_least(r, 3.0, "x faster")),
    );
    Ok(())
}
