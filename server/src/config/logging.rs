//! The logging flags, kube-apiserver's names: `--logging-format` and `-v`.

use clap::{Args, ValueEnum};

/// How log lines are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line (`ts`, `caller`, `msg`, `v`, then the
    /// event's fields), as kube-apiserver's JSON format writes them.
    Json,
}

#[derive(Args, Debug, Clone, Default)]
pub struct LoggingFlags {
    /// Log format: `text` or `json`.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub logging_format: LogFormat,
    /// Log verbosity as klog counts it: 0–3 info, 4 debug, 5–7 trace (the
    /// server's own lines), 8 and more trace of every library too.
    /// `RUST_LOG`, when set, takes precedence.
    #[arg(short = 'v', long = "v", default_value_t = 0)]
    pub verbosity: u8,
}
