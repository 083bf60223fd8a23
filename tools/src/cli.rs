//! The command line: commands, their flags, and turning a parse failure into
//! one line on stderr with exit code 2.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::encryption::EncryptionArgs;

/// Offline inspection, verification, compaction, snapshots and repair of cairn
/// data directories. Exit codes: 0 success, 1 failure or corruption found,
/// 2 unusable command line, 3 (verify) no damage but a torn tail that the next
/// writable open or `repair` truncates.
#[derive(Parser, Debug)]
#[command(name = "cairn-store", version, disable_help_subcommand = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// `--data-dir DIR`.
#[derive(Args, Debug, Clone)]
pub struct DataDir {
    /// The data directory.
    #[arg(long, value_name = "DIR")]
    pub data_dir: PathBuf,
}

/// `--output table|json`.
#[derive(Args, Debug, Clone, Copy)]
pub struct OutputArg {
    /// Output format.
    #[arg(long, short = 'o', value_enum, default_value_t = Format::Table)]
    pub output: Format,
}

/// How results are printed.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Aligned tables for people.
    Table,
    /// One JSON document, for scripts.
    Json,
}

/// The commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Format version, segments, revisions, key counts, reclaimable bytes, lock holder.
    Info {
        #[command(flatten)]
        dir: DataDir,
        #[command(flatten)]
        out: OutputArg,
    },
    /// Check every record's checksum and the format's invariants.
    ///
    /// Exit 0 when nothing is damaged (warnings aside), 1 when committed data
    /// is damaged, 3 when all there is to fix is a torn tail at the end of the
    /// active segment: crash residue of an unacknowledged write, which the
    /// next writable open or `cairn-store repair` truncates.
    Verify {
        #[command(flatten)]
        dir: DataDir,
        #[command(flatten)]
        out: OutputArg,
        /// Threads reading segments.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=256))]
        threads: u16,
    },
    /// A key's value, latest or at a revision.
    Get {
        /// The key.
        key: OsString,
        /// Read at this revision.
        #[arg(long, value_name = "N")]
        rev: Option<u64>,
        /// Print the value's bytes as written (with -o json: include them).
        #[arg(long)]
        raw: bool,
        #[command(flatten)]
        encryption: EncryptionArgs,
        #[command(flatten)]
        dir: DataDir,
        #[command(flatten)]
        out: OutputArg,
    },
    /// Every retained version of a key, with revisions and commit times.
    History {
        /// The key.
        key: OsString,
        /// Show each value (with -o json: include it).
        #[arg(long)]
        raw: bool,
        #[command(flatten)]
        encryption: EncryptionArgs,
        #[command(flatten)]
        dir: DataDir,
        #[command(flatten)]
        out: OutputArg,
    },
    /// Keys under a prefix, latest or at a revision.
    Ls {
        /// Only keys starting with this.
        prefix: Option<OsString>,
        /// Read at this revision.
        #[arg(long, value_name = "N")]
        rev: Option<u64>,
        /// Show at most this many keys (0: all).
        #[arg(long, value_name = "N", default_value_t = 0)]
        limit: usize,
        /// Show each value (with -o json: include it).
        #[arg(long)]
        raw: bool,
        #[command(flatten)]
        encryption: EncryptionArgs,
        #[command(flatten)]
        dir: DataDir,
        #[command(flatten)]
        out: OutputArg,
    },
    /// Every retained record as JSON Lines, in revision order.
    Dump {
        /// First revision (inclusive).
        #[arg(long, value_name = "N")]
        from_rev: Option<u64>,
        /// Last revision (inclusive).
        #[arg(long, value_name = "N")]
        to_rev: Option<u64>,
        /// Every op still stored, including versions compaction dropped (marked "retained": false).
        #[arg(long)]
        physical: bool,
        /// Add each record's file and byte offset.
        #[arg(long)]
        locations: bool,
        #[command(flatten)]
        encryption: EncryptionArgs,
        #[command(flatten)]
        dir: DataDir,
    },
    /// Forget versions older than a revision (refused while the directory is locked).
    Compact {
        /// The new compaction point.
        #[arg(long, value_name = "N")]
        rev: u64,
        #[command(flatten)]
        dir: DataDir,
        #[command(flatten)]
        out: OutputArg,
    },
    /// Rewrite compacted segments to give their space back (refused while locked).
    Defrag {
        #[command(flatten)]
        dir: DataDir,
        #[command(flatten)]
        out: OutputArg,
    },
    /// Save, check or restore a single-file snapshot.
    #[command(subcommand)]
    Snapshot(SnapshotCommand),
    /// Encryption at rest: values per key, offline rewrite with the first provider.
    #[command(subcommand)]
    Encryption(EncryptionCommand),
    /// Copy every object of a data directory into etcd, or of etcd into a
    /// new data directory, then compare every object on both sides.
    ///
    /// Stop the servers first: the copy is read at one revision, and writes
    /// made after it would be left behind. Each object gets a new
    /// resourceVersion in the target (its revision there); values are copied
    /// as stored, so encrypted ones need the same encryption configuration.
    Migrate {
        /// `to-etcd`: the data directory into etcd; `from-etcd`: etcd into
        /// the data directory (new, or holding no objects).
        #[arg(value_enum)]
        direction: Direction,
        #[command(flatten)]
        dir: DataDir,
        #[command(flatten)]
        etcd: cairn_apiserver::config::etcd::EtcdFlags,
        /// The TTL objects that had one (Events) get in the target
        /// (kube-apiserver's `--event-ttl`).
        #[arg(long, default_value = "1h", value_parser = go_duration)]
        event_ttl: std::time::Duration,
        #[command(flatten)]
        out: OutputArg,
    },
    /// Truncate a torn tail, rewrite bad sidecars, remove leftovers; report each change.
    Repair {
        /// Report what would change; change nothing.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        dir: DataDir,
        #[command(flatten)]
        out: OutputArg,
    },
}

