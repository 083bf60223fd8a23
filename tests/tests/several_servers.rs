//! Several cairn-apiservers on one etcd: a write through any is seen by
//! watchers on every server in revision order; a CRD created on one is
//! served by the others; the singleton controllers run only on the server
//! that holds the leader Lease (`kube-system/cairn-controllers`), and
//! another takes over within the lease duration when the leader is killed,
//! or at once when it stops and gives the Lease up.

use cairn_tests::etcd::Etcd;
use cairn_tests::selection::rv;
use cairn_tests::{Server, wait_until};
use serde_json::{Value, json};

const LEASE: &str = "/apis/coordination.svc.io/v1/namespaces/kube-system/leases/cairn-controllers";
const LEADER_LOG: &str = "became the leader";

/// One root CA for every server of this test binary (see
/// `cairn_tests::tls::shared_root_ca`).
fn root_ca() -> &'static str {
    static FILE: std::sync::OnceLock<(tempfile::TempDir, String)> = std::sync::OnceLock::new();
    &FILE
        .get_or_init(|| {
            let dir = tempfile::tempdir().expect("tempdir");
            let path = cairn_tests::tls::shared_root_ca(dir.path());
            (dir, path)
        })
        .1
}

/// Short timings, so a takeover takes seconds, not kube's 15.
fn start(etcd: &Etcd) -> Server {
    Server::start(&[
        "--etcd-servers",
        &etcd.url(),
        "--root-ca-file",
        root_ca(),
        "--leader-elect-lease-duration",
        "4s",
        "--leader-elect-renew-deadline",
        "3s",
        "--leader-elect-retry-period",
        "1s",
    ])
}

fn holder(server: &Server) -> Option<Value> {
    let r = server.get(LEASE);
    (r.status == 200).then(|| r.json()["spec"].clone())
}

fn leads(server: &Server) -> bool {
    server.log_text().contains(LEADER_LOG)
}

/// The namespace's `default` ServiceAccount exists: the singleton
/// service-account controller ran.
fn has_default_account(server: &Server, ns: &str) -> bool {
    server
        .get(&format!("/api/v1/namespaces/{ns}/serviceaccounts/default"))
        .status
        == 200
}

fn create_namespace(server: &Server, name: &str) {
    let r = server.post("/api/v1/namespaces", &json!({"metadata": {"name": name}}));
    assert_eq!(r.status, 201, "{}", r.text());
}

#[test]
fn writes_through_any_server_reach_watchers_on_every_server_in_order() {
    let etcd = Etcd::start();
    let servers = [start(&etcd), start(&etcd)];
    let path = "/api/v1/namespaces/default/configmaps";
    let from = rv(&servers[0].get(path).json());
    let mut watches: Vec<_> = servers
        .iter()
        .map(|s| s.watch(&format!("{path}?watch=1&resourceVersion={from}")))
        .collect();
    let mut written = Vec::new();
    for i in 0..10 {
        let via = &servers[i % 2];
        let cm = json!({"metadata": {"name": format!("cm-{i}")}, "data": {"i": i.to_string()}});
        let r = via.post(path, &cm);
        assert_eq!(r.status, 201, "{}", r.text());
        written.push(rv(&r.json()));
    }
    for (n, watch) in watches.iter_mut().enumerate() {
        let seen: Vec<u64> = (0..written.len())
            .map(|_| {
                let e = watch.next_event().expect("event");
                assert_eq!(e["type"], "ADDED", "{e}");
                rv(&e["object"])
            })
            .collect();
        assert_eq!(seen, written, "server {n}: every write, in revision order");
    }

    // A CRD created through one server is served by the other.
    let crd = json!({
        "apiVersion": "apiextensions.svc.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object",
                    "x-kubernetes-preserve-unknown-fields": true}}}],
        },
    });
    let r = servers[0].post(
        "/apis/apiextensions.svc.io/v1/customresourcedefinitions",
        &crd,
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let widgets = "/apis/example.com/v1/namespaces/default/widgets";
    wait_until("the other server serves the CRD", || {
        servers[1].get(widgets).status == 200
    });
    let w = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}});
    let r = servers[1].post(widgets, &w);
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(servers[0].get(&format!("{widgets}/w")).status, 200);
}

