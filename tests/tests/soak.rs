//! Soak: 64 writers create and delete ConfigMaps for a while (3 min in CI,
//! `CAIRN_SOAK_SECS` for the long form) under compaction every 10 s while
//! many watchers (`CAIRN_SOAK_WATCHERS`, 100 in CI) follow them. Every
//! watcher receives every acknowledged change exactly once, in revision
//! order; no write fails; after warm-up the server's heap stays flat and
//! its mapped log pages never accumulate. The memory and data-directory
//! curves are printed (`--nocapture`); the data directory is held flat
//! only in runs of 10 minutes or more, as a shorter run fills at most the
//! first 64 MiB log segment that compaction reclaims.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use cairn_tests::{Server, client};
use serde_json::json;

const WRITERS: usize = 64;
const NAMESPACE_PATH: &str = "/api/v1/namespaces/soak/configmaps";
/// Names each writer cycles through: the live set stays bounded.
const NAMES_PER_WRITER: u64 = 4;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One reading of the server's memory (KiB) and data directory (bytes).
struct Sample {
    secs: u64,
    anon: u64,
    file: u64,
    disk: u64,
}

/// One line of `/proc/<pid>/status` in KiB (`VmRSS`, `RssAnon`, ...).
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Bytes the data directory takes on disk, as `du` counts them.
fn disk_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .flatten()
            .map(|e| match e.metadata() {
                Ok(m) if m.is_dir() => disk_bytes(&e.path()),
                Ok(m) => m.blocks() * 512,
                Err(_) => 0,
            })
            .sum()
    })
}

/// One writer: create, then delete, each of its names in turn; returns
/// how many changes were acknowledged and the failures.
fn write_until(port: u16, writer: usize, stop: &AtomicBool) -> (u64, Vec<String>) {
    let mut acknowledged = 0;
    let mut failures = Vec::new();
    let mut round = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let name = format!("w{writer}-{}", round % NAMES_PER_WRITER);
        let body = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name}, "data": {"round": round.to_string()}});
        let body = serde_json::to_vec(&body).expect("json");
        let created = client::request(
            port,
            "POST",
            NAMESPACE_PATH,
            &[("Content-Type", "application/json")],
            Some(&body),
        );
        match created {
            Ok(r) if r.status == 201 => acknowledged += 1,
            Ok(r) => failures.push(format!("create {name}: {} {}", r.status, r.text())),
            Err(e) => failures.push(format!("create {name}: {e}")),
        }
        let deleted = client::request(
            port,
            "DELETE",
            &format!("{NAMESPACE_PATH}/{name}"),
            &[],
            None,
        );
        match deleted {
            Ok(r) if r.status == 200 => acknowledged += 1,
            Ok(r) => failures.push(format!("delete {name}: {} {}", r.status, r.text())),
            Err(e) => failures.push(format!("delete {name}: {e}")),
        }
        round += 1;
    }
    (acknowledged, failures)
}

/// A watch from `rv`.
fn open_watch(port: u16, rv: &str) -> Result<client::WatchStream, String> {
    let path = format!("{NAMESPACE_PATH}?watch=1&resourceVersion={rv}&timeoutSeconds=86400");
    let mut stream = match client::WatchStream::open(port, path.as_str()) {
        Ok(s) if s.status == 200 => s,
        Ok(s) => return Err(format!("watch answered {}", s.status)),
        Err(e) => return Err(format!("watch: {e}")),
    };
    stream.set_timeout(Duration::from_secs(2));
    Ok(stream)
}

/// One watcher from `rv`: reads until it has `target` changes (once the
/// writers are done and set it); returns the anomaly, if any. A stream the
/// server ends (a watcher too slow to keep up is let go, as kube lets one
/// go) is resumed from the last resourceVersion seen, as a reflector
/// resumes: nothing may be missing or repeated across the resumption.
fn watch_all(port: u16, rv: &str, target: &AtomicU64) -> Option<String> {
    let mut stream = match open_watch(port, rv) {
        Ok(s) => s,
        Err(e) => return Some(e),
    };
    let mut seen = 0u64;
    let mut last_rv = 0u64;
    let mut quiet_since = Instant::now();
    loop {
        let want = target.load(Ordering::Acquire);
        if want != u64::MAX && seen >= want {
            return (seen > want).then(|| format!("{seen} events for {want} changes"));
        }
        match stream.next_event() {
            Some(event) if event["type"] == "BOOKMARK" => {}
            Some(event) => {
                let rv: u64 = event["object"]["metadata"]["resourceVersion"]
                    .as_str()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0);
                if rv <= last_rv {
                    return Some(format!("event at {rv} after {last_rv}: {event}"));
                }
                last_rv = rv;
                seen += 1;
                quiet_since = Instant::now();
            }
            None if stream.ended() => {
                let from = if last_rv == 0 {
                    rv.to_string()
                } else {
                    last_rv.to_string()
                };
                stream = match open_watch(port, &from) {
                    Ok(s) => s,
                    Err(e) => return Some(format!("resuming after {seen} events at {from}: {e}")),
                };
            }
            // A bound on a hung stream once the writers are done, not a
            // timing assertion: every change was acknowledged before it.
            None if want != u64::MAX && quiet_since.elapsed() > Duration::from_secs(120) => {
                return Some(format!("{seen} of {want} events"));
            }
            None => {}
        }
    }
}

