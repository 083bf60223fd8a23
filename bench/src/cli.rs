//! Command-line flags and the sizes they resolve to (full run or `--quick`).

use std::path::PathBuf;

use clap::Parser;

/// Drives a cairn-apiserver and an etcd with the same load shapes and prints
/// each figure with its cairn/etcd ratio and the target it is held to.
#[derive(Parser, Debug)]
#[command(name = "cairn-bench", version)]
pub struct Args {
    /// Start this cairn-apiserver binary on a free loopback port with a fresh
    /// data directory (the preferred way: its RSS is read from /proc).
    #[arg(long, conflicts_with = "server_url")]
    pub server_bin: Option<PathBuf>,
    /// Use a cairn already running here instead (it should hold no Events).
    #[arg(long, required_unless_present_any = ["server_bin", "serve_null"])]
    pub server_url: Option<String>,
    /// Pid of the server given by --server-url, for its RSS.
    #[arg(long, requires = "server_url")]
    pub server_pid: Option<u32>,
    /// etcd client URL on loopback (bench/etcd.sh prints it); without it only cairn runs.
    #[arg(long)]
    pub etcd: Option<String>,
    /// Pid of that etcd, for its RSS.
    #[arg(long, requires = "etcd")]
    pub etcd_pid: Option<u32>,
    /// gRPC connections the etcd writers share (perf-anchors.md used 8).
    #[arg(long, default_value_t = 8)]
    pub etcd_conns: usize,
    /// Where the started server's data directory and log go.
    #[arg(long, default_value = "target/bench-data")]
    pub work_dir: PathBuf,
    /// Ten times smaller sizes, for a smoke run.
    #[arg(long)]
    pub quick: bool,
    /// Only store the Events and list them in each response encoding
    /// (JSON, protobuf, CBOR, Table); skips the other list and watch phases.
    #[arg(long)]
    pub encodings_only: bool,
    /// Only measure what authentication costs (the auth phase): creates on
    /// the plain port, over TLS with a client certificate and with bearer
    /// tokens, beside etcd puts; skips every other phase.
    #[arg(long, conflicts_with = "encodings_only")]
    pub auth_only: bool,
    /// Only the selective watch phases: `watch_select_*` (Events by
    /// involvedObject.name, Pods by spec.nodeName, beside etcd per-prefix
    /// watchers), the CPU scaling over `--scale-watchers`, and the
    /// label-selected watchers; skips every other phase.
    #[arg(long, conflicts_with_all = ["encodings_only", "auth_only"])]
    pub select_only: bool,
    /// Serve as the create ceiling's do-nothing HTTP/1.1 server on this
    /// address (the bench starts itself so; prints the bound address).
    #[arg(long, hide = true)]
    pub serve_null: Option<std::net::SocketAddr>,
    /// Only the create ceiling: the create load against a do-nothing
    /// HTTP/1.1 server, beside etcd's puts.
    #[arg(long, conflicts_with_all = ["encodings_only", "auth_only", "select_only"])]
    pub ceiling_only: bool,
    /// Only the all-events watch phases: `watch_100` and `watch_1000`
    /// (`--watchers-small`, `--watchers-large`, `--watch-events`).
    #[arg(long, conflicts_with_all = ["encodings_only", "auth_only", "select_only"])]
    pub watch_only: bool,
    /// Only measure what an admission webhook costs writes it does not
    /// cover: Event creates with no webhook and with one validating webhook
    /// on ConfigMaps, in turns; skips every other phase.
    #[arg(long, conflicts_with_all = ["encodings_only", "auth_only", "select_only"])]
    pub webhook_only: bool,
    /// Events each webhook case creates [default: 30000, quick 3000].
    #[arg(long)]
    pub webhook_events: Option<u64>,
    /// Only `list_select`: Events stored (`--events`), 0.1% of them
    /// selectable, listed whole and by field and label selector, full and paged.
    #[arg(long, conflicts_with_all = ["encodings_only", "auth_only", "select_only"])]
    pub list_select_only: bool,
    /// Only the reopen measure: store `--reopen-objects` Events, restart the
    /// server (and an etcd the bench starts itself from `--etcd-bin`) and
    /// time readiness and a full list.
    #[arg(long, conflicts_with_all = ["encodings_only", "auth_only", "select_only", "list_select_only"])]
    pub reopen_1m: bool,
    /// RSS (MiB) an index-free build had with the same Events stored (an
    /// earlier run's `list_select_*_rss` line); when given, that figure is
    /// held to at most 1.2x it.
    #[arg(long)]
    pub rss_baseline_mib: Option<f64>,
    /// Objects the reopen measure stores [default: 1000000, quick 100000].
    #[arg(long)]
    pub reopen_objects: Option<u64>,
    /// The etcd binary the reopen measure starts and restarts.
    #[arg(long, default_value = "/usr/bin/etcd")]
    pub etcd_bin: PathBuf,
    /// Watchers of `watch_select_*`, one target each [default: 1000, quick 100].
    #[arg(long)]
    pub select_watchers: Option<usize>,
    /// Objects created during each selective watch phase [default: 10000, quick 1000].
    #[arg(long)]
    pub select_events: Option<u64>,
    /// Watcher counts of the CPU scaling phase, comma-separated
    /// [default: 100,1000,5000, quick 10,100,500].
    #[arg(long, value_delimiter = ',')]
    pub scale_watchers: Option<Vec<usize>>,
    /// `app=` values (and watchers) of the label phase [default: 100, quick 10].
    #[arg(long)]
    pub label_watchers: Option<usize>,
    /// Longest any phase's writers may run before the phase fails.
    #[arg(long, default_value_t = 600)]
    pub phase_secs: u64,
    /// Only measure encryption at rest: Secret creates (server CPU per
    /// create) and a full Secret list, on a server without encryption and
    /// on one encrypting Secrets with aesgcm (needs --server-bin).
    #[arg(long, conflicts_with_all = ["encodings_only", "auth_only"])]
    pub secrets_only: bool,
    /// Secrets each encryption case creates and lists [default: 10000, quick 1000].
    #[arg(long)]
    pub secrets: Option<u64>,
    /// Events each auth case creates (and etcd puts) [default: 30000, quick 3000].
    #[arg(long)]
    pub auth_events: Option<u64>,
    /// Rounds the auth cases take turns in (drift on a shared machine hits all alike).
    #[arg(long, default_value_t = 3)]
    pub auth_rounds: u64,
    /// Events stored before the list phases [default: 100000, quick 10000].
    #[arg(long)]
    pub events: Option<u64>,
    /// Of those, created one at a time (the create_1 figure) [default: 2000, quick 200].
    #[arg(long)]
    pub serial_creates: Option<u64>,
    /// Concurrent writers of the create and watch phases.
    #[arg(long, default_value_t = 64)]
    pub concurrency: usize,
    /// Page size of the paged list.
    #[arg(long, default_value_t = 500)]
    pub page_size: u64,
    /// Repetitions of the full list (the median is reported) [default: 5, quick 3].
    #[arg(long)]
    pub list_reps: Option<usize>,
    /// Repetitions of the paged list [default: 3, quick 2].
    #[arg(long)]
    pub paged_reps: Option<usize>,
    /// Events created during each watch phase [default: 10000, quick 1000].
    #[arg(long)]
    pub watch_events: Option<u64>,
    /// Watchers of the smaller watch phase [default: 100, quick 10].
    #[arg(long)]
    pub watchers_small: Option<usize>,
    /// Watchers of the larger watch phase [default: 1000, quick 100].
    #[arg(long)]
    pub watchers_large: Option<usize>,
    /// How long watchers may take, after the last write, to see every event.
    #[arg(long, default_value_t = 60)]
    pub drain_secs: u64,
}

