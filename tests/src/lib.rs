//! Test harness: starts the real `cairn-apiserver` binary on a free loopback
//! port with its own data directory, and talks plain HTTP/1.1 to it (the
//! insecure port, `Server::start`) or HTTPS (`Server::start_secure`: the
//! secure port only, as a user runs it).
//!
//! The binary is found next to the test executable's directory
//! (`target/<profile>/cairn-apiserver`, which `cargo test --workspace`, the
//! README's test command, builds in the same profile because the server
//! package has integration tests of its own) or at `$CAIRN_APISERVER_BIN`.

pub mod audit_log;
pub mod authz_gate;
pub mod client;
pub mod clients;
pub mod echo_server;
pub mod etcd;
pub mod http_request;
pub mod k8s_proto;
pub mod kms_plugin;
pub mod linearizability;
pub mod metrics_text;
pub mod otlp_collector;
pub mod proxy;
pub mod selection;
mod settle;
pub mod tls;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub use client::{Response, WatchStream};
pub use clients::{
    kubectl, kubectl_admin, kubectl_as_bearer, kubectl_present, kubectl_with_kubeconfig, python,
    run_python_against, run_python_script,
};
use serde_json::Value;
pub use tls::{Identity, TlsClient};

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
    /// The plain-HTTP port (0 for a secure-only server).
    pub port: u16,
    /// The HTTPS port, for servers from `start_secure`.
    pub secure_port: Option<u16>,
    pub data_dir: PathBuf,
    _dir: Option<tempfile::TempDir>,
    log: PathBuf,
    /// The server's own etcd under `CAIRN_STORAGE=etcd` (data beside
    /// `data_dir`, so a restart on the same data finds its objects).
    pub etcd: Option<etcd::Etcd>,
    /// kubectl's discovery cache for this server process: kubectl keys its
    /// cache by host and port, and test servers reuse ports, so a shared
    /// cache would send kubectl to an earlier server's group versions.
    kubectl_cache: tempfile::TempDir,
}

impl Server {
    /// kubectl's `--cache-dir` for this server process.
    #[must_use]
    pub fn kubectl_cache(&self) -> &Path {
        self.kubectl_cache.path()
    }

    /// A server on a fresh data directory, on the plain-HTTP port only
    /// (every request is system:admin), serving the spec's `svc.io` domain
    /// unless `extra_args` names another.
    #[must_use]
    pub fn start(extra_args: &[&str]) -> Server {
        let dir = tempfile::tempdir().expect("tempdir");
        let data_dir = dir.path().join("data");
        let mut s = Server::start_on(&data_dir, extra_args);
        s._dir = Some(dir);
        s
    }

    /// A plain-HTTP server on a given data directory (e.g. to restart on
    /// the same data).
    #[must_use]
    pub fn start_on(data_dir: &Path, extra_args: &[&str]) -> Server {
        Server::spawn_on_free_port(|| {
            let port = free_port();
            let mut args = vec!["--insecure-port".to_string(), port.to_string()];
            if !extra_args.contains(&"--secure-port") {
                args.extend(["--secure-port".into(), "0".into()]);
            }
            if !extra_args.contains(&"--api-domain") {
                args.extend(["--api-domain".into(), "svc.io".into()]);
            }
            Server::spawn(data_dir, port, None, args, extra_args)
        })
    }

    /// A server on a fresh data directory with its defaults: the HTTPS port
    /// only, authenticating every request (see `admin_client`).
    #[must_use]
    pub fn start_secure(extra_args: &[&str]) -> Server {
        let dir = tempfile::tempdir().expect("tempdir");
        let data_dir = dir.path().join("data");
        let mut s = Server::start_secure_on(&data_dir, extra_args);
        s._dir = Some(dir);
        s
    }

    /// A secure-only server on a given data directory.
    #[must_use]
    pub fn start_secure_on(data_dir: &Path, extra_args: &[&str]) -> Server {
        let given = extra_args
            .iter()
            .position(|a| *a == "--secure-port")
            .and_then(|i| extra_args.get(i + 1))
            .map(|p| p.parse::<u16>().expect("--secure-port value"));
        let attempt = || {
            let port = given.unwrap_or_else(free_port);
            let mut args = vec!["--bind-address".to_string(), "127.0.0.1".into()];
            if given.is_none() {
                args.extend(["--secure-port".into(), port.to_string()]);
            }
            Server::spawn(data_dir, 0, Some(port), args, extra_args)
        };
        if given.is_some() {
            return attempt().unwrap_or_else(|e| panic!("{e}"));
        }
        Server::spawn_on_free_port(attempt)
    }