#[test]
fn writers_and_watchers_under_compaction_lose_nothing_and_stay_flat() {
    let secs = env_or("CAIRN_SOAK_SECS", 180);
    let watchers = env_or("CAIRN_SOAK_WATCHERS", 100);
    let server = Server::start(&["--compaction-interval", "10s", "--logging-format", "json"]);
    let pid = server.pid().expect("pid");
    let ns = server.post(
        "/api/v1/namespaces",
        &json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "soak"}}),
    );
    assert_eq!(ns.status, 201, "{}", ns.text());
    // Watched from after the namespace's kube-root-ca.crt: every later
    // change is a writer's.
    server.settle_namespace("soak");
    let start_rv = server.get(NAMESPACE_PATH).json()["metadata"]["resourceVersion"]
        .as_str()
        .expect("rv")
        .to_string();

    let target = Arc::new(AtomicU64::new(u64::MAX));
    let watcher_threads: Vec<_> = (0..watchers)
        .map(|_| {
            let (port, rv, target) = (server.port, start_rv.clone(), Arc::clone(&target));
            std::thread::spawn(move || watch_all(port, &rv, &target))
        })
        .collect();
    let stop = Arc::new(AtomicBool::new(false));
    let writer_threads: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (port, stop) = (server.port, Arc::clone(&stop));
            std::thread::spawn(move || write_until(port, w, &stop))
        })
        .collect();

    let started = Instant::now();
    let mut samples = Vec::new();
    while started.elapsed() < Duration::from_secs(secs) {
        std::thread::sleep(Duration::from_secs((secs / 30).max(1)));
        let sample = Sample {
            secs: started.elapsed().as_secs(),
            anon: status_kib(pid, "RssAnon"),
            file: status_kib(pid, "RssFile"),
            disk: disk_bytes(&server.data_dir),
        };
        println!(
            "soak t={}s rss={} KiB (heap {} KiB, mapped files {} KiB) data-dir={} KiB",
            sample.secs,
            sample.anon + sample.file,
            sample.anon,
            sample.file,
            sample.disk / 1024
        );
        samples.push(sample);
    }
    stop.store(true, Ordering::Release);
    let mut total = 0;
    let mut failures = Vec::new();
    for t in writer_threads {
        let (acknowledged, failed) = t.join().expect("writer");
        total += acknowledged;
        failures.extend(failed);
    }
    target.store(total, Ordering::Release);
    let anomalies: Vec<String> = watcher_threads
        .into_iter()
        .filter_map(|t| t.join().expect("watcher"))
        .collect();
    println!("soak: {total} changes by {WRITERS} writers in {secs} s, {watchers} watchers");
    assert!(
        failures.is_empty(),
        "{} writes failed: {:?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
    assert!(
        anomalies.is_empty(),
        "{} watchers: {:?}",
        anomalies.len(),
        &anomalies[..anomalies.len().min(5)]
    );

    // Flat after warm-up (the first third): the last third's peak heap is
    // within half again of the warm-up's end, plus room for allocator
    // slack. Mapped log pages are the page cache seen through the segment
    // mappings: a scan (a sidecar built at a roll, compaction's rewrite)
    // faults a whole segment in until the housekeeper unmaps it, so they
    // may rise by up to two segments, never accumulate.
    let segment = 68 << 10;
    let warm = &samples[samples.len() / 3];
    let late = &samples[2 * samples.len() / 3..];
    let anon_late = late.iter().map(|s| s.anon).max().expect("samples");
    assert!(
        anon_late <= warm.anon * 3 / 2 + 32 * 1024,
        "heap grew from {} KiB after warm-up to {anon_late} KiB",
        warm.anon
    );
    let file_late = late.iter().map(|s| s.file).max().expect("samples");
    assert!(
        file_late <= warm.file + 2 * segment,
        "mapped files grew from {} KiB after warm-up to {file_late} KiB",
        warm.file
    );
    if secs >= 600 {
        let disk_late = late.iter().map(|s| s.disk).max().expect("samples");
        let segment = segment << 10;
        assert!(
            disk_late <= warm.disk.max(segment) + segment,
            "the data directory grew from {} to {disk_late} bytes",
            warm.disk
        );
    }
    // JSON logs: an error line is the one without a verbosity.
    let errors: Vec<String> = server
        .log_text()
        .lines()
        .filter(|l| {
            serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| v.get("v").is_none())
        })
        .map(str::to_string)
        .collect();
    assert!(errors.is_empty(), "errors in the log: {errors:?}");
}