/// The sizes of one run.
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    pub events: u64,
    pub serial: u64,
    pub list_reps: usize,
    pub paged_reps: usize,
    pub watch_events: u64,
    pub watchers_small: usize,
    pub watchers_large: usize,
    pub auth_events: u64,
    pub webhook_events: u64,
    pub select_watchers: usize,
    pub select_events: u64,
    pub label_watchers: usize,
    pub reopen_objects: u64,
}

impl Args {
    pub fn sizes(&self) -> Sizes {
        let quick = self.quick;
        fn pick<T>(quick: bool, full: T, small: T) -> T {
            if quick { small } else { full }
        }
        let q = |full, small| pick(quick, full, small);
        let qs = |full, small| pick(quick, full, small);
        let events = self.events.unwrap_or(q(100_000, 10_000)).max(1);
        Sizes {
            events,
            serial: self.serial_creates.unwrap_or(q(2_000, 200)).min(events),
            list_reps: self.list_reps.unwrap_or(qs(5, 3)).max(1),
            paged_reps: self.paged_reps.unwrap_or(qs(3, 2)).max(1),
            watch_events: self.watch_events.unwrap_or(q(10_000, 1_000)).max(1),
            watchers_small: self.watchers_small.unwrap_or(qs(100, 10)),
            watchers_large: self.watchers_large.unwrap_or(qs(1_000, 100)),
            auth_events: self.auth_events.unwrap_or(q(30_000, 3_000)).max(1),
            webhook_events: self.webhook_events.unwrap_or(q(30_000, 3_000)).max(1),
            select_watchers: self.select_watchers.unwrap_or(qs(1_000, 100)).max(1),
            select_events: self.select_events.unwrap_or(q(10_000, 1_000)).max(1),
            label_watchers: self.label_watchers.unwrap_or(qs(100, 10)).max(5),
            reopen_objects: self.reopen_objects.unwrap_or(q(1_000_000, 100_000)).max(1),
        }
    }

    /// The watcher counts of the CPU scaling phase.
    pub fn scale_watchers(&self) -> Vec<usize> {
        let default = if self.quick {
            vec![10, 100, 500]
        } else {
            vec![100, 1_000, 5_000]
        };
        let mut v = self.scale_watchers.clone().unwrap_or(default);
        v.retain(|&n| n > 0);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_is_ten_times_smaller() {
        let full = Args::parse_from(["cairn-bench", "--server-bin", "x"]).sizes();
        let quick = Args::parse_from(["cairn-bench", "--server-bin", "x", "--quick"]).sizes();
        assert_eq!(full.events, 10 * quick.events);
        assert_eq!(full.watch_events, 10 * quick.watch_events);
        assert_eq!(full.watchers_large, 10 * quick.watchers_large);
        assert_eq!(full.auth_events, 10 * quick.auth_events);
        assert_eq!(full.select_watchers, 10 * quick.select_watchers);
        assert_eq!(full.reopen_objects, 10 * quick.reopen_objects);
        let scale = Args::parse_from([
            "cairn-bench",
            "--server-bin",
            "x",
            "--scale-watchers",
            "3,0,7",
        ]);
        assert_eq!(scale.scale_watchers(), vec![3, 7]);
        let one = Args::parse_from([
            "cairn-bench",
            "--server-url",
            "http://127.0.0.1:1",
            "--events",
            "5",
        ]);
        assert_eq!(one.sizes().serial, 5);
        assert!(Args::try_parse_from(["cairn-bench"]).is_err());
    }
}
