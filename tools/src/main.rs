//! `cairn-store`: offline inspection, verification, compaction, snapshots and
//! repair of cairn data directories, built on `cairn-engine` (as etcdutl is
//! on etcd's storage), and migration to and from etcd through the server's
//! storage backends; reading values through `cairn-transform`'s value
//! transformers as the server does. Read commands open the directory read-only
//! and never repair; commands that write take its lock and refuse while a
//! server holds it.

mod cli;
mod commands;
mod encode;
mod encryption;
mod error;
mod object;
mod output;
mod progress;
mod values;

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    match commands::run(cli) {
        Ok(code) => code,
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "cairn-store: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
