//! Create rate: cairn Event creates vs etcd puts of the same bytes at the same concurrency.

use std::ops::Range;

use super::Ctx;
use crate::load::{LoadResult, run_writers};
use crate::proc::CpuSpan;
use crate::report::{Target, per_sec};
use crate::stats::ms;
use crate::{Result, cairn, etcd};

pub fn rate_line(r: &LoadResult) -> String {
    format!(
        "{} (p50 {}, p99 {})",
        per_sec(r.rate()),
        ms(r.latency.p50()),
        ms(r.latency.p99())
    )
}

/// Creates `range` with `conc` writers on each server; `min_ratio` is the target, if any.
pub async fn run(
    ctx: &mut Ctx,
    conc: usize,
    range: Range<u64>,
    min_ratio: Option<f64>,
) -> Result<()> {
    let name = format!("create_{conc}");
    eprintln!("-- {name}: {} Events", range.end - range.start);
    let writers = cairn::ops::writers(&cairn::Endpoint::plain(ctx.cairn.addr), conc).await?;
    let cpu = CpuSpan::start(ctx.cairn_pid());
    let c = run_writers(writers, range.clone(), None).await?;
    let c_line = format!("{}; {}", rate_line(&c), cpu.text());
    let e = match &ctx.etcd {
        Some(etcd) => {
            let cpu = CpuSpan::start(etcd.pid);
            let e = run_writers(etcd::ops::writers(etcd, conc), range, None).await?;
            Some((e, cpu.text()))
        }
        None => None,
    };
    let ratio = e.as_ref().map(|(e, _)| c.rate() / e.rate());
    let e_line = e.map(|(e, cpu)| format!("put_{conc} {}; {cpu}", rate_line(&e)));
    ctx.report.figure(
        &name,
        &c_line,
        e_line.as_deref(),
        ratio,
        min_ratio
            .zip(ratio)
            .map(|(min, r)| Target::at_least(r, min, "x")),
    );
    Ok(())
}
