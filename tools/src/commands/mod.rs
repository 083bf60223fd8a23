//! The commands, one module each, and what they share: checking the data
//! directory argument and opening the engine read-only.

mod compact;
mod dump;
mod encryption;
mod info;
mod keys;
mod migrate;
mod repair;
mod snapshot;
mod verify;

#[cfg(test)]
mod values_tests;

use std::os::unix::ffi::OsStringExt;
use std::path::Path;
use std::process::ExitCode;

use cairn_engine::{Engine, Options};
use cairn_transform::Transformers;

use crate::cli::{Cli, Command, EncryptionCommand, SnapshotCommand};
use crate::error::{CliError, Result};
use crate::output::Out;
use crate::progress;
use crate::values::Values;

/// Runs one command; `Ok` carries the exit code (verify gives 1 for
/// corruption, 3 for crash residue alone, after printing its report).
pub fn run(cli: Cli) -> Result<ExitCode> {
    let mut out = Out::new();
    let values = match &cli.command {
        Command::Get { encryption, .. }
        | Command::History { encryption, .. }
        | Command::Ls { encryption, .. }
        | Command::Dump { encryption, .. } => encryption.values()?,
        _ => Values::new(Transformers::identity()),
    };
    let code = match cli.command {
        Command::Info { dir, out: o } => info::run(&dir.data_dir, o.output, &mut out),
        Command::Verify {
            dir,
            out: o,
            threads,
        } => verify::run(&dir.data_dir, usize::from(threads), o.output, &mut out),
        Command::Get {
            key,
            rev,
            raw,
            encryption: _,
            dir,
            out: o,
        } => keys::get(
            &dir.data_dir,
            &key.into_vec(),
            rev,
            raw,
            o.output,
            &values,
            &mut out,
        ),
        Command::History {
            key,
            raw,
            encryption: _,
            dir,
            out: o,
        } => keys::history(
            &dir.data_dir,
            &key.into_vec(),
            raw,
            o.output,
            &values,
            &mut out,
        ),
        Command::Ls {
            prefix,
            rev,
            limit,
            raw,
            encryption: _,
            dir,
            out: o,
        } => {
            let prefix = prefix.map(OsStringExt::into_vec).unwrap_or_default();
            keys::ls(
                &dir.data_dir,
                &prefix,
                rev,
                limit,
                raw,
                o.output,
                &values,
                &mut out,
            )
        }
        Command::Dump {
            from_rev,
            to_rev,
            physical,
            locations,
            encryption: _,
            dir,
        } => dump::run(
            &dir.data_dir,
            from_rev,
            to_rev,
            physical,
            locations,
            &values,
            &mut out,
        ),
        Command::Compact { rev, dir, out: o } => {
            compact::compact(&dir.data_dir, rev, o.output, &mut out)
        }
        Command::Defrag { dir, out: o } => compact::defrag(&dir.data_dir, o.output, &mut out),
        Command::Snapshot(SnapshotCommand::Save {
            file,
            rev,
            state_only,
            dir,
            out: o,
        }) => snapshot::save(&dir.data_dir, &file, rev, state_only, o.output, &mut out),
        Command::Snapshot(SnapshotCommand::Restore {
            file,
            data_dir,
            out: o,
        }) => snapshot::restore(&file, &data_dir, o.output, &mut out),
        Command::Snapshot(SnapshotCommand::Status { file, out: o }) => {
            snapshot::status(&file, o.output, &mut out)
        }
        Command::Encryption(EncryptionCommand::Keys {
            prefix,
            dir,
            out: o,
        }) => encryption::keys(&dir.data_dir, prefix.as_bytes(), o.output, &mut out),
        Command::Encryption(EncryptionCommand::Rewrite {
            resource,
            encryption: e,
            dir,
            out: o,
        }) => encryption::rewrite(&dir.data_dir, &resource, &e, o.output, &mut out),
        Command::Migrate {
            direction,
            dir,
            etcd,
            event_ttl,
            out: o,
        } => migrate::run(
            direction,
            &dir.data_dir,
            &etcd,
            event_ttl,
            o.output,
            &mut out,
        ),
        Command::Repair {
            dry_run,
            dir,
            out: o,
        } => repair::run(&dir.data_dir, dry_run, o.output, &mut out),
    };
    // Flush what was printed even when the command failed part way.
    let flushed = out.flush();
    let code = code?;
    flushed?;
    Ok(code)
}

/// Refuses a `--data-dir` that is not a cairn data directory (exit 2).
pub fn data_dir(dir: &Path) -> Result<()> {
    if !dir.is_dir() {
        return Err(CliError::Usage(format!(
            "--data-dir {}: no such directory",
            dir.display()
        )));
    }
    let has_segments = std::fs::read_dir(dir)
        .map_err(|e| CliError::Usage(format!("--data-dir {}: {e}", dir.display())))?
        .filter_map(std::result::Result::ok)
        .any(|e| e.file_name().to_string_lossy().ends_with(".seg"));
    if !dir.join("MANIFEST").exists() && !has_segments {
        return Err(CliError::Usage(format!(
            "--data-dir {}: not a cairn data directory (no MANIFEST)",
            dir.display()
        )));
    }
    Ok(())
}

/// Opens `dir` without its lock and without repairing anything.
pub fn open_read_only(dir: &Path) -> Result<Engine> {
    data_dir(dir)?;
    let spin = progress::spinner("opening");
    let engine = Engine::open_read_only(dir, Options::default());
    spin.finish_and_clear();
    Ok(engine?)
}

/// A file's name (the data directory is on the command line already).
pub fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Exit 0.
pub fn ok() -> Result<ExitCode> {
    Ok(ExitCode::SUCCESS)
}
