//! `cairn-store` on data directories the running server wrote: objects are
//! decoded as Kubernetes objects with their resourceVersions, `verify` is
//! clean, `compact` refuses while the server holds the lock, and a snapshot
//! restored into a new directory serves the same objects from a new server.

use std::path::PathBuf;
use std::process::{Command, Output};

use cairn_tests::{Server, event};
use serde_json::{Value, json};

fn store_bin() -> PathBuf {
    let bin = cairn_tests::binary().with_file_name("cairn-store");
    assert!(
        bin.exists(),
        "{} is missing: the README test command builds it",
        bin.display()
    );
    bin
}

fn store(args: &[&str]) -> Output {
    Command::new(store_bin())
        .args(args)
        .output()
        .expect("run cairn-store")
}

#[test]
fn the_store_tool_reads_what_the_server_wrote() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let data_s = data.to_str().expect("utf8").to_string();
    let mut s = Server::start_on(&data, &[]);
    assert_eq!(
        s.post(
            "/api/v1/namespaces",
            &json!({"metadata": {"name": "team-3"}})
        )
        .status,
        201
    );
    let ev = s
        .post(
            "/api/v1/namespaces/team-3/events",
            &event("tool-ev", "Tooling"),
        )
        .json();

    // While the server runs: reads work, writes are refused naming the lock holder.
    let refused = store(&["compact", "--rev", "2", "--data-dir", &data_s]);
    assert_eq!(refused.status.code(), Some(1));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("pid") && err.lines().count() == 1, "{err}");
    let snap = dir.path().join("snap.cairn");
    let saved = store(&[
        "snapshot",
        "save",
        snap.to_str().expect("utf8"),
        "--data-dir",
        &data_s,
    ]);
    assert!(
        saved.status.success(),
        "{}",
        String::from_utf8_lossy(&saved.stderr)
    );

    assert_eq!(s.stop(), Some(0));
    let verify = store(&["verify", "--data-dir", &data_s]);
    assert_eq!(
        verify.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
    let ls = store(&[
        "ls",
        "/registry/events/",
        "--data-dir",
        &data_s,
        "-o",
        "json",
    ]);
    assert!(ls.status.success());
    let listed: Value = serde_json::from_slice(&ls.stdout).expect("json");
    let item = &listed["items"][0];
    assert_eq!(item["key"], "/registry/events/team-3/tool-ev");
    assert_eq!(
        item["object"],
        json!({"apiVersion": "v1", "kind": "Event", "name": "tool-ev", "namespace": "team-3", "resourceVersion": ev["metadata"]["resourceVersion"]})
    );

    // Restore into a new directory; a server on it serves the same object.
    let restored = dir.path().join("restored");
    let r = store(&[
        "snapshot",
        "restore",
        snap.to_str().expect("utf8"),
        "--data-dir",
        restored.to_str().expect("utf8"),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let s2 = Server::start_on(&restored, &[]);
    let got = s2.get("/api/v1/namespaces/team-3/events/tool-ev");
    assert_eq!(got.status, 200);
    assert_eq!(got.json(), ev);
    assert_eq!(
        s2.post(
            "/api/v1/namespaces/team-3/events",
            &event("after-restore", "r")
        )
        .status,
        201
    );
}
