//! Compaction gives disk space back under a live server: once a full log
//! segment's history is compacted away, its file is deleted — also while
//! controllers' informers, shared watch hubs and long-running watches
//! hold objects that were first read from it (they must not keep the old
//! segment's mapping, and so its file, alive). The one-hour soak found the
//! data directory growing by a segment per hour when they did.

use std::path::Path;
use std::time::Duration;

use cairn_tests::{Server, wait_until};
use serde_json::json;

const CONFIG_MAPS: &str = "/api/v1/namespaces/default/configmaps";

/// Segment files in the data directory, oldest first.
fn segments(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("data directory")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".seg"))
        .collect();
    names.sort();
    names
}

/// Creates and deletes ConfigMaps of 64 KiB until the log has rolled to a
/// segment after `past` (the live set stays tiny).
fn churn_until_rolled_past(server: &Server, data_dir: &Path, past: &str) {
    let payload = "x".repeat(64 << 10);
    for i in 0.. {
        let name = format!("churn-{}", i % 8);
        let cm = json!({"metadata": {"name": name}, "data": {"p": payload}});
        let r = server.post(CONFIG_MAPS, &cm);
        assert_eq!(r.status, 201, "{}", r.text());
        let r = server.delete(&format!("{CONFIG_MAPS}/{name}"));
        assert_eq!(r.status, 200, "{}", r.text());
        if i % 64 == 0 && segments(data_dir).last().is_some_and(|s| s.as_str() > past) {
            return;
        }
    }
}

#[test]
fn compacted_segments_are_deleted_while_watches_and_informers_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data_dir = dir.path().join("data");
    let server = Server::start_on(&data_dir, &["--compaction-interval", "1s"]);
    // Watches that read objects from the first segment (their initial
    // events), and a filtered one on the shared hub that sees every change
    // of the churn. None is sent the churn, so none has a backlog to keep.
    let _system = server.watch("/api/v1/namespaces/kube-system/configmaps?watch=1");
    let _filtered = server.watch(&format!("{CONFIG_MAPS}?watch=1&labelSelector=a%3Db"));
    let _namespaces = server.watch("/api/v1/namespaces?watch=1");
    let _one_namespace =
        server.watch("/api/v1/namespaces?watch=1&fieldSelector=metadata.name%3Ddefault");

    let first = segments(&data_dir);
    assert_eq!(first, ["0000000000000001.seg"], "a new data directory");
    churn_until_rolled_past(&server, &data_dir, "0000000000000001.seg");
    wait_until("the first segment is compacted and deleted", || {
        std::thread::sleep(Duration::from_millis(200));
        !segments(&data_dir).contains(&"0000000000000001.seg".to_string())
    });

    // The live objects moved to a small segment; the next round must free
    // that one too, and the one the churn filled.
    let second_round: Vec<String> = segments(&data_dir);
    let newest = second_round.last().expect("segments").clone();
    churn_until_rolled_past(&server, &data_dir, &newest);
    wait_until("the segments of the second round are deleted", || {
        std::thread::sleep(Duration::from_millis(200));
        let now = segments(&data_dir);
        second_round.iter().all(|s| !now.contains(s))
    });
    let log = server.log_text();
    assert!(
        log.contains("reclaimed compacted space"),
        "compaction reclaimed: {log}"
    );
}
