//! `compact` and `defrag`: the two commands that rewrite a directory's
//! contents through a writable engine. Both refuse while another process
//! holds the directory's lock (naming it), and refuse a directory whose
//! last segment has a torn tail, which a writable open would otherwise cut
//! away silently: that is `repair`'s job, done explicitly.

use std::path::Path;
use std::process::ExitCode;

use cairn_engine::{Engine, Error, Options, Revision, inspect, lock_holder};
use serde_json::json;

use crate::cli::Format;
use crate::commands::{data_dir, file_name, ok};
use crate::encode::size;
use crate::error::{CliError, Result};
use crate::output::{Out, fields};
use crate::progress;

/// Opens `dir` for writing for `what` ("compact", "defrag", "rewrite").
pub fn open_writable(dir: &Path, what: &str) -> Result<Engine> {
    data_dir(dir)?;
    let refused = CliError::refused(format!("cannot {what}"));
    if let Some(holder) = lock_holder(dir) {
        return Err(refused(Error::Locked {
            lock_file: dir.join("LOCK"),
            holder,
        }));
    }
    let options = Options {
        background_reclaim: false,
        ..Options::default()
    };
    if let Some(t) = inspect::torn_tail(dir, &options)? {
        return Err(CliError::Failed(format!(
            "cannot {what}: {} ends in a torn tail ({} bytes at offset {}: {}), which opening it \
             for writing would truncate; run `cairn-store repair` first",
            file_name(&t.file),
            t.bytes,
            t.offset,
            t.reason
        )));
    }
    Engine::open(dir, options).map_err(CliError::refused(format!("cannot {what}")))
}

/// Bytes of the directory's files.
fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .filter_map(std::result::Result::ok)
            .filter_map(|e| e.metadata().ok())
            .filter(std::fs::Metadata::is_file)
            .map(|m| m.len())
            .sum()
    })
}

pub fn compact(dir: &Path, rev: u64, format: Format, out: &mut Out) -> Result<ExitCode> {
    let engine = open_writable(dir, "compact")?;
    let before = engine.stats();
    let spin = progress::spinner("compacting");
    let done = engine.compact(Revision(rev));
    spin.finish_and_clear();
    done?;
    let after = engine.stats();
    engine.close();
    if format == Format::Json {
        out.json(&json!({
            "compacted_revision": after.compacted_revision.get(),
            "previous_compacted_revision": before.compacted_revision.get(),
            "current_revision": after.current_revision.get(),
            "versions_before": before.versions,
            "versions_after": after.versions,
            "bytes_reclaimable": after.bytes_reclaimable,
        }))?;
        return ok();
    }
    if after.compacted_revision == before.compacted_revision {
        out.line(format!(
            "already compacted at revision {} (asked for {rev}); nothing changed",
            before.compacted_revision
        ))?;
        return ok();
    }
    out.table(&fields(vec![
        (
            "compacted revision",
            format!(
                "{} (was {})",
                after.compacted_revision, before.compacted_revision
            ),
        ),
        ("current revision", after.current_revision.to_string()),
        (
            "versions",
            format!("{} (was {})", after.versions, before.versions),
        ),
        (
            "bytes reclaimable",
            format!(
                "{} (estimate; `cairn-store defrag` gives it back)",
                size(after.bytes_reclaimable)
            ),
        ),
    ]))?;
    ok()
}

pub fn defrag(dir: &Path, format: Format, out: &mut Out) -> Result<ExitCode> {
    let engine = open_writable(dir, "defrag")?;
    let before = dir_bytes(dir);
    let spin = progress::spinner("rewriting compacted segments");
    let done = engine.reclaim(true);
    spin.finish_and_clear();
    let stats = done?;
    // Closing deletes the rewritten segments' old files.
    engine.close();
    let after = dir_bytes(dir);
    if format == Format::Json {
        out.json(&json!({
            "segments_rewritten": stats.segments_in,
            "segments_written": stats.segments_out,
            "segment_bytes_before": stats.bytes_in,
            "segment_bytes_after": stats.bytes_out,
            "directory_bytes_before": before,
            "directory_bytes_after": after,
        }))?;
        return ok();
    }
    if stats.segments_in == 0 {
        out.line(
            "nothing to rewrite: no sealed segment lies wholly at or below the compaction point \
             with space to give back (compact first; the active segment is never rewritten)",
        )?;
        return ok();
    }
    out.table(&fields(vec![
        (
            "segments",
            format!(
                "{} rewritten into {}",
                stats.segments_in, stats.segments_out
            ),
        ),
        (
            "segment bytes",
            format!("{} -> {}", size(stats.bytes_in), size(stats.bytes_out)),
        ),
        (
            "directory",
            format!(
                "{} -> {} ({} bytes given back)",
                size(before),
                size(after),
                before.saturating_sub(after)
            ),
        ),
    ]))?;
    ok()
}
