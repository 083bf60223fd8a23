//! `verify`: every checksum and invariant of a data directory; exit 1 when
//! anything is damaged.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use cairn_engine::Options;
use cairn_engine::inspect::{self, Severity, VerifyReport};
use serde_json::json;

use crate::cli::Format;
use crate::commands::{data_dir, file_name};
use crate::encode::size;
use crate::error::Result;
use crate::output::{Out, table};
use crate::progress;

pub fn run(dir: &Path, threads: usize, format: Format, out: &mut Out) -> Result<ExitCode> {
    data_dir(dir)?;
    let bar = progress::bytes(inspect::data_bytes(dir)?, "verifying");
    let started = Instant::now();
    let report = inspect::verify(dir, &Options::default(), threads, &|n| bar.inc(n))?;
    let secs = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    print(&report, secs, format, out)?;
    Ok(if report.errors() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Prints a report (also used after `repair` and `snapshot restore`).
pub fn print(report: &VerifyReport, secs: f64, format: Format, out: &mut Out) -> Result<()> {
    if format == Format::Json {
        out.json(&json(report, secs))?;
        return Ok(());
    }
    if !report.problems.is_empty() {
        let mut t = table(
            &["SEVERITY", "FILE", "OFFSET", "LENGTH", "PROBLEM"],
            &[2, 3],
        );
        for p in &report.problems {
            t.add_row(vec![
                severity(p.severity).to_string(),
                file_name(&p.file),
                p.offset.to_string(),
                p.len.map_or("-".into(), |l| l.to_string()),
                p.reason.clone(),
            ]);
        }
        out.table(&t)?;
    }
    let verdict = match (report.errors(), report.warnings()) {
        (0, 0) => "clean".to_string(),
        (0, w) => format!("clean, {w} warning(s)"),
        (e, w) => format!("CORRUPT: {e} error(s), {w} warning(s)"),
    };
    out.line(format!(
        "verified {} segments, {} sidecars, {} records ({} ops), {} in {secs:.2}s ({}/s); revisions up to {} (compacted at {}): {verdict}",
        report.segments,
        report.sidecars,
        report.records,
        report.ops,
        size(report.bytes),
        size((report.bytes as f64 / secs.max(1e-9)) as u64),
        report.current_revision,
        report.compacted_revision,
    ))?;
    Ok(())
}

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

pub fn json(report: &VerifyReport, secs: f64) -> serde_json::Value {
    json!({
        "clean": report.errors() == 0,
        "errors": report.errors(),
        "warnings": report.warnings(),
        "format_version": report.format_version,
        "current_revision": report.current_revision.get(),
        "compacted_revision": report.compacted_revision.get(),
        "segments": report.segments,
        "sidecars": report.sidecars,
        "records": report.records,
        "ops": report.ops,
        "bytes": report.bytes,
        "seconds": secs,
        "problems": report.problems.iter().map(|p| json!({
            "severity": severity(p.severity),
            "file": file_name(&p.file),
            "offset": p.offset,
            "length": p.len,
            "problem": p.reason,
        })).collect::<Vec<_>>(),
    })
}