    /// Another test may take the port `free_port` found between its probe
    /// and the server's bind: the server then cannot listen, and a new port
    /// is tried.
    fn spawn_on_free_port(attempt: impl Fn() -> Result<Server, String>) -> Server {
        let mut tries = 0;
        loop {
            tries += 1;
            match attempt() {
                Ok(server) => return server,
                Err(e) if tries < 5 && e.contains("cannot listen on") => {}
                Err(e) => panic!("{e}"),
            }
        }
    }

    fn spawn(
        data_dir: &Path,
        port: u16,
        secure_port: Option<u16>,
        args: Vec<String>,
        extra_args: &[&str],
    ) -> Result<Server, String> {
        let tag = secure_port.unwrap_or(port);
        let log = data_dir.with_extension(format!("{tag}.log"));
        let log_file = std::fs::File::create(&log).expect("log file");
        let etcd = (etcd::requested() && !extra_args.contains(&"--etcd-servers"))
            .then(|| etcd::Etcd::start_on(&data_dir.with_extension("etcd")));
        let mut args = args;
        if let Some(etcd) = &etcd {
            args.extend(["--etcd-servers".into(), etcd.url()]);
            // One server per etcd: no Lease renewed every few seconds to
            // move the revision under tests that watch it stand still.
            if !extra_args.iter().any(|a| a.starts_with("--leader-elect")) {
                args.push("--leader-elect=false".into());
            }
        }
        let child = Command::new(binary())
            .arg("--data-dir")
            .arg(data_dir)
            .args(args)
            .args(extra_args)
            .stdout(Stdio::null())
            .stderr(log_file)
            .spawn()
            .expect("start cairn-apiserver");
        let mut server = Server {
            child: Some(child),
            port,
            secure_port,
            data_dir: data_dir.to_path_buf(),
            _dir: None,
            log,
            etcd,
            kubectl_cache: tempfile::tempdir().map_err(|e| e.to_string())?,
        };
        server.wait_ready()?;
        server.settle();
        Ok(server)
    }

