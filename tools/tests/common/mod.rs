//! Helpers shared by the cairn-store tests: running the real binary, writing
//! real data directories with cairn-engine, and byte surgery on their files
//! (record boundaries as engine/FORMAT.md lays them out).

#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use cairn_engine::{Engine, Options, Txn};

/// What one run of the binary did.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stdout_bytes: Vec<u8>,
    pub stderr: String,
}

impl Run {
    /// The JSON document on stdout.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", self.stdout))
    }

    /// Asserts exit 0 with nothing on stderr (no progress bar drawn into a pipe).
    pub fn ok(self) -> Run {
        assert_eq!(
            self.code, 0,
            "stdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        assert_eq!(self.stderr, "", "stderr of a successful run");
        self
    }

    /// Asserts `code` and exactly one line on stderr, no panic.
    pub fn fails(self, code: i32) -> Run {
        assert_eq!(
            self.code, code,
            "stdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        assert_eq!(
            self.stderr.lines().count(),
            1,
            "one line: {:?}",
            self.stderr
        );
        assert!(self.stderr.starts_with("cairn-store: "), "{}", self.stderr);
        assert!(!self.stderr.contains("panicked"), "{}", self.stderr);
        self
    }
}

/// Runs `cairn-store` with `args` (stdout and stderr piped, so not a terminal).
pub fn run<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_cairn-store"))
        .args(args)
        .output()
        .expect("run cairn-store");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stdout_bytes: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `args` followed by `--data-dir dir`.
pub fn run_on(dir: &Path, args: &[&str]) -> Run {
    let mut all: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
    all.push("--data-dir".into());
    all.push(dir.into());
    run(&all)
}

/// Small segments, so a modest workload spans several sealed segments.
pub fn options() -> Options {
    Options {
        segment_bytes: 8 << 10,
        ..Options::no_sync()
    }
}

/// A Kubernetes object as the API server stores it (no resourceVersion).
pub fn object(kind: &str, ns: &str, name: &str, n: u64) -> String {
    format!(
        r#"{{"apiVersion":"v1","kind":"{kind}","metadata":{{"name":"{name}","namespace":"{ns}","uid":"u-{n}"}},"data":{{"n":"{n}"}}}}"#
    )
}

/// Key of a ConfigMap.
pub fn cm_key(ns: &str, name: &str) -> String {
    format!("/registry/configmaps/{ns}/{name}")
}

/// Writes a deterministic workload: ConfigMaps in three namespaces created,
/// updated and deleted over `txns` transactions (some with several ops), a
/// cluster-scoped object, a binary value and a key with a TTL far away.
/// Returns the open engine (holding the lock) for the caller to close.
pub fn populate(dir: &Path, txns: u64) -> Engine {
    let e = Engine::open(dir, options()).expect("open");
    e.commit_blocking(
        Txn::new()
            .put(
                "/registry/namespaces/ns-0",
                r#"{"kind":"Namespace","metadata":{"name":"ns-0"}}"#,
            )
            .put("/bin/blob", vec![0xff, 0x00, 0x01, 0xfe]),
    )
    .expect("commit");
    for i in 0..txns {
        let ns = format!("ns-{}", i % 3);
        let name = format!("cm-{:02}", i % 17);
        let mut t = Txn::new().put(cm_key(&ns, &name), object("ConfigMap", &ns, &name, i));
        if i % 5 == 4 {
            t = t.put(format!("/plain/{i:04}"), format!("plain value {i}"));
        }
        if i % 7 == 6 {
            t = t.delete(cm_key(
                &format!("ns-{}", (i + 1) % 3),
                &format!("cm-{:02}", (i + 3) % 17),
            ));
        }
        e.commit_blocking(t).expect("commit");
    }
    e.commit_blocking(Txn::new().put_with_ttl(
        "/leases/far",
        "held",
        Duration::from_secs(86_400 * 365),
    ))
    .expect("commit");
    e
}

/// A populated, closed data directory.
pub fn populated(txns: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    close(populate(dir.path(), txns), dir.path());
    dir
}

/// Closes `engine` and waits until its lock is free. Another test thread
/// spawning a child at the wrong moment leaves the child a copy of the lock's
/// descriptor until its `exec` (measured: ~200 µs), during which the tool
/// rightly sees the directory as locked.
pub fn close(engine: Engine, dir: &Path) {
    engine.close();
    let started = std::time::Instant::now();
    while cairn_engine::lock_holder(dir).is_some() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "lock still held"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Copies every file of `from` into a new temporary directory.
pub fn copy(from: &Path) -> tempfile::TempDir {
    let to = tempfile::tempdir().expect("tempdir");
    for e in fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        fs::copy(e.path(), to.path().join(e.file_name())).expect("copy");
    }
    to
}

/// Files of `dir` with extension `ext`, sorted.
pub fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    v
}

/// (start, end, revision) of every record in a segment file.
pub fn records(path: &Path) -> Vec<(usize, usize, u64)> {
    let buf = fs::read(path).expect("read segment");
    let mut out = Vec::new();
    let mut pos = 32;
    while pos + 16 <= buf.len() {
        let len = u32::from_le_bytes(buf[pos..pos + 4].try_into().expect("4")) as usize;
        if len == 0 {
            break; // zeros the engine wrote ahead of its appends
        }
        let end = pos + 8 + len;
        let rev = u64::from_le_bytes(buf[pos + 8..pos + 16].try_into().expect("8"));
        out.push((pos, end, rev));
        pos = end;
    }
    out
}

/// Flips one bit of the byte at `offset`.
pub fn flip(path: &Path, offset: usize) {
    let mut b = fs::read(path).expect("read");
    b[offset] ^= 0x10;
    fs::write(path, b).expect("write");
}

/// Cuts `path` to `len` bytes.
pub fn cut(path: &Path, len: usize) {
    let f = fs::OpenOptions::new().write(true).open(path).expect("open");
    f.set_len(len as u64).expect("truncate");
}

/// The file name of `path`.
pub fn name(path: &Path) -> String {
    path.file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned()
}

/// Every file of a directory (but the lock) with its length and CRC-32, to
/// check nothing changed.
pub fn contents(dir: &Path) -> Vec<(String, usize, u32)> {
    let mut v: Vec<(String, usize, u32)> = fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| name(p) != "LOCK")
        .map(|p| {
            let b = fs::read(&p).expect("read");
            (name(&p), b.len(), crc32fast::hash(&b))
        })
        .collect();
    v.sort();
    v
}
