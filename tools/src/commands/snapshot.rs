//! `snapshot save | restore | status`: a single-file, checksummed snapshot of
//! the retained history up to one revision, or of the state at it
//! (`--state-only`) (layout: engine/FORMAT.md, "Snapshot file").

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use cairn_engine::snapshot::{self, Contents, SnapshotInfo};
use cairn_engine::{Error, Options, Revision, inspect, lock_holder};
use serde_json::{Value, json};

use crate::cli::Format;
use crate::commands::{data_dir, ok, verify};
use crate::encode::{rfc3339, size};
use crate::error::{CliError, Result};
use crate::output::{Out, fields};
use crate::progress;

fn contents_name(contents: Contents) -> &'static str {
    match contents {
        Contents::History => "history",
        Contents::State => "state",
    }
}

fn info_json(info: &SnapshotInfo) -> Value {
    json!({
        "file": info.file.display().to_string(),
        "revision": info.revision.get(),
        "contents": contents_name(info.contents),
        "source_compacted_revision": info.source_compacted.get(),
        "created": rfc3339(info.created),
        "keys": info.keys,
        "records": info.records,
        "bytes": info.bytes,
    })
}

fn info_rows(info: &SnapshotInfo) -> Vec<(&'static str, String)> {
    vec![
        ("file", info.file.display().to_string()),
        ("revision", info.revision.to_string()),
        (
            "contents",
            match info.contents {
                Contents::History => "history (every retained version up to the revision)".into(),
                Contents::State => "state at the revision".to_string(),
            },
        ),
        ("keys", info.keys.to_string()),
        ("records", info.records.to_string()),
        (
            "size",
            format!("{} ({} bytes)", size(info.bytes), info.bytes),
        ),
        ("created", rfc3339(info.created)),
        ("source compacted at", info.source_compacted.to_string()),
    ]
}

/// Refuses a snapshot path that is not a file (exit 2).
fn snapshot_file(file: &Path) -> Result<()> {
    if file.is_file() {
        Ok(())
    } else {
        Err(CliError::Usage(format!(
            "{}: no such snapshot file",
            file.display()
        )))
    }
}

pub fn save(
    dir: &Path,
    file: &Path,
    rev: Option<u64>,
    state_only: bool,
    format: Format,
    out: &mut Out,
) -> Result<ExitCode> {
    data_dir(dir)?;
    let contents = if state_only {
        Contents::State
    } else {
        Contents::History
    };
    if file.is_dir() {
        return Err(CliError::Usage(format!(
            "{} is a directory",
            file.display()
        )));
    }
    // Compacted records are read twice: once to find each key's version.
    let bar = progress::bytes(2 * inspect::data_bytes(dir)?, "saving");
    let saved = snapshot::save(
        dir,
        file,
        rev.map(Revision),
        contents,
        &Options::default(),
        &|n| bar.inc(n),
    );
    bar.finish_and_clear();
    let info = saved?;
    if format == Format::Json {
        out.json(&info_json(&info))?;
    } else {
        out.table(&fields(info_rows(&info)))?;
    }
    ok()
}

pub fn status(file: &Path, format: Format, out: &mut Out) -> Result<ExitCode> {
    snapshot_file(file)?;
    let len = std::fs::metadata(file).map_or(0, |m| m.len());
    let bar = progress::bytes(len, "checking");
    let checked = snapshot::verify(file, &Options::default(), &|n| bar.inc(n));
    bar.finish_and_clear();
    let info = checked?;
    if format == Format::Json {
        let mut v = info_json(&info);
        v["valid"] = true.into();
        out.json(&v)?;
    } else {
        let mut rows = info_rows(&info);
        rows.push(("checksums", "valid".into()));
        out.table(&fields(rows))?;
    }
    ok()
}

pub fn restore(file: &Path, dir: &Path, format: Format, out: &mut Out) -> Result<ExitCode> {
    snapshot_file(file)?;
    if dir.exists() {
        if !dir.is_dir() {
            return Err(CliError::Usage(format!(
                "--data-dir {}: not a directory",
                dir.display()
            )));
        }
        if let Some(holder) = lock_holder(dir) {
            return Err(CliError::Refused {
                what: "cannot restore".into(),
                source: Error::Locked {
                    lock_file: dir.join("LOCK"),
                    holder,
                },
            });
        }
        let busy = std::fs::read_dir(dir)
            .map_err(|e| CliError::Usage(format!("--data-dir {}: {e}", dir.display())))?
            .filter_map(std::result::Result::ok)
            .any(|e| e.file_name() != "LOCK");
        if busy {
            return Err(CliError::Usage(format!(
                "--data-dir {}: not empty; a snapshot is restored into a new directory",
                dir.display()
            )));
        }
    }
    let len = std::fs::metadata(file).map_or(0, |m| m.len());
    let options = Options::default();
    let bar = progress::bytes(2 * len, "restoring");
    let restored = snapshot::restore(file, dir, &options, &|n| bar.inc(n));
    bar.finish_and_clear();
    let info = restored.map_err(CliError::refused("cannot restore"))?;
    let bar = progress::bytes(inspect::data_bytes(dir)?, "verifying");
    let started = Instant::now();
    let report = inspect::verify(dir, &options, 2, &|n| bar.inc(n))?;
    bar.finish_and_clear();
    let secs = started.elapsed().as_secs_f64();
    if format == Format::Json {
        out.json(&json!({
            "restored": info_json(&info),
            "data_dir": dir.display().to_string(),
            "verify": verify::json(&report, secs),
        }))?;
    } else {
        let mut rows = info_rows(&info);
        rows.insert(0, ("restored into", dir.display().to_string()));
        out.table(&fields(rows))?;
        verify::print(&report, secs, format, out)?;
    }
    Ok(if report.errors() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
