//! The process's log: the format and verbosity of `--logging-format` and
//! `-v` (or `RUST_LOG` when set), written to stderr with colour only when
//! stderr is a terminal, so a redirected log holds no escape sequences.

mod json;

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use crate::config::logging::{LogFormat, LoggingFlags};

/// The filter directive a klog verbosity stands for: kube's guidance puts
/// debug output at 4 and trace above it.
#[must_use]
pub fn level_for_verbosity(verbosity: u8) -> &'static str {
    match verbosity {
        0..=3 => "info",
        4 => "debug",
        _ => "trace",
    }
}

/// `RUST_LOG` when it is set and parses, else the verbosity's level.
fn filter(flags: &LoggingFlags) -> EnvFilter {
    EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new(level_for_verbosity(flags.verbosity)))
}

/// Installs the process's logger; call once, before anything logs.
pub fn init(flags: &LoggingFlags) {
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter(flags))
        .with_writer(std::io::stderr);
    match flags.logging_format {
        LogFormat::Text => builder.with_ansi(std::io::stderr().is_terminal()).init(),
        LogFormat::Json => builder.with_ansi(false).event_format(json::KlogJson).init(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbosities_map_to_levels_as_klog_counts_them() {
        assert_eq!(level_for_verbosity(0), "info");
        assert_eq!(level_for_verbosity(2), "info");
        assert_eq!(level_for_verbosity(4), "debug");
        assert_eq!(level_for_verbosity(9), "trace");
    }
}
