//! `cairn-apiserver`: flags → `Config` → run.

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

use cairn_apiserver::config::{Config, Flags};

/// mimalloc: allocation was 15–20% of the create path's CPU under glibc
/// malloc (cairn-bench `create_64` profile).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let flags = match Flags::try_parse() {
        Ok(f) => f,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let rendered = e.render().to_string();
            let line = rendered
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("invalid arguments");
            eprintln!("{line} (see --help)");
            return ExitCode::from(2);
        }
    };
    cairn_apiserver::logging::init(&flags.logging);
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
    match runtime.block_on(cairn_apiserver::app::run(Config::from(flags))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(line) => {
            eprintln!("error: {line}");
            ExitCode::FAILURE
        }
    }
}
