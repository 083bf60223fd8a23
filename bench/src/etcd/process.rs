//! An etcd the bench starts itself (the reopen measure restarts it): Debian's
//! etcd-server on free loopback ports with a data directory of its own, fsync
//! on, as bench/etcd.sh starts one; stopped and its data removed on drop.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use http::{Method, StatusCode};
use memchr::memmem;

use crate::Result;
use crate::cairn::client::Conn;
use crate::cairn::restart::terminate;

const POLL: Duration = Duration::from_millis(10);
const MAX_START: Duration = Duration::from_secs(600);

pub struct EtcdProcess {
    bin: PathBuf,
    dir: PathBuf,
    pub client: SocketAddr,
    peer: SocketAddr,
    child: Option<Child>,
}

fn free_addr() -> Result<SocketAddr> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?)
}

impl EtcdProcess {
    /// Starts `bin` with a fresh data directory under `work_dir` and waits until healthy.
    pub async fn start(bin: &Path, work_dir: &Path) -> Result<Self> {
        if !bin.exists() {
            return Err(format!(
                "no etcd at {}: apt-get update && apt-get install -y etcd-server",
                bin.display()
            )
            .into());
        }
        let (client, peer) = (free_addr()?, free_addr()?);
        let dir = work_dir.join(format!("etcd-reopen-{}", client.port()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        let mut etcd = Self {
            bin: bin.to_path_buf(),
            dir,
            client,
            peer,
            child: None,
        };
        etcd.spawn_until_healthy().await?;
        Ok(etcd)
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.client)
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// Spawns etcd on the data directory; returns the time until `/health` says true.
    async fn spawn_until_healthy(&mut self) -> Result<Duration> {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join("etcd.log"))?;
        let (client, peer) = (
            format!("http://{}", self.client),
            format!("http://{}", self.peer),
        );
        let t = Instant::now();
        let child = Command::new(&self.bin)
            .arg("--name")
            .arg("cairn-bench")
            .arg("--data-dir")
            .arg(self.data_dir())
            .args([
                "--listen-client-urls",
                &client,
                "--advertise-client-urls",
                &client,
            ])
            .args([
                "--listen-peer-urls",
                &peer,
                "--initial-advertise-peer-urls",
                &peer,
            ])
            .args(["--initial-cluster", &format!("cairn-bench={peer}")])
            // Ignored once the data directory holds a member (a restart).
            .args(["--initial-cluster-state", "new"])
            .args(["--logger", "zap", "--log-level", "warn"])
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .map_err(|e| format!("start {}: {e}", self.bin.display()))?;
        self.child = Some(child);
        loop {
            if let Some(child) = &mut self.child
                && let Some(status) = child.try_wait()?
            {
                return Err(format!(
                    "etcd exited at start-up ({status}); log: {}",
                    self.dir.join("etcd.log").display()
                )
                .into());
            }
            if let Ok(mut c) = Conn::connect(self.client).await
                && let Ok((StatusCode::OK, body)) = c.call(Method::GET, "/health", None).await
                && memmem::find(&body, br#""health":"true""#).is_some()
            {
                return Ok(t.elapsed());
            }
            if t.elapsed() > MAX_START {
                return Err(format!("etcd not healthy within {MAX_START:?}").into());
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Stops etcd with SIGTERM and waits for it to exit.
    pub async fn stop(&mut self) -> Result<Duration> {
        let Some(child) = self.child.as_mut() else {
            return Ok(Duration::ZERO);
        };
        let t = Instant::now();
        terminate(child.id())?;
        while child.try_wait()?.is_none() {
            if t.elapsed() > Duration::from_secs(60) {
                child.kill()?;
                child.wait()?;
                return Err("etcd did not stop within 60 s of SIGTERM (killed)".into());
            }
            tokio::time::sleep(POLL).await;
        }
        self.child = None;
        Ok(t.elapsed())
    }

    /// Starts etcd again on its data; returns the time until healthy.
    pub async fn reopen(&mut self) -> Result<Duration> {
        self.spawn_until_healthy().await
    }
}

impl Drop for EtcdProcess {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
