//! Disk full and slow disk: the data directory on a small tmpfs the test
//! mounts runs out of space — writes are refused with a 500 InternalError
//! Status naming the cause while reads and watches go on, and once space
//! returns writes succeed again without a restart, the refused ones never
//! appear, and `cairn-store verify` is clean. A stalled fsync (the engine's
//! `commit:before-sync:stall-while=PATH` failpoint) holds a write's answer
//! and its visibility until the sync ends, and loses nothing.

mod full;
mod mount;
mod stall;

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

/// A ConfigMap of `bytes` bytes of data.
pub fn config_map(name: &str, bytes: usize) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name},
        "data": {"payload": "x".repeat(bytes)},
    })
}

pub const CONFIG_MAPS: &str = "/api/v1/namespaces/default/configmaps";

/// `cairn-store verify` on a stopped server's directory: its output when it
/// finds anything.
pub fn verify(data_dir: &Path) -> Result<(), String> {
    let bin = cairn_tests::binary().with_file_name("cairn-store");
    assert!(
        bin.exists(),
        "{} is missing: `cargo build -p cairn-store`",
        bin.display()
    );
    let out = Command::new(bin)
        .arg("verify")
        .arg("--data-dir")
        .arg(data_dir)
        .env_remove("CAIRN_FAILPOINT")
        .output()
        .expect("run cairn-store");
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}
