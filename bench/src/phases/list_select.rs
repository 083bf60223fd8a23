//! `list_select_N`: with N Events stored, 0.1% more ("needles", spread over
//! the Event namespaces) carry `involvedObject.name=needle` and the label
//! `tier=needle`. The unfiltered list of every Event, a field-selector list
//! and a label-selector list of the needles, each whole and through pages
//! (`--page-size` with continue): each selective list is held to 0.1x the
//! time of the unfiltered one of the same kind. The server's RSS with the
//! Events stored, before and after the selective lists, is reported too.

use std::time::Duration;

use bytes::Bytes;
use http::{Method, StatusCode};

use super::{Ctx, count_name};
use crate::cairn::client::Conn;
use crate::load::{ListOutcome, run_writers};
use crate::parse::query_escape;
use crate::proc::{mib, rss_bytes};
use crate::report::{Target, per_sec, ratio_text};
use crate::stats::{median, ms};
use crate::{Result, cairn, event};

/// Each selective list is held to this fraction of the unfiltered list's time.
const MAX_SELECTIVE: f64 = 0.1;
/// RSS the indexes may add over an index-free build (`--rss-baseline-mib`).
const MAX_RSS_GROWTH: f64 = 1.2;

/// Stores `--events` Events on cairn (the full run's create phases do it otherwise).
pub async fn fill(ctx: &mut Ctx) -> Result<()> {
    let n = ctx.sizes.events;
    eprintln!("-- storing {n} Events");
    let endpoint = cairn::Endpoint::plain(ctx.cairn.addr);
    let writers = cairn::ops::writers(&endpoint, ctx.args.concurrency).await?;
    let r = run_writers(writers, 0..n, None).await?;
    ctx.report.note(&format!(
        "list_select: stored {n} Events at {}",
        per_sec(r.rate())
    ));
    Ok(())
}

/// Event `k` of the needles: selectable by field and label, padded to the value size.
fn needle(k: u64) -> (String, Bytes) {
    let ns = event::namespace(k);
    let head = format!(
        r#"{{"apiVersion":"v1","kind":"Event","metadata":{{"name":"ev-needle-{k}","namespace":"{ns}","labels":{{"tier":"needle"}}}},"involvedObject":{{"kind":"Pod","namespace":"{ns}","name":"needle","apiVersion":"v1"}},"reason":"BenchNeedle","type":"Normal","source":{{"component":"cairn-bench"}},"count":1,"message":""#
    );
    let tail = r#""}"#;
    let pad = event::VALUE_SIZE.saturating_sub(head.len() + tail.len());
    let body = format!("{head}{}{tail}", "x".repeat(pad));
    (format!("/api/v1/namespaces/{ns}/events"), Bytes::from(body))
}

/// One way of listing, repeated.
struct Case {
    name: &'static str,
    query: String,
    paged: bool,
    times: Vec<Duration>,
    last: Option<ListOutcome>,
}

impl Case {
    fn new(name: &'static str, query: String, paged: bool) -> Self {
        Self {
            name,
            query,
            paged,
            times: Vec::new(),
            last: None,
        }
    }

    fn median(&self) -> Duration {
        median(&self.times)
    }

    fn line(&self) -> String {
        let items = self.last.map_or(0, |l| l.items);
        let pages = self.last.map_or(0, |l| l.pages);
        format!(
            "{} (median of {}; {items} items, {pages} page(s))",
            ms(self.median()),
            self.times.len()
        )
    }
}

async fn list(conn: &mut Conn, case: &Case, limit: u64, bound: u64) -> Result<ListOutcome> {
    if case.paged {
        cairn::ops::list_paged_query(conn, &case.query, limit, bound).await
    } else {
        cairn::ops::list_full_query(conn, &case.query).await
    }
}

fn rss_mib(ctx: &Ctx) -> Option<f64> {
    ctx.cairn_pid().and_then(rss_bytes).map(mib)
}

pub async fn run(ctx: &mut Ctx) -> Result<()> {
    let stored = ctx.sizes.events;
    let needles = (stored / 1000).max(1);
    let name = format!("list_select_{}", count_name(stored));
    eprintln!("-- {name}: {needles} selectable Events among {stored}");
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_before = rss_mib(ctx);
    let mut conn = Conn::connect(ctx.cairn.addr).await?;
    for k in 0..needles {
        let (path, body) = needle(k);
        let (status, resp) = conn.call(Method::POST, &path, Some(body)).await?;
        if status != StatusCode::CREATED && status != StatusCode::CONFLICT {
            let text = String::from_utf8_lossy(&resp[..resp.len().min(300)]);
            return Err(format!("POST {path}: {status}: {text}").into());
        }
    }
    let field = format!(
        "fieldSelector={}",
        query_escape("involvedObject.name=needle")
    );
    let label = format!("labelSelector={}", query_escape("tier=needle"));
    let mut cases = vec![
        Case::new("full", String::new(), false),
        Case::new("field", field.clone(), false),
        Case::new("label", label.clone(), false),
        Case::new("paged", String::new(), true),
        Case::new("field_paged", field, true),
        Case::new("label_paged", label, true),
    ];
    let limit = ctx.args.page_size;
    let bound = stored + needles;
    // Rounds, so drift on a shared machine hits every case alike.
    for _ in 0..ctx.sizes.list_reps {
        for case in &mut cases {
            let out = list(&mut conn, case, limit, bound).await?;
            case.times.push(out.elapsed);
            case.last = Some(out);
        }
    }
    let total = cases[0].last.map_or(0, |l| l.items);
    for case in &cases {
        let items = case.last.map_or(0, |l| l.items);
        let want = if case.query.is_empty() {
            total
        } else {
            needles
        };
        if items != want {
            ctx.report.note(&format!(
                "{name}_{}: {items} items where {want} match",
                case.name
            ));
        }
    }
    for (case, whole) in [(1, 0), (2, 0), (4, 3), (5, 3)] {
        let r = cases[case].median().as_secs_f64() / cases[whole].median().as_secs_f64().max(1e-9);
        let c = &cases[case];
        ctx.report.figure(
            &format!("{name}_{}", c.name),
            &format!(
                "{}; unfiltered {} {}: {} of it",
                c.line(),
                cases[whole].name,
                cases[whole].line(),
                ratio_text(r)
            ),
            None,
            None,
            Some(Target::at_most(
                r,
                MAX_SELECTIVE,
                "x the unfiltered list's time",
            )),
        );
    }
    rss(ctx, &name, rss_before).await;
    Ok(())
}

/// RSS with the Events stored: before the selective lists and after them,
/// and against an index-free build's figure when given.
async fn rss(ctx: &mut Ctx, name: &str, before: Option<f64>) {
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (Some(before), Some(after)) = (before, rss_mib(ctx)) else {
        ctx.report.note(&format!(
            "{name}_rss: cairn's pid is unknown (--server-pid)"
        ));
        return;
    };
    let text = format!(
        "{after:.0} MiB with the Events stored, after the selective lists ({before:.0} MiB \
         before them: {:+.1}%)",
        (after / before - 1.0) * 100.0
    );
    match ctx.args.rss_baseline_mib {
        Some(base) => {
            let r = after / base.max(1e-9);
            ctx.report.figure(
                &format!("{name}_rss"),
                &format!(
                    "{text}; {} the index-free baseline's {base:.0} MiB",
                    ratio_text(r)
                ),
                None,
                None,
                Some(Target::at_most(r, MAX_RSS_GROWTH, "x the baseline")),
            );
        }
        None => ctx
            .report
            .figure(&format!("{name}_rss"), &text, None, None, None),
    }
}
