//! What /proc says about a process: resident memory (and a sampler that
//! tracks its peak while an operation runs) and CPU time used.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// VmRSS of `pid` in bytes, if the process exists.
pub fn rss_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    parse_vm_rss(&status)
}

/// The `VmRSS:   1234 kB` line of a /proc status file, in bytes.
pub fn parse_vm_rss(status: &str) -> Option<u64> {
    status_kb(status, "VmRSS:")
}

/// A `Name:   1234 kB` line of a /proc status file, in bytes.
fn status_kb(status: &str, name: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(name))?;
    let kb: u64 = line[name.len()..].split_whitespace().next()?.parse().ok()?;
    Some(kb * 1024)
}

/// "202 MiB (anon 150, file-mapped 52)": file-mapped pages (memory-mapped
/// data files) count in RSS but are page cache the kernel can reclaim.
pub fn rss_text(pid: u32) -> Option<String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss = parse_vm_rss(&status)?;
    let mut s = format!("{:.0} MiB", mib(rss));
    if let (Some(anon), Some(file)) = (
        status_kb(&status, "RssAnon:"),
        status_kb(&status, "RssFile:"),
    ) {
        s.push_str(&format!(
            " (anon {:.0}, file-mapped {:.0})",
            mib(anon),
            mib(file)
        ));
    }
    Some(s)
}

/// User + system CPU time of `pid` so far, from /proc/<pid>/stat.
pub fn cpu_time(pid: u32) -> Option<Duration> {
    parse_cpu_ticks(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
        .map(|ticks| Duration::from_millis(ticks * 1000 / TICKS_PER_SEC))
}

/// USER_HZ: 100 on every Linux configuration this bench runs on (`getconf CLK_TCK`).
const TICKS_PER_SEC: u64 = 100;

/// utime + stime (fields 14 and 15) of a /proc stat line, in clock ticks. The
/// command name (field 2) may hold spaces, so fields count from its closing ')'.
pub fn parse_cpu_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11); // field 3 is the first after ')'
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

/// CPU used by the server and by this bench over a span.
pub struct CpuSpan {
    server: Option<(u32, Duration)>,
    bench: Option<Duration>,
}

impl CpuSpan {
    pub fn start(server_pid: Option<u32>) -> Self {
        Self {
            server: server_pid.and_then(|p| Some((p, cpu_time(p)?))),
            bench: cpu_time(std::process::id()),
        }
    }

    /// CPU the server and the bench used in the span so far (`None`: unknown).
    pub fn used(&self) -> (Option<Duration>, Option<Duration>) {
        let since = |pid: u32, before: Duration| Some(cpu_time(pid)?.saturating_sub(before));
        (
            self.server.and_then(|(p, b)| since(p, b)),
            self.bench.and_then(|b| since(std::process::id(), b)),
        )
    }

    /// "cpu: server 3.1 s, bench 1.2 s" for the span so far.
    pub fn text(&self) -> String {
        let used = |pid: u32, before: Duration| {
            cpu_time(pid).map_or("?".into(), |now| {
                format!("{:.1} s", now.saturating_sub(before).as_secs_f64())
            })
        };
        let server = self.server.map_or("?".into(), |(p, b)| used(p, b));
        let bench = self
            .bench
            .map_or("?".into(), |b| used(std::process::id(), b));
        format!("cpu: server {server}, bench {bench}")
    }
}

pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// Samples a process's RSS every `every` on its own thread until stopped.
pub struct PeakSampler {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicU64>,
    thread: Option<JoinHandle<()>>,
}

impl PeakSampler {
    /// Starts sampling; gives up after `limit` even if never stopped.
    pub fn start(pid: u32, every: Duration, limit: Duration) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let peak = Arc::new(AtomicU64::new(rss_bytes(pid).unwrap_or(0)));
        let (s, p) = (Arc::clone(&stop), Arc::clone(&peak));
        let rounds = (limit.as_nanos() / every.as_nanos().max(1)).max(1);
        let thread = std::thread::spawn(move || {
            for _ in 0..rounds {
                if s.load(Ordering::Relaxed) {
                    break;
                }
                if let Some(v) = rss_bytes(pid) {
                    p.fetch_max(v, Ordering::Relaxed);
                }
                std::thread::sleep(every);
            }
        });
        Self {
            stop,
            peak,
            thread: Some(thread),
        }
    }

    /// Stops sampling and returns the peak seen (one last sample included).
    pub fn finish(mut self, pid: u32) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        if let Some(v) = rss_bytes(pid) {
            self.peak.fetch_max(v, Ordering::Relaxed);
        }
        self.peak.load(Ordering::Relaxed)
    }
}

impl Drop for PeakSampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_vm_rss() {
        let status = "Name:\tetcd\nVmPeak:\t  999 kB\nVmRSS:\t  204800 kB\nRssAnon:\t 1 kB\n";
        assert_eq!(parse_vm_rss(status), Some(200 * 1024 * 1024));
        assert_eq!(parse_vm_rss("Name:\tx\n"), None);
        assert_eq!(status_kb(status, "RssAnon:"), Some(1024));
        let own = rss_bytes(std::process::id()).expect("own RSS");
        assert!(own > 0);
        assert_eq!(mib(3 * 1024 * 1024), 3.0);
    }

    #[test]
    fn reads_cpu_ticks() {
        let stat = "4242 (tokio (worker)) S 1 2 3 4 5 6 7 8 9 10 250 31 0 0 20 0 9 0";
        assert_eq!(parse_cpu_ticks(stat), Some(281));
        assert_eq!(parse_cpu_ticks("4242 (x) S 1"), None);
        assert!(cpu_time(std::process::id()).is_some());
    }
}
