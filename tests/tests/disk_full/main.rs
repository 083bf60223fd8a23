//! Disk full and slow disk: the data directory on a small tmpfs the test
//! mounts runs out of space — writes are refused with a 500 InternalError
//! Status naming the cause while reads and watches go on, and once space
//! returns writes succeed again without a restart, the refused ones never
//! appear, and `cairn-store verify` is clean — also when the disk fills just
//! as the log must start its next segment (`roll`). A stalled fsync (the engine's
//! `commit:before-sync:stall-while=PATH` failpoint) holds a write's answer
//! and its visibility until the sync ends, and loses nothing.

mod full;
mod mount;
mod roll;
mod stall;

use std::path::Path;
use std::process::Command;

use cairn_tests::Server;
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

/// The names of the ConfigMaps in `default`, but the root CA one.
pub fn names_of_list(server: &Server) -> Vec<String> {
    let list = server.get(CONFIG_MAPS);
    assert_eq!(list.status, 200, "list while full: {}", list.text());
    list.json()["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["metadata"]["name"].as_str().expect("name").to_string())
        .filter(|n| n != "kube-root-ca.crt")
        .collect()
}

/// Asserts `refused` is a 500 InternalError Status that names the cause.
pub fn assert_refused_for_space(status: u16, body: &Value) {
    assert_eq!(status, 500, "a write on a full disk: {body}");
    assert_eq!(body["kind"], "Status", "{body}");
    assert_eq!(body["reason"], "InternalError", "{body}");
    let message = body["message"].as_str().unwrap_or_default().to_lowercase();
    assert!(
        message.contains("no space left on device"),
        "the message names the cause: {body}"
    );
}

/// After space returned: the refused writes are absent and the log says
/// the writer went on; then a restart finds exactly `want` and the files
/// verify.
pub fn assert_refused_absent_and_kept_after_restart(
    mut server: Server,
    data_dir: &Path,
    refused: &[&str],
    want: &mut Vec<String>,
) {
    for name in refused {
        let r = server.get(&format!("{CONFIG_MAPS}/{name}"));
        assert_eq!(r.status, 404, "a refused write is absent: {}", r.text());
    }
    let log = server.log_text();
    assert!(
        log.contains("could not be written and was refused")
            && !log.contains("refuses further writes"),
        "the writer refused the batch and went on: {log}"
    );
    assert_eq!(server.stop(), Some(0));
    drop(server);
    verify(data_dir).unwrap_or_else(|e| panic!("verify after the disk was full: {e}"));
    let server = Server::start_on(data_dir, &[]);
    let mut listed = names_of_list(&server);
    listed.sort();
    want.sort();
    assert_eq!(*want, listed, "after a restart");
}