    fn wait_ready(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if self.secure_port.is_some() {
                // Every hook has run and both ports listen once it says so
                // (readyz itself may need a credential).
                if self.log_text().contains("cairn-apiserver started") {
                    return Ok(());
                }
            } else if self.log_text().contains("serving plain HTTP")
                // Only once this child says it listens is the port its own:
                // another test's server may answer there otherwise.
                && let Ok(r) = client::request(self.port, "GET", "/readyz", &[], None)
                && r.status == 200
            {
                return Ok(());
            }
            if let Some(status) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                return Err(format!(
                    "server exited ({status}) at start-up; log:\n{}",
                    self.log_text()
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(format!(
            "server did not become ready; log:\n{}",
            self.log_text()
        ))
    }

    /// The HTTPS port (panics for a plain-HTTP server).
    #[must_use]
    pub fn https_port(&self) -> u16 {
        self.secure_port.expect("a server from start_secure")
    }

    #[must_use]
    pub fn https_url(&self) -> String {
        format!("https://127.0.0.1:{}", self.https_port())
    }

    /// `<data-dir>/admin.kubeconfig`, which the server writes at first start.
    #[must_use]
    pub fn admin_kubeconfig(&self) -> PathBuf {
        self.data_dir.join("admin.kubeconfig")
    }

    /// The cluster CA the server generated (PEM).
    #[must_use]
    pub fn ca_pem(&self) -> String {
        std::fs::read_to_string(self.data_dir.join("pki/ca.crt")).expect("pki/ca.crt")
    }

    /// A client with the admin kubeconfig's CA and certificate.
    #[must_use]
    pub fn admin_client(&self) -> TlsClient {
        let (ca, identity) = tls::kubeconfig_identity(&self.admin_kubeconfig());
        TlsClient::new(&ca, Some(&identity))
    }

    /// A client trusting the cluster CA, with `identity` if given.
    #[must_use]
    pub fn tls_client(&self, identity: Option<&Identity>) -> TlsClient {
        TlsClient::new(&self.ca_pem(), identity)
    }

    /// Any request over HTTPS as `client`.
    #[must_use]
    pub fn https(
        &self,
        client: &TlsClient,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&[u8]>,
    ) -> Response {
        client
            .request(self.https_port(), method, path, headers, body)
            .unwrap_or_else(|e| panic!("{method} {path} over HTTPS: {e}"))
    }

    /// Binds the ClusterRole `role` to `subject` (e.g. `{"kind": "User",
    /// "name": "alice"}`) cluster-wide, as the admin on the secure port, and
    /// waits until the server's RBAC caches have the binding (a
    /// SubjectAccessReview for `probe` — verb, `resource[.group]` — says
    /// allowed).
    pub fn grant(&self, subject: &Value, role: &str, probe: (&str, &str)) {
        let name = format!(
            "test-{}-{}",
            subject["name"]
                .as_str()
                .unwrap_or("subject")
                .replace(':', "-"),
            role.replace(':', "-")
        );
        let mut subject = subject.clone();
        if subject["kind"] != "ServiceAccount" {
            subject["apiGroup"] = "rbac.authorization.k8s.io".into();
        }
        let binding = serde_json::json!({
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
            "subjects": [subject.clone()],
        });
        let admin = self.admin_client();
        let json = [("Content-Type", "application/json")];
        let body = serde_json::to_vec(&binding).expect("json");
        let path = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings";
        let r = self.https(&admin, "POST", path, &json, Some(&body));
        assert_eq!(r.status, 201, "binding {name}: {}", r.text());
        let user = match subject["kind"].as_str() {
            Some("ServiceAccount") => serde_json::json!({"user": format!(
                "system:serviceaccount:{}:{}",
                subject["namespace"].as_str().unwrap_or_default(),
                subject["name"].as_str().unwrap_or_default()
            )}),
            Some("Group") => serde_json::json!({"groups": [subject["name"].clone()]}),
            _ => serde_json::json!({"user": subject["name"].clone()}),
        };
        let mut spec = user;
        let (resource, group) = probe.1.split_once('.').unwrap_or((probe.1, ""));
        spec["resourceAttributes"] =
            serde_json::json!({"verb": probe.0, "group": group, "resource": resource});
        let review = serde_json::to_vec(&serde_json::json!({
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SubjectAccessReview",
            "spec": spec,
        }))
        .expect("json");
        let reviews = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
        wait_until(&format!("RBAC to see {name}"), || {
            let r = self.https(&admin, "POST", reviews, &json, Some(&review));
            r.status == 201 && r.json()["status"]["allowed"] == true
        });
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
                if let Some(etcd) = self.etcd.as_mut() {
                    etcd.kill();
                }
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

/// The `metadata.name` of every item of a list, in order.
#[must_use]
pub fn item_names(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["metadata"]["name"].as_str().expect("name").to_string())
        .collect()
}

/// Starts the binary with `text` written to a file passed as `flag` (and
/// `extra` flags); asserts it exits non-zero with exactly one line on
/// stderr and writes nothing to its data directory; returns that line.
#[must_use]
pub fn start_refused(flag: &str, text: &str, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.yaml");
    std::fs::write(&path, text).expect("write");
    let path = path.to_string_lossy().into_owned();
    let mut args = vec![flag, path.as_str()];
    args.extend_from_slice(extra);
    start_refused_with(&args)
}

/// Starts the binary with `args`; asserts it exits non-zero with exactly
/// one line on stderr and writes nothing to its data directory; returns
/// that line.
#[must_use]
pub fn start_refused_with(args: &[&str]) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = Command::new(binary())
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .args(["--secure-port", "0", "--insecure-port", "0"])
        .args(args)
        .output()
        .expect("run cairn-apiserver");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(!out.status.success(), "started with {args:?}");
    assert_eq!(lines.len(), 1, "one line, got: {stderr}");
    assert!(!dir.path().join("data").exists(), "nothing written");
    lines[0].to_owned()
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
