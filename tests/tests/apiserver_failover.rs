//! An API server killed (kill -9) while clients write through every server
//! of a cluster on one etcd: every acknowledged write is there afterwards,
//! and an informer (the official Python client, list then watch, behind a
//! balancer) whose server died reconnects to another one, resumes from the
//! last resourceVersion it saw, and converges to exactly what is stored.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

use cairn_tests::etcd::Etcd;
use cairn_tests::proxy::Proxy;
use cairn_tests::selection::rv;
use cairn_tests::{Server, client, python, wait_until};
use serde_json::{Value, json};

const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";
const WRITERS: usize = 4;
const PER_WRITER: usize = 40;

/// Creates one ConfigMap through `port`; its resourceVersion when
/// acknowledged, `None` when the server could not be reached or refused.
fn create(port: u16, name: &str) -> Option<u64> {
    let body = json!({"metadata": {"name": name}, "data": {"by": port.to_string()}});
    let body = body.to_string();
    let r = client::request(
        port,
        "POST",
        CONFIGMAPS,
        &[("Content-Type", "application/json")],
        Some(body.as_bytes()),
    )
    .ok()?;
    (r.status == 201).then(|| rv(&r.json()))
}

fn stored(server: &Server) -> BTreeMap<String, u64> {
    let list = server.get(CONFIGMAPS).json();
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|o| {
            let name = o["metadata"]["name"].as_str().expect("name").to_string();
            (name, rv(o))
        })
        .collect()
}

#[test]
fn a_killed_apiserver_loses_no_write_and_informers_converge_through_another() {
    let Some(py) = python() else {
        eprintln!("SKIPPED: the Python `kubernetes` client is not installed");
        return;
    };
    let etcd = Etcd::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let root_ca = cairn_tests::tls::shared_root_ca(dir.path());
    let url = etcd.url();
    let flags = ["--etcd-servers", &url, "--root-ca-file", &root_ca];
    let a = Server::start(&flags);
    let b = Server::start(&flags);
    let balancer = Proxy::start(a.port);

    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/python/informer_failover.py");
    let mut informer = Command::new(py)
        .args([script, &balancer.url()])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python");
    let mut lines = BufReader::new(informer.stdout.take().expect("stdout")).lines();
    assert_eq!(lines.next().expect("a line").expect("read"), "listed");

    // Writers alternate between the servers; once a's port refuses, they
    // write through b only.
    let a_alive = Arc::new(AtomicBool::new(true));
    let acked = Arc::new(Mutex::new(Vec::<(String, u64)>::new()));
    let attempts = Arc::new(AtomicUsize::new(0));
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (a_alive, acked, attempts) = (
                Arc::clone(&a_alive),
                Arc::clone(&acked),
                Arc::clone(&attempts),
            );
            let ports = [a.port, b.port];
            thread::spawn(move || {
                for i in 0..PER_WRITER {
                    let name = format!("w{w}-{i}");
                    attempts.fetch_add(1, Ordering::Relaxed);
                    let via = if a_alive.load(Ordering::Relaxed) {
                        ports[i % 2]
                    } else {
                        ports[1]
                    };
                    if let Some(rv) = create(via, &name) {
                        acked.lock().expect("acked").push((name, rv));
                    }
                }
            })
        })
        .collect();
    wait_until("writes before the kill", || {
        attempts.load(Ordering::Relaxed) >= WRITERS * PER_WRITER / 3
    });
    drop(a); // kill -9
    a_alive.store(false, Ordering::Relaxed);
    balancer.retarget(b.port);
    for w in writers {
        w.join().expect("writer");
    }
    let done = b.post(CONFIGMAPS, &json!({"metadata": {"name": "done"}}));
    assert_eq!(done.status, 201, "{}", done.text());

    let report: Value = loop {
        let line = lines.next().expect("the informer's report").expect("read");
        if line.starts_with('{') {
            break serde_json::from_str(&line).expect("json");
        }
    };
    assert_eq!(
        lines.next().expect("a line").expect("read"),
        "all checks passed"
    );
    assert!(informer.wait().expect("wait").success());

    let now = stored(&b);
    for (name, rv) in acked.lock().expect("acked").iter() {
        assert_eq!(now.get(name), Some(rv), "acknowledged {name} at {rv}");
    }
    let seen: BTreeMap<String, u64> = report["objects"]
        .as_object()
        .expect("objects")
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                v.as_str().and_then(|s| s.parse().ok()).expect("rv"),
            )
        })
        .collect();
    assert_eq!(seen, now, "the informer converged to what is stored");
    assert!(
        report["watches"].as_u64().expect("watches") >= 2,
        "the informer had to watch again: {report}"
    );
}
