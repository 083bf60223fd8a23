//! Test harness: starts the real `cairn-apiserver` binary on a free loopback
//! port with its own data directory, and talks plain HTTP/1.1 to it.
//!
//! The binary is found next to the test executable's directory
//! (`target/<profile>/cairn-apiserver`, which `cargo test --workspace`, the
//! README's test command, builds in the same profile because the server
//! package has integration tests of its own) or at `$CAIRN_APISERVER_BIN`.

pub mod client;
pub mod clients;
pub mod k8s_proto;
pub mod linearizability;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub use client::{Response, WatchStream};
pub use clients::{kubectl, kubectl_present, python, run_python_script};
use serde_json::Value;

/// The server binary under test.
#[must_use]
pub fn binary() -> PathBuf {
    if let Ok(p) = std::env::var("CAIRN_APISERVER_BIN") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().expect("test executable path");
    // target/<profile>/deps/<test> → target/<profile>/cairn-apiserver
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .expect("target directory")
        .join("cairn-apiserver");
    assert!(
        bin.exists(),
        "{} is missing: run `cargo test --workspace` (the README test command) or `cargo build -p cairn-apiserver` first",
        bin.display()
    );
    bin
}

/// A free loopback port.
#[must_use]
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

/// A running server process.
pub struct Server {
    child: Option<Child>,
    pub port: u16,
    pub data_dir: PathBuf,
    _dir: Option<tempfile::TempDir>,
    log: PathBuf,
}

impl Server {
    /// A server on a fresh data directory.
    #[must_use]
    pub fn start(extra_args: &[&str]) -> Server {
        let dir = tempfile::tempdir().expect("tempdir");
        let data_dir = dir.path().join("data");
        let mut s = Server::start_on(&data_dir, extra_args);
        s._dir = Some(dir);
        s
    }

    /// A server on a given data directory (e.g. to restart on the same data).
    #[must_use]
    pub fn start_on(data_dir: &Path, extra_args: &[&str]) -> Server {
        let port = free_port();
        let log = data_dir.with_extension(format!("{port}.log"));
        let log_file = std::fs::File::create(&log).expect("log file");
        let child = Command::new(binary())
            .arg("--data-dir")
            .arg(data_dir)
            .arg("--insecure-port")
            .arg(port.to_string())
            .args(extra_args)
            .stdout(Stdio::null())
            .stderr(log_file)
            .spawn()
            .expect("start cairn-apiserver");
        let server = Server {
            child: Some(child),
            port,
            data_dir: data_dir.to_path_buf(),
            _dir: None,
            log,
        };
        server.wait_ready();
        server
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(r) = client::request(self.port, "GET", "/readyz", &[], None)
                && r.status == 200
            {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("server did not become ready; log:\n{}", self.log_text());
    }

    /// The server's process id (while it runs).
    #[must_use]
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// What the server wrote to stderr.
    #[must_use]
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    #[must_use]
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Any request.
    #[must_use]
    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&[u8]>,
    ) -> Response {
        client::request(self.port, method, path, headers, body)
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"))
    }

    #[must_use]
    pub fn get(&self, path: &str) -> Response {
        self.request("GET", path, &[], None)
    }

    /// A request with a JSON body.
    #[must_use]
    pub fn send_json(&self, method: &str, path: &str, body: &Value) -> Response {
        let bytes = serde_json::to_vec(body).expect("json");
        self.request(
            method,
            path,
            &[("Content-Type", "application/json")],
            Some(&bytes),
        )
    }

    #[must_use]
    pub fn post(&self, path: &str, body: &Value) -> Response {
        self.send_json("POST", path, body)
    }

    #[must_use]
    pub fn put(&self, path: &str, body: &Value) -> Response {
        self.send_json("PUT", path, body)
    }

    #[must_use]
    pub fn patch(&self, path: &str, content_type: &str, body: &str) -> Response {
        self.request(
            "PATCH",
            path,
            &[("Content-Type", content_type)],
            Some(body.as_bytes()),
        )
    }

    #[must_use]
    pub fn delete(&self, path: &str) -> Response {
        self.request("DELETE", path, &[], None)
    }

    /// Opens a watch stream.
    #[must_use]
    pub fn watch(&self, path: &str) -> WatchStream {
        WatchStream::open(self.port, path).unwrap_or_else(|e| panic!("watch {path}: {e}"))
    }

    /// Sends SIGTERM and waits for the process to exit; returns its exit code.
    pub fn stop(&mut self) -> Option<i32> {
        let mut child = self.child.take()?;
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return status.code();
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!(
                    "server did not stop within 30 s of SIGTERM; log:\n{}",
                    self.log_text()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// An Event body for tests.
#[must_use]
pub fn event(name: &str, reason: &str) -> Value {
    serde_json::json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name},
        "involvedObject": {"kind": "Pod", "name": "web-1", "namespace": "default", "uid": "u-1"},
        "reason": reason,
        "message": format!("{reason} happened"),
        "type": "Normal",
        "count": 1,
        "source": {"component": "kubelet", "host": "node-1"},
        "firstTimestamp": "2024-05-01T10:00:00Z",
        "lastTimestamp": "2024-05-01T10:00:00Z",
    })
}

/// Polls `done` until it holds; fails the test naming `what` after 20 s.
/// For eventual states (a controller's work), not for timing assertions.
pub fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(25));
    }
}
