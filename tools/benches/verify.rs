//! `cairn-store verify` of a ~1 GiB data directory against `cat DIR/* >
//! /dev/null` in the same run (issue #6's target: within 1.5×).
//!
//! `cargo bench -p cairn-store --bench verify`. The directory is written once
//! by cairn-engine under `target/bench-data/` (Kubernetes-like JSON objects of
//! ~1 KiB, one per transaction, 64 MiB segments with sidecars) and reused.
//! Each tool runs alternately, page cache warm, five times; the medians are
//! compared. When the process may drop the page cache (root on Linux), one
//! cold run of each is measured too. `CAIRN_BENCH_QUICK=1` writes 64 MiB.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cairn_engine::{Engine, Options, Txn};

fn data_dir(bytes: u64) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-data");
    let dir = root.join(format!("cairn-store-verify-{}m", bytes >> 20));
    let done = dir.join("WRITTEN");
    if done.exists() {
        return dir;
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "writing {} MiB of records to {}",
        bytes >> 20,
        dir.display()
    );
    let engine = Engine::open(&dir, Options::no_sync()).expect("open bench directory");
    let filler = "x".repeat(900);
    let threads = 4u64;
    let per_thread = bytes / 1100 / threads;
    std::thread::scope(|s| {
        for t in 0..threads {
            let (engine, filler) = (engine.clone(), &filler);
            s.spawn(move || {
                for i in 0..per_thread {
                    let (ns, name) = (format!("ns-{}", i % 50), format!("obj-{t}-{i:08}"));
                    let value = format!(
                        r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{name}","namespace":"{ns}","labels":{{"app":"bench"}}}},"data":{{"payload":"{filler}"}}}}"#
                    );
                    let key = format!("/registry/configmaps/{ns}/{name}");
                    engine
                        .commit_blocking(Txn::new().put(key, value))
                        .expect("commit");
                }
            });
        }
    });
    engine.close();
    std::fs::write(&done, b"").expect("marker");
    dir
}

fn drop_caches() -> bool {
    Command::new("sync").status().is_ok_and(|s| s.success())
        && std::fs::write("/proc/sys/vm/drop_caches", b"3\n").is_ok()
}

fn time(cmd: &mut Command) -> Duration {
    let started = Instant::now();
    let status = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .status()
        .expect("run");
    let took = started.elapsed();
    assert!(status.success(), "{cmd:?} failed: {status}");
    took
}

fn cat(dir: &Path) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!("cat '{}'/* > /dev/null", dir.display()));
    c
}

fn verify(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cairn-store"));
    c.arg("verify").arg("--data-dir").arg(dir);
    c
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let quick = std::env::var_os("CAIRN_BENCH_QUICK").is_some();
    let dir = data_dir(if quick { 64 << 20 } else { 1 << 30 });
    let bytes: u64 = std::fs::read_dir(&dir)
        .expect("read dir")
        .filter_map(Result::ok)
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    let gib = bytes as f64 / f64::from(1 << 30);
    // Warm the page cache, then alternate.
    time(&mut cat(&dir));
    let (mut cats, mut verifies) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        cats.push(time(&mut cat(&dir)));
        verifies.push(time(&mut verify(&dir)));
    }
    let (c, v) = (median(cats), median(verifies));
    println!("verify benchmark: {} ({:.2} GiB)", dir.display(), gib);
    println!(
        "warm cache  cat DIR/* > /dev/null  {:>7.3}s  {:>6.2} GiB/s",
        c.as_secs_f64(),
        gib / c.as_secs_f64()
    );
    println!(
        "warm cache  cairn-store verify     {:>7.3}s  {:>6.2} GiB/s",
        v.as_secs_f64(),
        gib / v.as_secs_f64()
    );
    println!(
        "warm cache  verify / cat = {:.2}x (target: within 1.5x)",
        v.as_secs_f64() / c.as_secs_f64()
    );
    if drop_caches() {
        let c = time(&mut cat(&dir));
        drop_caches();
        let v = time(&mut verify(&dir));
        println!(
            "cold cache  cat {:.3}s, verify {:.3}s: verify / cat = {:.2}x",
            c.as_secs_f64(),
            v.as_secs_f64(),
            v.as_secs_f64() / c.as_secs_f64()
        );
    } else {
        println!("cold cache  not measured (cannot drop the page cache here)");
    }
}
