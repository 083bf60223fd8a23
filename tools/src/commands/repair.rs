//! `repair`: the explicit, reported version of what a writable open would do
//! silently (truncate a torn tail, rewrite sidecars, remove leftovers),
//! followed by a verify of the result.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use cairn_engine::inspect::{self, RepairAction};
use cairn_engine::{Error, Options};
use serde_json::{Value, json};

use crate::cli::Format;
use crate::commands::{data_dir, file_name, verify};
use crate::error::{CliError, Result};
use crate::output::{Out, table};
use crate::progress;

/// (action, file, offset, bytes, detail) of one change.
fn describe(a: &RepairAction) -> (&'static str, String, Option<u64>, Option<u64>, String) {
    match a {
        RepairAction::TruncateTail(t) => (
            "truncate",
            file_name(&t.file),
            Some(t.offset),
            Some(t.bytes),
            format!("torn tail dropped: {}", t.reason),
        ),
        RepairAction::RewriteHeader { file, bytes } => (
            "rewrite-header",
            file_name(file),
            Some(0),
            Some(*bytes),
            "segment shorter than its header (it was being created)".into(),
        ),
        RepairAction::RewriteSidecar { file, reason } => (
            "rewrite-sidecar",
            file_name(file),
            None,
            None,
            format!("sidecar {reason}; rebuilt from the segment"),
        ),
        RepairAction::RemoveFile { file, bytes } => (
            "remove",
            file_name(file),
            None,
            Some(*bytes),
            "not named by the manifest (left by interrupted work)".into(),
        ),
    }
}

pub fn run(dir: &Path, dry_run: bool, format: Format, out: &mut Out) -> Result<ExitCode> {
    data_dir(dir)?;
    let options = Options::default();
    let spin = progress::spinner("checking every segment");
    let done = inspect::repair(dir, &options, dry_run);
    spin.finish_and_clear();
    let report = done.map_err(|e| match e {
        e @ Error::Corrupt { .. } => CliError::Failed(format!(
            "cannot repair: {e}; only a torn tail at the end of the last segment can be cut \
             away without losing acknowledged writes"
        )),
        e => CliError::refused("cannot repair")(e),
    })?;
    let rows: Vec<_> = report.actions.iter().map(describe).collect();
    let check = if dry_run {
        None
    } else {
        let bar = progress::bytes(inspect::data_bytes(dir)?, "verifying");
        let started = Instant::now();
        let r = inspect::verify(dir, &options, 2, &|n| bar.inc(n))?;
        bar.finish_and_clear();
        Some((r, started.elapsed().as_secs_f64()))
    };
    if format == Format::Json {
        let actions: Vec<Value> = rows
            .iter()
            .map(|(action, file, offset, bytes, detail)| {
                json!({"action": action, "file": file, "offset": offset, "bytes": bytes, "detail": detail})
            })
            .collect();
        out.json(&json!({
            "applied": report.applied,
            "actions": actions,
            "verify": check.as_ref().map(|(r, secs)| verify::json(r, *secs)),
        }))?;
    } else {
        if rows.is_empty() {
            out.line("nothing to repair")?;
        } else {
            let mut t = table(&["ACTION", "FILE", "OFFSET", "BYTES", "DETAIL"], &[2, 3]);
            for (action, file, offset, bytes, detail) in &rows {
                let num = |n: &Option<u64>| n.map_or("-".into(), |n| n.to_string());
                t.add_row(vec![
                    action.to_string(),
                    file.clone(),
                    num(offset),
                    num(bytes),
                    detail.clone(),
                ]);
            }
            out.table(&t)?;
            out.line(if report.applied {
                format!("{} change(s) made", rows.len())
            } else {
                format!(
                    "dry run: {} change(s) would be made; nothing changed",
                    rows.len()
                )
            })?;
        }
        if let Some((r, secs)) = &check {
            verify::print(r, *secs, format, out)?;
        }
    }
    Ok(match check {
        Some((r, _)) if r.errors() > 0 => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    })
}