/// Which way `migrate` copies.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From the data directory into etcd.
    ToEtcd,
    /// From etcd into the data directory.
    FromEtcd,
}

fn go_duration(s: &str) -> std::result::Result<std::time::Duration, String> {
    cairn_transform::config::go_duration(s)
        .ok_or_else(|| format!("invalid duration {s:?} (examples: 1h, 30m)"))
}

/// `encryption` subcommands.
#[derive(Subcommand, Debug)]
pub enum EncryptionCommand {
    /// How many current values each key (`provider:keyname`, `identity`) holds.
    Keys {
        /// Only keys starting with this (e.g. /registry/secrets/).
        #[arg(long, value_name = "PREFIX", default_value = "")]
        prefix: String,
        #[command(flatten)]
        dir: DataDir,
        #[command(flatten)]
        out: OutputArg,
    },
    /// Rewrite every value of a resource that the configuration's first
    /// provider did not write (rotation; refused while the server runs).
    Rewrite {
        /// The resource: `secrets`, or `<resource>.<group>`.
        #[arg(long)]
        resource: String,
        #[command(flatten)]
        encryption: EncryptionArgs,
        #[command(flatten)]
        dir: DataDir,
        #[command(flatten)]
        out: OutputArg,
    },
}

/// `snapshot` subcommands.
#[derive(Subcommand, Debug)]
pub enum SnapshotCommand {
    /// Write the retained history up to a revision (default: the current
    /// one) to FILE, or only the state at it (`--state-only`).
    Save {
        /// The snapshot file to write.
        file: PathBuf,
        /// The revision to save.
        #[arg(long, value_name = "N")]
        rev: Option<u64>,
        /// Keep only each key's version at the revision: superseded versions
        /// and deletes are left out, and the restored directory is compacted
        /// at the snapshot's revision.
        #[arg(long)]
        state_only: bool,
        #[command(flatten)]
        dir: DataDir,
        #[command(flatten)]
        out: OutputArg,
    },
    /// Verify FILE, then restore it as a new data directory.
    Restore {
        /// The snapshot file.
        file: PathBuf,
        /// The new data directory (absent or empty).
        #[arg(long, value_name = "NEW")]
        data_dir: PathBuf,
        #[command(flatten)]
        out: OutputArg,
    },
    /// Verify FILE and show what it holds.
    Status {
        /// The snapshot file.
        file: PathBuf,
        #[command(flatten)]
        out: OutputArg,
    },
}

/// Parses the command line; on failure prints help, the version, or one
/// line, and gives the exit code.
pub fn parse() -> Result<Cli, ExitCode> {
    Cli::try_parse().map_err(|e| match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            ExitCode::SUCCESS
        }
        _ => {
            let _ = writeln!(
                std::io::stderr(),
                "cairn-store: {} (see cairn-store --help)",
                one_line(&e)
            );
            ExitCode::from(2)
        }
    })
}

/// Clap's message without usage text, on one line.
fn one_line(e: &clap::Error) -> String {
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
        || e.kind() == ErrorKind::MissingSubcommand
    {
        return "a command is required".into();
    }
    let text = e.render().to_string();
    let body: Vec<&str> = text
        .lines()
        .take_while(|l| !l.trim().is_empty() && !l.starts_with("Usage:"))
        .map(str::trim)
        .filter(|l| !l.starts_with("tip:"))
        .collect();
    body.join(" ")
        .trim_start_matches("error: ")
        .trim_end_matches(':')
        .to_string()
}
