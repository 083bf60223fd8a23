//! The server process of the crash campaign: started on a kept data
//! directory (optionally with an engine failpoint armed), killed with
//! SIGKILL, and reaped, so each round's files are exactly what a crash leaves.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cairn_tests::{binary, client, free_port};

/// One run of `cairn-apiserver` on the campaign's data directory.
pub struct Process {
    child: Child,
    pub port: u16,
    pub data_dir: PathBuf,
    log: PathBuf,
}

impl Process {
    /// Starts the binary on `data_dir` with `args`, `failpoint` put in
    /// `CAIRN_FAILPOINT`, and waits until `/readyz` answers 200.
    pub fn start(data_dir: &Path, args: &[&str], failpoint: Option<&str>, run: usize) -> Process {
        let port = free_port();
        let log = data_dir.with_extension(format!("run{run}.log"));
        let log_file = std::fs::File::create(&log).expect("log file");
        let mut command = Command::new(binary());
        command
            .arg("--data-dir")
            .arg(data_dir)
            .args(["--insecure-port", &port.to_string(), "--secure-port", "0"])
            .args(args)
            .env_remove("CAIRN_FAILPOINT")
            .stdout(Stdio::null())
            .stderr(log_file);
        if let Some(point) = failpoint {
            command.env("CAIRN_FAILPOINT", point);
        }
        let mut child = command.spawn().expect("start cairn-apiserver");
        // Start-up after a crash replays the log: generous, and only a bound
        // on a hung start, not a timing assertion.
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            // The port is this child's only once it says it listens.
            if std::fs::read_to_string(&log).is_ok_and(|l| l.contains("serving plain HTTP"))
                && let Ok(r) = client::request(port, "GET", "/readyz", &[], None)
                && r.status == 200
            {
                return Process {
                    child,
                    port,
                    data_dir: data_dir.to_path_buf(),
                    log,
                };
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!(
                    "run {run}: server exited ({status}) at start-up; log:\n{}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                );
            }
            assert!(
                Instant::now() < deadline,
                "run {run}: server not ready; log:\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process already ended (a failpoint aborted it).
    pub fn exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// SIGKILL (if still running) and reap; returns the log.
    pub fn kill(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// Sends SIGKILL to `pid` from another thread than the one owning the
/// process (the owner reaps it afterwards, so the pid stays ours until then).
pub fn kill_9(pid: u32) {
    let _ = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .stderr(Stdio::null())
        .status();
}
