//! `verify`: every checksum and invariant of a data directory; exit 1 when
//! committed data is damaged, 3 when all there is to fix is crash residue
//! (a torn tail the next writable open or `repair` truncates).

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use cairn_engine::Options;
use cairn_engine::inspect::{self, Recoverable, Severity, VerifyReport};
use serde_json::json;

use crate::cli::Format;
use crate::commands::{data_dir, file_name};
use crate::encode::size;
use crate::error::{EXIT_RECOVERABLE, Result};
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
    Ok(match (report.errors(), &report.recoverable) {
        (0, None) => ExitCode::SUCCESS,
        (0, Some(_)) => ExitCode::from(EXIT_RECOVERABLE),
        _ => ExitCode::from(1),
    })
}

/// What a report comes to: "clean" (warnings allowed), "recoverable" (crash
/// residue and no damage) or "corrupt".
fn status(report: &VerifyReport) -> &'static str {
    match (report.errors(), &report.recoverable) {
        (0, None) => "clean",
        (0, Some(_)) => "recoverable",
        _ => "corrupt",
    }
}

/// The line saying what will be cut; people read it instead of a problem row.
fn residue_line(r: &Recoverable) -> String {
    format!(
        "torn tail (crash residue, recoverable): {} at offset {}: {} bytes after revision {} \
         will be truncated by the next writable open or by `cairn-store repair` ({})",
        file_name(&r.tail.file),
        r.tail.offset,
        r.tail.bytes,
        r.last_revision,
        r.tail.reason,
    )
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
    if let Some(r) = &report.recoverable {
        out.line(residue_line(r))?;
    }
    let tail = report.recoverable.as_ref().map(|r| r.tail.bytes);
    let verdict = match (report.errors(), report.warnings(), tail) {
        (0, 0, None) => "clean".to_string(),
        (0, w, None) => format!("clean, {w} warning(s)"),
        (0, w, Some(b)) => {
            format!("no damage, a torn tail of {b} bytes to truncate (recoverable), {w} warning(s)")
        }
        (e, w, None) => format!("CORRUPT: {e} error(s), {w} warning(s)"),
        (e, w, Some(b)) => {
            format!("CORRUPT: {e} error(s), {w} warning(s), and a torn tail of {b} bytes")
        }
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

/// `clean` means no damage: warnings and crash residue leave it true, and
/// `status` tells the three outcomes apart.
pub fn json(report: &VerifyReport, secs: f64) -> serde_json::Value {
    json!({
        "status": status(report),
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
        "recoverable": report.recoverable.iter().map(|r| json!({
            "kind": "torn_tail",
            "file": file_name(&r.tail.file),
            "offset": r.tail.offset,
            "bytes": r.tail.bytes,
            "last_revision": r.last_revision.get(),
            "problem": r.tail.reason,
        })).collect::<Vec<_>>(),
    })
}
