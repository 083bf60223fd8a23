//! Process basics as Go's process collector exposes them (kube registers
//! it raw, so its HELP carries no stability level): CPU, memory, file
//! descriptors, start time — read from /proc on every scrape.

use std::time::{SystemTime, UNIX_EPOCH};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;

/// Linux reports CPU times and start time in clock ticks of this rate
/// (USER_HZ, fixed at 100 on every architecture Linux supports).
const TICKS_PER_SECOND: f64 = 100.0;

/// What one read of /proc gives.
#[derive(Debug, Default, PartialEq)]
pub struct ProcessStats {
    pub cpu_seconds: f64,
    pub virtual_bytes: f64,
    pub resident_bytes: f64,
    pub start_time_seconds: f64,
    pub open_fds: f64,
    pub max_fds: f64,
}

impl ProcessStats {
    /// Reads this process's figures; those /proc does not give are 0.
    #[must_use]
    pub fn read() -> ProcessStats {
        let mut stats = ProcessStats::default();
        if let Ok(stat) = std::fs::read_to_string("/proc/self/stat") {
            let boot = std::fs::read_to_string("/proc/stat")
                .ok()
                .and_then(|s| boot_time(&s))
                .unwrap_or(0.0);
            stats.apply_stat(&stat, boot);
        }
        if let Ok(status) = std::fs::read_to_string("/proc/self/status") {
            stats.resident_bytes = status_kib(&status, "VmRSS:").unwrap_or(0.0) * 1024.0;
        }
        if let Ok(entries) = std::fs::read_dir("/proc/self/fd") {
            #[allow(clippy::cast_precision_loss)]
            let open = entries.count() as f64;
            stats.open_fds = open;
        }
        if let Ok(limits) = std::fs::read_to_string("/proc/self/limits") {
            stats.max_fds = max_open_files(&limits).unwrap_or(0.0);
        }
        stats
    }

    /// Fields of /proc/self/stat after the command name (which may hold
    /// spaces, hence the split at the last `)`).
    fn apply_stat(&mut self, stat: &str, boot_seconds: f64) {
        let Some((_, rest)) = stat.rsplit_once(')') else {
            return;
        };
        // `rest` starts at field 3 (state): field N is at index N - 3.
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let field = |n: usize| {
            fields
                .get(n - 3)
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        self.cpu_seconds = (field(14) + field(15)) / TICKS_PER_SECOND;
        self.start_time_seconds = boot_seconds + field(22) / TICKS_PER_SECOND;
        self.virtual_bytes = field(23);
    }
}

fn boot_time(proc_stat: &str) -> Option<f64> {
    proc_stat
        .lines()
        .find_map(|l| l.strip_prefix("btime "))
        .and_then(|v| v.trim().parse().ok())
}

fn status_kib(status: &str, key: &str) -> Option<f64> {
    let line = status.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].split_whitespace().next()?.parse().ok()
}

fn max_open_files(limits: &str) -> Option<f64> {
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The collector `/metrics` reads them through.
#[derive(Debug)]
pub struct ProcessCollector;

fn gauge(
    encoder: &mut DescriptorEncoder<'_>,
    name: &str,
    help: &str,
    value: f64,
) -> Result<(), std::fmt::Error> {
    let g = ConstGauge::new(value);
    g.encode(encoder.encode_descriptor(name, help, None, g.metric_type())?)
}

impl Collector for ProcessCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let s = ProcessStats::read();
        let cpu = ConstCounter::new(s.cpu_seconds);
        cpu.encode(encoder.encode_descriptor(
            "process_cpu_seconds",
            "Total user and system CPU time spent in seconds.",
            None,
            cpu.metric_type(),
        )?)?;
        gauge(
            &mut encoder,
            "process_max_fds",
            "Maximum number of open file descriptors.",
            s.max_fds,
        )?;
        gauge(
            &mut encoder,
            "process_open_fds",
            "Number of open file descriptors.",
            s.open_fds,
        )?;
        gauge(
            &mut encoder,
            "process_resident_memory_bytes",
            "Resident memory size in bytes.",
            s.resident_bytes,
        )?;
        gauge(
            &mut encoder,
            "process_start_time_seconds",
            "Start time of the process since unix epoch in seconds.",
            s.start_time_seconds,
        )?;
        gauge(
            &mut encoder,
            "process_virtual_memory_bytes",
            "Virtual memory size in bytes.",
            s.virtual_bytes,
        )
    }
}

/// Seconds since the epoch now (for sanity checks of the start time).
#[must_use]
pub fn now_seconds() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_read_past_a_command_with_spaces() {
        let mut s = ProcessStats::default();
        let stat = "42 (cairn apiserver) S 1 42 42 0 -1 4194560 100 0 0 0 250 150 0 0 20 0 8 0 5000 123456789 2000 18446744073709551615";
        s.apply_stat(stat, 1_700_000_000.0);
        assert!((s.cpu_seconds - 4.0).abs() < 1e-9);
        assert!((s.start_time_seconds - 1_700_000_050.0).abs() < 1e-6);
        assert!((s.virtual_bytes - 123_456_789.0).abs() < 1e-6);
    }

    #[test]
    fn this_process_is_readable() {
        let s = ProcessStats::read();
        assert!(s.resident_bytes > 0.0 && s.virtual_bytes >= s.resident_bytes);
        assert!(s.open_fds >= 1.0 && s.max_fds >= s.open_fds);
        assert!(s.start_time_seconds > 1.0e9 && s.start_time_seconds <= now_seconds() + 1.0);
        assert_eq!(
            max_open_files(
                "Max open files            1024                 524288               files"
            ),
            Some(1024.0)
        );
    }
}
