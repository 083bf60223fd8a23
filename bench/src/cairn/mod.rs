//! The cairn side: a server process the bench starts (or one already running)
//! and the requests each benchmark shape sends it.

pub mod chunked;
pub mod client;
pub mod lean;
pub mod ops;
pub mod watch;

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use http::{Method, StatusCode};

use crate::Result;
use client::Conn;

/// A cairn-apiserver on loopback: its address and pid (for RSS).
pub struct Server {
    pub addr: SocketAddr,
    pub pid: u32,
    child: Option<Child>,
    data_dir: Option<PathBuf>,
    log: Option<PathBuf>,
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
    /// Starts `bin` on a free loopback port with a fresh data directory under `work_dir`.
    pub async fn start(bin: &Path, work_dir: &Path) -> Result<Self> {
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let data_dir = work_dir.join(format!("cairn-data-{port}"));
        let _ = std::fs::remove_dir_all(&data_dir);
        std::fs::create_dir_all(work_dir)?;
        let log_path = work_dir.join(format!("cairn-{port}.log"));
        let log = std::fs::File::create(&log_path)?;
        let child = Command::new(bin)
            .arg("--data-dir")
            .arg(&data_dir)
            .args(["--insecure-port", &port.to_string(), "--secure-port", "0"])
            .args(["--api-domain", "svc.io"])
            // Only adds an encoding, which the encodings phase lists.
            .args(["--feature-gates", "CBORServingAndStorage=true"])
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .map_err(|e| format!("start {}: {e}", bin.display()))?;
        let mut server = Self {
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            pid: child.id(),
            child: Some(child),
            data_dir: Some(data_dir),
            log: Some(log_path.clone()),
        };
        if let Err(e) = server.wait_ready().await {
            server.log = None; // kept for the reader
            return Err(format!("{e} (log: {})", log_path.display()).into());
        }
        Ok(server)
    }

    /// A server someone else started (it should hold no Events yet).
    pub async fn external(url: &str, pid: u32) -> Result<Self> {
        let mut server = Self {
            addr: loopback_addr(url)?,
            pid,
            child: None,
            data_dir: None,
            log: None,
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
    }
}
