//! `cairn-bench`: flags → start or attach the servers → run every phase → summary.

mod cairn;
mod ceiling;
mod cli;
mod etcd;
mod event;
mod fanout;
mod load;
mod null_server;
mod parse;
mod phases;
mod proc;
mod report;
mod selective;
mod shape;
mod stats;

use std::process::ExitCode;

use clap::Parser;
use tokio::signal::unix::{SignalKind, signal};

pub type Error = Box<dyn std::error::Error + Send + Sync>;
pub type Result<T> = std::result::Result<T, Error>;

fn main() -> ExitCode {
    let args = cli::Args::parse();
    if let Some(addr) = args.serve_null {
        return match null_server::serve(addr) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: null server: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(guarded(args));
    // The run's servers are stopped by now; its leftover connection tasks need no time.
    runtime.shutdown_background();
    match outcome {
        Ok(summary) => {
            println!("\n{summary}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs every phase; a signal ends the run the same way an error does, so
/// whatever it started is stopped on the way out.
async fn guarded(args: cli::Args) -> Result<String> {
    let mut term = signal(SignalKind::terminate())?;
    tokio::select! {
        r = phases::run(args) => r,
        _ = tokio::signal::ctrl_c() => Err("interrupted".into()),
        _ = term.recv() => Err("terminated".into()),
    }
}
