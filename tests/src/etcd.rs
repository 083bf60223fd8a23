//! A real etcd for black-box tests (Debian's `etcd-server`): started on
//! free loopback ports with its own data directory, killed on drop; and
//! reads through etcd's JSON gateway to compare with what cairn reports.
//! `CAIRN_STORAGE=etcd` makes every `Server::start*` run on one of these.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::Value;

use crate::{client, free_port};

/// Whether the black-box suites run on etcd (`CAIRN_STORAGE=etcd`).
#[must_use]
pub fn requested() -> bool {
    std::env::var("CAIRN_STORAGE").is_ok_and(|v| v == "etcd")
}

/// One etcd member.
pub struct Etcd {
    child: Option<Child>,
    pub port: u16,
    peer_port: u16,
    name: String,
    /// `--initial-cluster`: every member's `name=peer URL`.
    initial_cluster: String,
    pub data_dir: PathBuf,
    _dir: Option<tempfile::TempDir>,
}

impl Etcd {
    /// A member on a fresh data directory.
    #[must_use]
    pub fn start() -> Etcd {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut etcd = Etcd::start_on(&dir.path().join("etcd"));
        etcd._dir = Some(dir);
        etcd
    }

    /// A member on `data_dir` (kept across restarts).
    #[must_use]
    pub fn start_on(data_dir: &Path) -> Etcd {
        let peer_port = free_port();
        let mut etcd = Etcd {
            child: None,
            port: free_port(),
            peer_port,
            name: "cairn-test".into(),
            initial_cluster: format!("cairn-test=http://127.0.0.1:{peer_port}"),
            data_dir: data_dir.to_path_buf(),
            _dir: None,
        };
        etcd.resume();
        etcd
    }

    /// A cluster of `size` members on fresh data directories, every one
    /// healthy (a leader elected) on return.
    #[must_use]
    pub fn cluster(size: usize) -> Vec<Etcd> {
        let peer_ports: Vec<u16> = (0..size).map(|_| free_port()).collect();
        let initial_cluster = peer_ports
            .iter()
            .enumerate()
            .map(|(i, port)| format!("member-{i}=http://127.0.0.1:{port}"))
            .collect::<Vec<_>>()
            .join(",");
        let mut members: Vec<Etcd> = peer_ports
            .into_iter()
            .enumerate()
            .map(|(i, peer_port)| {
                let dir = tempfile::tempdir().expect("tempdir");
                let mut member = Etcd {
                    child: None,
                    port: free_port(),
                    peer_port,
                    name: format!("member-{i}"),
                    initial_cluster: initial_cluster.clone(),
                    data_dir: dir.path().join("etcd"),
                    _dir: Some(dir),
                };
                // No member is healthy before a quorum runs: start all first.
                member.spawn();
                member
            })
            .collect();
        for member in &mut members {
            member.wait_healthy();
        }
        members
    }

    /// Every member's URL, comma-separated, as `--etcd-servers` takes them.
    #[must_use]
    pub fn urls(members: &[Etcd]) -> String {
        members.iter().map(Etcd::url).collect::<Vec<_>>().join(",")
    }

    /// `http://127.0.0.1:<port>`, what `--etcd-servers` takes.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Starts the process again on the same ports and data (after `kill`)
    /// and waits until it is healthy (in a cluster: until it has a leader).
    pub fn resume(&mut self) {
        self.spawn();
        self.wait_healthy();
    }

    fn spawn(&mut self) {
        assert!(self.child.is_none(), "etcd is running");
        let url = self.url();
        let peer = format!("http://127.0.0.1:{}", self.peer_port);
        let log = std::fs::File::create(self.data_dir.with_extension("log")).expect("etcd log");
        let child = Command::new("etcd")
            .arg(format!("--name={}", self.name))
            .arg(format!("--data-dir={}", self.data_dir.display()))
            .arg(format!("--listen-client-urls={url}"))
            .arg(format!("--advertise-client-urls={url}"))
            .arg(format!("--listen-peer-urls={peer}"))
            .arg(format!("--initial-advertise-peer-urls={peer}"))
            .arg(format!("--initial-cluster={}", self.initial_cluster))
            .arg("--initial-cluster-token=cairn-test")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("etcd is installed (apt-get install etcd-server)");
        self.child = Some(child);
    }

    fn wait_healthy(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(r) = client::request(self.port, "GET", "/health", &[], None)
                && r.status == 200
            {
                return;
            }
            if let Some(status) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                panic!("etcd exited ({status}) at start-up");
            }
            assert!(Instant::now() < deadline, "etcd did not become healthy");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kills the process (the data stays).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// A Range of one key through etcd's JSON gateway: the response's
    /// revision and the key's `mod_revision`, if it exists.
    #[must_use]
    pub fn get(&self, key: &str) -> (u64, Option<u64>) {
        let b64 = base64::engine::general_purpose::STANDARD;
        let body = serde_json::json!({ "key": b64.encode(key) }).to_string();
        let r = client::request(
            self.port,
            "POST",
            "/v3/kv/range",
            &[],
            Some(body.as_bytes()),
        )
        .expect("etcd range");
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
        let v: Value = serde_json::from_slice(&r.body).expect("json");
        let number = |v: &Value| v.as_str().and_then(|s| s.parse().ok());
        let revision = number(&v["header"]["revision"]).expect("revision");
        let mod_revision = v["kvs"].get(0).and_then(|kv| number(&kv["mod_revision"]));
        (revision, mod_revision)
    }
}

impl Etcd {
    /// Range calls this member has answered (its gRPC metrics).
    #[must_use]
    pub fn ranges(&self) -> f64 {
        let r = client::request(self.port, "GET", "/metrics", &[], None).expect("etcd metrics");
        assert_eq!(r.status, 200);
        let page = String::from_utf8_lossy(&r.body);
        crate::metrics_text::sum(
            &page,
            "grpc_server_handled_total",
            &[("grpc_method", "Range")],
        )
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        self.kill();
    }
}
