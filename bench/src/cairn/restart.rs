//! Restarting the server the bench started, on the same data directory and
//! ports: a clean stop (SIGTERM, as an operator or kubelet stops it), then
//! a new process timed until `/readyz` answers 200.

use std::time::{Duration, Instant};

use http::{Method, StatusCode};

use super::Server;
use super::client::Conn;
use crate::Result;

/// How often readiness is polled while the server reopens.
const POLL: Duration = Duration::from_millis(10);
/// Longest a reopen may take before the measure fails.
const MAX_REOPEN: Duration = Duration::from_secs(600);

/// Sends SIGTERM to `pid` (a process this bench started).
pub fn terminate(pid: u32) -> Result<()> {
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()?;
    if !status.success() {
        return Err(format!("kill -TERM {pid}: {status}").into());
    }
    Ok(())
}

impl Server {
    /// The data directory of a server the bench started.
    pub fn data_dir(&self) -> Option<&std::path::Path> {
        self.data_dir.as_deref()
    }

    /// Stops the server with SIGTERM and waits for it to exit (SIGKILL
    /// after a minute); returns how long it took.
    pub async fn stop(&mut self) -> Result<Duration> {
        let Some(child) = self.child.as_mut() else {
            return Err("the bench did not start this server; it cannot restart it".into());
        };
        let t = Instant::now();
        terminate(child.id())?;
        while child.try_wait()?.is_none() {
            if t.elapsed() > Duration::from_secs(60) {
                child.kill()?;
                child.wait()?;
                return Err("cairn did not stop within 60 s of SIGTERM (killed)".into());
            }
            tokio::time::sleep(POLL).await;
        }
        Ok(t.elapsed())
    }

    /// Starts the server again as it was started (same data, ports and
    /// flags, log appended); returns the time from spawn to `/readyz` 200.
    pub async fn reopen(&mut self) -> Result<Duration> {
        let (Some((bin, args)), Some(log)) = (&self.command, &self.log) else {
            return Err("the bench did not start this server; it cannot restart it".into());
        };
        let log = std::fs::OpenOptions::new().append(true).open(log)?;
        let t = Instant::now();
        let child = super::spawn(bin, args, log)?;
        self.pid = child.id();
        self.child = Some(child);
        loop {
            if let Some(child) = &mut self.child
                && let Some(status) = child.try_wait()?
            {
                return Err(format!("cairn-apiserver exited while reopening: {status}").into());
            }
            if let Ok(mut c) = Conn::connect(self.addr).await
                && let Ok((StatusCode::OK, _)) = c.call(Method::GET, "/readyz", None).await
            {
                return Ok(t.elapsed());
            }
            if t.elapsed() > MAX_REOPEN {
                return Err(format!("cairn not ready within {MAX_REOPEN:?} of reopening").into());
            }
            tokio::time::sleep(POLL).await;
        }
    }
}
