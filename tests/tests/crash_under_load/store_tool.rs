//! `cairn-store` on the campaign's data directory: a snapshot cut by the
//! `snapshot:before-rename` failpoint leaves no snapshot file behind, a
//! whole one is written afterwards, and `verify` is clean after every crash.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn store_bin() -> PathBuf {
    let bin = cairn_tests::binary().with_file_name("cairn-store");
    assert!(
        bin.exists(),
        "{} is missing: `cargo build -p cairn-store` (the README test command builds it)",
        bin.display()
    );
    bin
}

fn store(args: &[&str], failpoint: Option<&str>, data_dir: &Path) -> Output {
    let mut command = Command::new(store_bin());
    command
        .args(args)
        .arg("--data-dir")
        .arg(data_dir)
        .env_remove("CAIRN_FAILPOINT");
    if let Some(point) = failpoint {
        command.env("CAIRN_FAILPOINT", point);
    }
    command.output().expect("run cairn-store")
}

/// A snapshot aborted just before its rename (while the server runs):
/// the anomaly, if it reports success or leaves the named file.
pub fn cut_snapshot(data_dir: &Path, file: &Path) -> Option<String> {
    let path = file.to_str().expect("utf8 path");
    let out = store(
        &["snapshot", "save", path],
        Some("snapshot:before-rename"),
        data_dir,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.success() || !stderr.contains("failpoint snapshot:before-rename") {
        return Some(format!("snapshot with the failpoint armed: {stderr}"));
    }
    file.exists()
        .then(|| format!("an aborted snapshot left {}", file.display()))
}

/// A whole snapshot: the anomaly, if it fails.
pub fn snapshot(data_dir: &Path, file: &Path) -> Option<String> {
    let path = file.to_str().expect("utf8 path");
    let out = store(&["snapshot", "save", path], None, data_dir);
    (!out.status.success() || !file.exists()).then(|| {
        format!(
            "snapshot after aborted ones: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// `cairn-store verify` on the stopped server's directory: the anomaly,
/// if it finds anything.
pub fn verify(data_dir: &Path) -> Option<String> {
    let out = store(&["verify"], None, data_dir);
    (!out.status.success()).then(|| {
        format!(
            "cairn-store verify after the crashes: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}
