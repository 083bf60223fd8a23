//! `cairn-store migrate`: a data directory a server wrote (namespaced
//! objects, a Secret, an Event with its TTL, a CRD and its custom
//! resources) copied into a real etcd, served unchanged by a server on
//! that etcd (new resourceVersions, the CRD established), then copied back
//! into a new data directory and served unchanged again. A non-empty
//! target, a locked directory and a missing `--etcd-servers` are refused.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cairn_tests::etcd::Etcd;
use cairn_tests::{Server, event, wait_until};
use serde_json::{Value, json};

const CRDS: &str = "/apis/apiextensions.svc.io/v1/customresourcedefinitions";
const GADGETS: &str = "/apis/example.com/v1/namespaces/mig/gadgets";
const COLLECTIONS: [&str; 4] = [
    "/api/v1/namespaces/mig/configmaps",
    "/api/v1/namespaces/mig/secrets",
    "/api/v1/namespaces/mig/events",
    GADGETS,
];

fn store(args: &[&str]) -> Output {
    let bin = cairn_tests::binary().with_file_name("cairn-store");
    Command::new(bin)
        .args(args)
        .output()
        .expect("run cairn-store")
}

fn migrate(direction: &str, data: &Path, etcd: &Etcd) -> Output {
    store(&[
        "migrate",
        direction,
        "--data-dir",
        data.to_str().expect("utf8"),
        "--etcd-servers",
        &etcd.url(),
    ])
}

fn gadget_crd() -> Value {
    json!({
        "apiVersion": "apiextensions.svc.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {"size": {"type": "integer"}}}
                }}}
            }]
        }
    })
}

/// Every object of the test's collections by path, without its
/// resourceVersion (which a migration rewrites).
fn objects(s: &Server) -> BTreeMap<String, Value> {
    let mut all = BTreeMap::new();
    for collection in COLLECTIONS {
        let list = s.get(collection);
        assert_eq!(list.status, 200, "{collection}: {}", list.text());
        for mut item in list.json()["items"].as_array().expect("items").clone() {
            let rv = item["metadata"]["resourceVersion"].take();
            assert!(
                rv.as_str().is_some_and(|v| v.parse::<u64>().is_ok()),
                "{item}"
            );
            let name = item["metadata"]["name"].as_str().expect("name").to_string();
            all.insert(format!("{collection}/{name}"), item);
        }
    }
    all
}

fn crd_established(s: &Server) -> bool {
    let crd = s.get(&format!("{CRDS}/gadgets.example.com")).json();
    crd["status"]["conditions"].as_array().is_some_and(|cs| {
        cs.iter()
            .any(|c| c["type"] == "Established" && c["status"] == "True")
    })
}

fn fill(s: &Server) {
    let created = |path: &str, body: Value| {
        let r = s.post(path, &body);
        assert_eq!(r.status, 201, "{path}: {}", r.text());
    };
    created("/api/v1/namespaces", json!({"metadata": {"name": "mig"}}));
    s.settle_namespace("mig");
    created(CRDS, gadget_crd());
    wait_until("the CRD to be established", || crd_established(s));
    for i in 0..30 {
        created(
            "/api/v1/namespaces/mig/configmaps",
            json!({"metadata": {"name": format!("cm-{i}"), "labels": {"i": i.to_string()}}, "data": {"v": "x".repeat(i * 10)}}),
        );
    }
    created(
        "/api/v1/namespaces/mig/secrets",
        json!({"metadata": {"name": "s"}, "data": {"k": "c2VjcmV0"}}),
    );
    created("/api/v1/namespaces/mig/events", event("ev", "Migrated"));
    for i in 0..5 {
        created(
            GADGETS,
            json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": format!("g-{i}")}, "spec": {"size": i}}),
        );
    }
}

fn assert_success(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn one_line_failure(out: &Output, code: i32) -> String {
    assert_eq!(out.status.code(), Some(code), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    stderr
}

#[test]
fn a_data_directory_moves_into_etcd_and_back_with_every_object_unchanged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data: PathBuf = dir.path().join("data");
    let mut s = Server::start_on(&data, &[]);
    fill(&s);
    let before = objects(&s);
    // 30 ConfigMaps and kube-root-ca.crt, a Secret, an Event, 5 gadgets.
    assert_eq!(before.len(), 30 + 1 + 1 + 1 + 5);

    // While the server holds the directory: refused, naming the lock.
    let etcd = Etcd::start();
    let locked = one_line_failure(&migrate("to-etcd", &data, &etcd), 1);
    assert!(
        locked.contains("cannot migrate") && locked.contains("LOCK"),
        "{locked}"
    );
    s.stop();

    let stdout = assert_success(&migrate("to-etcd", &data, &etcd));
    assert!(stdout.contains("every one identical"), "{stdout}");

    // A second copy into the same etcd would mix two clusters.
    let again = one_line_failure(&migrate("to-etcd", &data, &etcd), 1);
    assert!(again.contains("already holds"), "{again}");

    let mut on_etcd = Server::start_on(&data, &["--etcd-servers", &etcd.url()]);
    wait_until("the CRD to be served", || {
        on_etcd.get(GADGETS).status == 200
    });
    assert!(crd_established(&on_etcd));
    assert_eq!(objects(&on_etcd), before);
    // The etcd revisions are the new resourceVersions, one per object.
    let list = on_etcd.get("/api/v1/namespaces/mig/configmaps").json();
    let mut versions: Vec<&str> = list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|o| o["metadata"]["resourceVersion"].as_str().expect("rv"))
        .collect();
    versions.dedup();
    assert_eq!(versions.len(), 31);
    on_etcd.stop();

    let back_dir = tempfile::tempdir().expect("tempdir");
    let back = back_dir.path().join("data");
    let stdout = assert_success(&migrate("from-etcd", &back, &etcd));
    assert!(stdout.contains("etcd → data directory"), "{stdout}");
    // The new directory has a new cluster CA: the published root CA
    // stays the migrated one only when given.
    let root_ca = data.join("pki/ca.crt").display().to_string();
    let s = Server::start_on(&back, &["--root-ca-file", &root_ca]);
    wait_until("the CRD to be served", || s.get(GADGETS).status == 200);
    assert_eq!(objects(&s), before);
}

#[test]
fn migrate_needs_etcd_servers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = store(&[
        "migrate",
        "to-etcd",
        "--data-dir",
        dir.path().to_str().expect("utf8"),
    ]);
    let line = one_line_failure(&out, 2);
    assert!(line.contains("--etcd-servers"), "{line}");
}