/// Each server answers from its own watch cache: a consistent list on one
/// sees a write made through the other a moment before, and a create
/// through one decides on a namespace as the other just left it.
#[test]
fn each_server_sees_writes_just_made_through_another() {
    let etcd = Etcd::start();
    let servers = [start(&etcd), start(&etcd)];
    let cm = json!({"metadata": {"name": "cm"}});
    for i in 0..20 {
        let (a, b) = (&servers[i % 2], &servers[(i + 1) % 2]);
        let ns = format!("fresh-{i}");
        create_namespace(a, &ns);
        let path = format!("/api/v1/namespaces/{ns}/configmaps");
        let r = b.post(&path, &cm);
        assert_eq!(
            r.status,
            201,
            "a namespace just created elsewhere: {}",
            r.text()
        );
        let listed = a.get(&path).json();
        let names: Vec<&Value> = listed["items"]
            .as_array()
            .map(|items| items.iter().map(|i| &i["metadata"]["name"]).collect())
            .unwrap_or_default();
        assert!(names.contains(&&json!("cm")), "{listed}");
        assert!(rv(&listed) >= rv(&r.json()), "listed at or after the write");
    }
    for i in 0..4 {
        let (a, b) = (&servers[i % 2], &servers[(i + 1) % 2]);
        let r = a.delete(&format!("/api/v1/namespaces/fresh-{i}"));
        assert_eq!(r.status, 200, "{}", r.text());
        let late = json!({"metadata": {"name": "late"}});
        let r = b.post(&format!("/api/v1/namespaces/fresh-{i}/configmaps"), &late);
        assert!(
            r.status == 403 || r.status == 404,
            "a namespace deleted elsewhere takes nothing new: {} {}",
            r.status,
            r.text()
        );
    }
}

#[test]
fn one_server_leads_and_another_takes_over_when_it_dies() {
    let etcd = Etcd::start();
    let mut servers = vec![start(&etcd), start(&etcd)];
    wait_until("one server leads", || servers.iter().any(leads));
    let leader = servers.iter().position(leads).expect("a leader");
    let spec = holder(&servers[0]).expect("the leader Lease");
    assert_eq!(spec["leaseDurationSeconds"], 4, "{spec}");
    let identity = spec["holderIdentity"].as_str().expect("holder").to_string();
    assert!(
        servers[leader].log_text().contains(&identity),
        "the leader's log names its identity {identity}"
    );
    // Singleton work is done, through whichever server the request went to.
    create_namespace(&servers[1 - leader], "before");
    wait_until("the default ServiceAccount", || {
        has_default_account(&servers[0], "before")
    });
    assert!(
        !leads(&servers[1 - leader]),
        "only one server runs the singleton controllers"
    );

    // kill -9 the leader: the other takes the Lease once it has seen it
    // stand still for the lease duration, and the work goes on.
    drop(servers.remove(leader));
    let survivor = &servers[0];
    wait_until("the survivor leads", || leads(survivor));
    let spec = holder(survivor).expect("the leader Lease");
    assert_ne!(spec["holderIdentity"], json!(identity), "{spec}");
    assert_eq!(spec["leaseTransitions"], 1, "{spec}");
    create_namespace(survivor, "after");
    wait_until("the default ServiceAccount after the takeover", || {
        has_default_account(survivor, "after")
    });
    let r = survivor.delete("/api/v1/namespaces/after");
    assert_eq!(r.status, 200, "{}", r.text());
    wait_until("the namespace is finalized and gone", || {
        survivor.get("/api/v1/namespaces/after").status == 404
    });

    // A server that stops gives the Lease up; one without leader election
    // reads it and never leads.
    let observer = Server::start(&[
        "--etcd-servers",
        &etcd.url(),
        "--leader-elect=false",
        "--root-ca-file",
        root_ca(),
    ]);
    let mut survivor = servers.remove(0);
    assert_eq!(survivor.stop(), Some(0));
    assert!(survivor.log_text().contains("gave up the leader Lease"));
    let spec = holder(&observer).expect("the Lease");
    assert_eq!(spec["holderIdentity"], "", "{spec}");
    assert!(!leads(&observer));
}

#[test]
fn bad_leader_election_timings_stop_the_start_with_one_line() {
    for (args, flag) in [
        (
            [
                "--leader-elect-lease-duration",
                "5s",
                "--leader-elect-renew-deadline",
                "5s",
            ],
            "--leader-elect-lease-duration",
        ),
        (
            [
                "--leader-elect-renew-deadline",
                "2s",
                "--leader-elect-retry-period",
                "2s",
            ],
            "--leader-elect-renew-deadline",
        ),
    ] {
        let line = cairn_tests::start_refused_with(&args);
        assert!(line.contains(flag), "{flag} named: {line}");
    }
}

#[test]
fn a_leader_that_cannot_renew_stops_its_controllers_and_leads_again_later() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut etcd = Etcd::start_on(&dir.path().join("etcd"));
    let server = start(&etcd);
    wait_until("the server leads", || leads(&server));
    etcd.kill();
    wait_until("the leader stops leading without etcd", || {
        let log = server.log_text();
        log.contains("stopped leading") && log.contains("stopped the singleton controllers")
    });
    etcd.resume();
    wait_until("it leads again once etcd returns", || {
        server.log_text().matches(LEADER_LOG).count() == 2
    });
    create_namespace(&server, "again");
    wait_until("the controllers work again", || {
        has_default_account(&server, "again")
    });
}
