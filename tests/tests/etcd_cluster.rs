//! Two cairn-apiservers on a 3-member etcd cluster. A member killed under
//! load (the one both servers talk to) loses no acknowledged write and
//! breaks no watch: each etcd watch reopens on another member from the last
//! revision it delivered, so watchers on both servers see every change
//! once, in revision order. With two of three members down, readiness
//! fails and writes end in a 503/504 Status, never a hang; once the members
//! return, everything recovers by itself and the same watches go on.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use cairn_tests::client::WatchStream;
use cairn_tests::etcd::Etcd;
use cairn_tests::selection::rv;
use cairn_tests::{Server, client, wait_until};
use serde_json::{Value, json};

const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";

/// What the writers saw: acknowledged resourceVersions and refusals.
#[derive(Default)]
struct Outcomes {
    acked: Vec<u64>,
    refused: Vec<(u16, Value)>,
}

/// Creates ConfigMaps through both servers' ports in turn until `stop`
/// (ports, not the servers: a failing test must still kill them on drop).
fn write_until(ports: [u16; 2], stop: &AtomicBool, tag: &str) -> Outcomes {
    let mut out = Outcomes::default();
    let mut i = 0usize;
    while !stop.load(Ordering::Relaxed) {
        let cm = json!({"metadata": {"name": format!("{tag}-{i}")}, "data": {"i": i.to_string()}});
        let r = client::request(
            ports[i % 2],
            "POST",
            CONFIGMAPS,
            &[("Content-Type", "application/json")],
            Some(cm.to_string().as_bytes()),
        )
        .expect("the servers stay up");
        if r.status == 201 {
            out.acked.push(rv(&r.json()));
        } else {
            out.refused.push((r.status, r.json()));
        }
        i += 1;
    }
    out
}

/// The next `n` events' resourceVersions, with their types.
fn next_events(watch: &mut WatchStream, n: usize) -> Vec<u64> {
    (0..n)
        .map(|k| {
            let e = watch
                .next_event()
                .unwrap_or_else(|| panic!("event {k} of {n}: the watch ended"));
            assert_eq!(e["type"], json!("ADDED"), "{e}");
            rv(&e["object"])
        })
        .collect()
}

/// The resourceVersions of the ConfigMaps written after `from`.
fn list_versions(server: &Server, from: u64) -> Vec<u64> {
    let list = server.get(CONFIGMAPS).json();
    let mut versions: Vec<u64> = list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(rv)
        .filter(|v| *v > from)
        .collect();
    versions.sort_unstable();
    versions
}

#[test]
fn a_killed_member_loses_nothing_and_a_lost_quorum_refuses_then_recovers() {
    let mut members = Etcd::cluster(3);
    let urls = Etcd::urls(&members);
    let dir = tempfile::tempdir().expect("tempdir");
    let root_ca = cairn_tests::tls::shared_root_ca(dir.path());
    let flags = ["--etcd-servers", &urls, "--root-ca-file", &root_ca];
    let servers = [Server::start(&flags), Server::start(&flags)];
    let from = rv(&servers[0].get(CONFIGMAPS).json());
    let mut watches: Vec<WatchStream> = servers
        .iter()
        .map(|s| s.watch(&format!("{CONFIGMAPS}?watch=1&resourceVersion={from}")))
        .collect();
    for w in &mut watches {
        assert_eq!(w.status, 200);
        w.set_timeout(Duration::from_secs(60));
    }

    // Under load, kill the member every connection starts on.
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (ports, stop) = ([servers[0].port, servers[1].port], Arc::clone(&stop));
        thread::spawn(move || write_until(ports, &stop, "load"))
    };
    wait_until("writes before the kill", || {
        list_versions(&servers[0], from).len() >= 20
    });
    members[0].kill();
    let before_kill = list_versions(&servers[0], from).len();
    wait_until("writes after the kill", || {
        list_versions(&servers[1], from).len() >= before_kill + 40
    });
    stop.store(true, Ordering::Relaxed);
    let load = writer.join().expect("writer");
    for (status, body) in &load.refused {
        assert!(matches!(status, 503 | 504), "{status} {body}");
        assert_eq!(body["kind"], json!("Status"), "{body}");
    }

    // Every acknowledged write is stored; both watchers saw exactly what
    // is stored (a write whose answer was lost may be there too), in order.
    let stored = list_versions(&servers[0], from);
    assert_eq!(stored, list_versions(&servers[1], from));
    for acked in &load.acked {
        assert!(stored.contains(acked), "acknowledged {acked} is missing");
    }
    for w in &mut watches {
        assert_eq!(next_events(w, stored.len()), stored);
    }

    // Two of three down: no quorum. Readiness fails and a write is refused
    // with a Status on both servers, whichever member each now talks to.
    members[1].kill();
    for s in servers.iter() {
        wait_until("readyz to fail", || s.get("/readyz").status != 200);
        assert!(s.get("/readyz?verbose").text().contains("[-]etcd failed"));
        let r = s.post(
            CONFIGMAPS,
            &json!({"metadata": {"name": "no-quorum"}, "data": {}}),
        );
        assert!(matches!(r.status, 503 | 504), "{} {}", r.status, r.text());
        assert_eq!(r.json()["kind"], json!("Status"));
        // Reads go to etcd (quorum reads, as kube-apiserver's without a
        // cache): they fail clearly too.
        let r = s.get(CONFIGMAPS);
        assert!(matches!(r.status, 503 | 504), "{} {}", r.status, r.text());
        assert_eq!(r.json()["kind"], json!("Status"));
    }

    // Back by itself: ready, writable, and the same watches go on.
    members[0].resume();
    members[1].resume();
    for s in servers.iter() {
        wait_until("readyz to recover", || s.get("/readyz").status == 200);
    }
    let mut after = Vec::new();
    for (i, s) in servers.iter().enumerate() {
        let cm = json!({"metadata": {"name": format!("after-{i}")}, "data": {}});
        let r = s.post(CONFIGMAPS, &cm);
        assert_eq!(r.status, 201, "{}", r.text());
        after.push(rv(&r.json()));
    }
    let stored_now = list_versions(&servers[0], from);
    let new: Vec<u64> = stored_now
        .into_iter()
        .filter(|v| !stored.contains(v))
        .collect();
    for acked in &after {
        assert!(new.contains(acked), "acknowledged {acked} is missing");
    }
    for w in &mut watches {
        assert_eq!(next_events(w, new.len()), new);
    }
}
