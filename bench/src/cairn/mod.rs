//! The cairn side: a server process the bench starts (or one already running)
//! and the requests each benchmark shape sends it.

pub mod chunked;
pub mod client;
pub mod endpoint;
pub mod lean;
pub mod ops;
pub mod restart;
pub mod secure;
pub mod shaped;
pub mod watch;

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use http::{Method, StatusCode};

use crate::Result;
use client::Conn;
pub use endpoint::Endpoint;
use secure::Credentials;

/// A cairn-apiserver on loopback: its plain-HTTP address and pid (for RSS),
/// and its HTTPS port when the bench started it.
pub struct Server {
    pub addr: SocketAddr,
    pub pid: u32,
    pub secure: Option<Secure>,
    child: Option<Child>,
    /// How the child was started (for a restart on the same data).
    command: Option<(PathBuf, Vec<std::ffi::OsString>)>,
    data_dir: Option<PathBuf>,
    log: Option<PathBuf>,
    token_file: Option<PathBuf>,
}

/// The HTTPS port and what the bench may present there.
pub struct Secure {
    pub addr: SocketAddr,
    pub credentials: Credentials,
    /// The static token of `--token-auth-file`; `None` when the binary has
    /// no such flag (yet).
    pub static_token: Option<String>,
    /// The static token of a user outside system:masters (RBAC decides).
    pub rbac_token: Option<String>,
}

impl Secure {
    /// TLS presenting the admin client certificate.
    pub fn client_cert(&self) -> Endpoint {
        Endpoint::tls(self.addr, self.credentials.client_cert.clone())
    }

    /// TLS without a client certificate, sending `token`.
    pub fn bearer(&self, token: &str) -> Endpoint {
        Endpoint::tls(self.addr, self.credentials.no_cert.clone()).with_bearer(token)
    }
}

fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Starts `bin` with `args`, its output to `log`.
fn spawn(bin: &Path, args: &[std::ffi::OsString], log: std::fs::File) -> Result<Child> {
    Command::new(bin)
        .args(args)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log)
        .spawn()
        .map_err(|e| format!("start {}: {e}", bin.display()).into())
}

/// Whether `bin --help` lists `flag`.
fn has_flag(bin: &Path, flag: &str) -> bool {
    Command::new(bin)
        .arg("--help")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(flag))
}

/// A connection to cairn with Nagle off: every request and watch is latency-bound.
pub async fn dial(addr: SocketAddr) -> Result<tokio::net::TcpStream> {
    let tcp = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connect to cairn at {addr}: {e}"))?;
    tcp.set_nodelay(true)?;
    Ok(tcp)
}

/// `http://127.0.0.1:PORT` (or a bare `host:port`) as a loopback socket address.
pub fn loopback_addr(url: &str) -> Result<SocketAddr> {
    let hostport = url.trim_start_matches("http://").trim_end_matches('/');
    let addr: SocketAddr = hostport
        .parse()
        .map_err(|e| format!("{url}: expected http://127.0.0.1:PORT ({e})"))?;
    if !addr.ip().is_loopback() {
        return Err(format!("{url}: cairn-bench only talks to loopback addresses").into());
    }
    Ok(addr)
}

impl Server {
    /// Starts `bin` with a fresh data directory under `work_dir`, on two
    /// free loopback ports: plain HTTP (acting as system:admin) and HTTPS
    /// (with a static token file when the binary takes `--token-auth-file`).
    pub async fn start(bin: &Path, work_dir: &Path) -> Result<Self> {
        Self::start_with(bin, work_dir, &[]).await
    }

    /// [`Server::start`] with `extra` flags (e.g. an encryption configuration).
    pub async fn start_with(bin: &Path, work_dir: &Path, extra: &[String]) -> Result<Self> {
        let port = free_port()?;
        let secure_port = free_port()?;
        let data_dir = work_dir.join(format!("cairn-data-{port}"));
        let _ = std::fs::remove_dir_all(&data_dir);
        std::fs::create_dir_all(work_dir)?;
        let log_path = work_dir.join(format!("cairn-{port}.log"));
        let log = std::fs::File::create(&log_path)?;
        let mut args: Vec<std::ffi::OsString> = vec!["--data-dir".into(), data_dir.clone().into()];
        for a in [
            "--bind-address",
            "127.0.0.1",
            "--insecure-port",
            &port.to_string(),
            "--secure-port",
            &secure_port.to_string(),
        ] {
            args.push(a.into());
        }
        let (mut token_file, mut static_token, mut rbac_token) = (None, None, None);
        if has_flag(bin, "--token-auth-file") {
            let (token, rbac) = (secure::random_token(), secure::random_token());
            let path = work_dir.join(format!("cairn-tokens-{port}.csv"));
            let lines = secure::token_file_line(&token) + &secure::rbac_token_file_line(&rbac);
            std::fs::write(&path, lines)?;
            args.push("--token-auth-file".into());
            args.push(path.clone().into());
            (token_file, static_token, rbac_token) = (Some(path), Some(token), Some(rbac));
        }
        // Only adds an encoding, which the encodings phase lists.
        for a in [
            "--api-domain",
            "svc.io",
            "--feature-gates",
            "CBORServingAndStorage=true",
        ] {
            args.push(a.into());
        }
        args.extend(extra.iter().map(Into::into));
        let child = spawn(bin, &args, log)?;
        let mut server = Self {
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            pid: child.id(),
            secure: None,
            child: Some(child),
            command: Some((bin.to_path_buf(), args)),
            data_dir: Some(data_dir.clone()),
            log: Some(log_path.clone()),
            token_file,
        };
        if let Err(e) = server.wait_ready().await {
            server.log = None; // kept for the reader
            return Err(format!("{e} (log: {})", log_path.display()).into());
        }
        let credentials = Credentials::from_kubeconfig(&data_dir.join("admin.kubeconfig"))?;
        server.secure = Some(Secure {
            addr: SocketAddr::from(([127, 0, 0, 1], secure_port)),
            credentials,
            static_token,
            rbac_token,
        });
        Ok(server)
    }

    /// A server someone else started (it should hold no Events yet).
    pub async fn external(url: &str, pid: u32) -> Result<Self> {
        let mut server = Self {
            addr: loopback_addr(url)?,
            pid,
            secure: None,
            child: None,
            command: None,
            data_dir: None,
            log: None,
            token_file: None,
        };
        server.wait_ready().await?;
        Ok(server)
    }

    async fn wait_ready(&mut self) -> Result<()> {
        for _ in 0..300 {
            if let Some(child) = &mut self.child
                && let Some(status) = child.try_wait()?
            {
                return Err(format!("cairn-apiserver exited at start-up: {status}").into());
            }
            if let Ok(mut c) = Conn::connect(self.addr).await
                && let Ok((StatusCode::OK, _)) = c.call(Method::GET, "/readyz", None).await
            {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Err(format!("cairn at {} not ready within 15 s", self.addr).into())
    }
}

impl Drop for Server {
    /// Stops a server the bench started and removes its data; its log stays
    /// only if it had exited on its own.
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            match child.try_wait() {
                Ok(Some(status)) => {
                    if let Some(log) = self.log.take() {
                        eprintln!("cairn-apiserver exited ({status}); log: {}", log.display());
                    }
                }
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                }
            }
        }
        if let Some(log) = self.log.take() {
            let _ = std::fs::remove_file(log);
        }
        if let Some(dir) = self.data_dir.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
        if let Some(file) = self.token_file.take() {
            let _ = std::fs::remove_file(file);
        }
    }
}
