//! The process's log: the format and verbosity of `--logging-format` and
//! `-v` (or `RUST_LOG` when set), written to stderr with colour only when
//! stderr is a terminal, so a redirected log holds no escape sequences.

mod json;

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use crate::config::logging::{LogFormat, LoggingFlags};

/// The filter directives a klog verbosity stands for: kube's guidance puts
/// debug output at 4 and trace above it; as klog only ever logs the
/// server's own lines, libraries stay at info until the highest levels
/// (8 and more, where kube dumps whole requests).
#[must_use]
pub fn directives_for_verbosity(verbosity: u8) -> String {
    let ours = |level: &str| {
        let engine = crate::storage::embedded::LOG_TARGET;
        format!("info,cairn_apiserver={level},{engine}={level},cairn_transform={level}")
    };
    match verbosity {
        0..=3 => "info".to_string(),
        4 => ours("debug"),
        5..=7 => ours("trace"),
        _ => "trace".to_string(),
    }
}

/// `RUST_LOG` when it is set and parses, else the verbosity's level.
fn filter(flags: &LoggingFlags) -> EnvFilter {
    EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new(directives_for_verbosity(flags.verbosity)))
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
        assert_eq!(directives_for_verbosity(0), "info");
        assert_eq!(directives_for_verbosity(2), "info");
        assert!(directives_for_verbosity(4).contains("cairn_apiserver=debug"));
        assert!(directives_for_verbosity(6).contains("cairn_apiserver=trace"));
        assert_eq!(directives_for_verbosity(9), "trace");
        for v in 0..10 {
            assert!(EnvFilter::try_new(directives_for_verbosity(v)).is_ok());
        }
    }
}
