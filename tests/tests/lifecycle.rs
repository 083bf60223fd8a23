//! Server lifecycle against the real binary: namespaces (bootstrap,
//! Terminating, content removal), restart on the same data, graceful
//! SIGTERM and Event TTL. (Flag errors are tested beside the binary, in
//! server/tests/command_line.rs.)

use std::process::Command;
use std::time::Duration;

use cairn_tests::{Server, event, wait_until};
use serde_json::json;

#[test]
fn namespace_lifecycle() {
    let s = Server::start(&[]);
    for ns in ["default", "kube-system", "kube-public"] {
        let r = s.get(&format!("/api/v1/namespaces/{ns}"));
        assert_eq!(r.status, 200, "{ns}");
        assert_eq!(r.json()["status"]["phase"], "Active");
    }
    let created = s.post(
        "/api/v1/namespaces",
        &json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}),
    );
    assert_eq!(created.status, 201, "{}", created.text());
    assert_eq!(created.json()["spec"]["finalizers"], json!(["kubernetes"]));
    assert_eq!(created.json()["status"]["phase"], "Active");
    assert_eq!(
        s.post(
            "/api/v1/namespaces",
            &json!({"metadata": {"name": "Bad.Name"}})
        )
        .status,
        422
    );
    for i in 0..5 {
        assert_eq!(
            s.post(
                "/api/v1/namespaces/team-a/events",
                &event(&format!("e{i}"), "r")
            )
            .status,
            201
        );
    }
    // Plain updates cannot drop the controller's finalizer or change status.
    let mut ns = s.get("/api/v1/namespaces/team-a").json();
    ns["spec"]["finalizers"] = json!([]);
    ns["status"]["phase"] = json!("Terminating");
    let upd = s.put("/api/v1/namespaces/team-a", &ns).json();
    assert_eq!(
        (
            upd["spec"]["finalizers"].clone(),
            upd["status"]["phase"].clone()
        ),
        (json!(["kubernetes"]), json!("Active"))
    );

    let mut watch = s.watch(&format!(
        "/api/v1/namespaces?watch=true&resourceVersion={}",
        upd["metadata"]["resourceVersion"].as_str().expect("rv")
    ));
    let del = s.delete("/api/v1/namespaces/team-a");
    assert_eq!(del.status, 200, "{}", del.text());
    let body = del.json();
    assert_eq!(body["status"]["phase"], "Terminating");
    assert!(body["metadata"]["deletionTimestamp"].as_str().is_some());
    let refused = s.post("/api/v1/namespaces/team-a/events", &event("late", "r"));
    // Either refused as terminating, or already gone.
    assert!(matches!(refused.status, 403 | 404), "{}", refused.text());
    if refused.status == 403 {
        let v = refused.json();
        assert_eq!(v["reason"], "Forbidden");
        assert!(
            v["message"]
                .as_str()
                .is_some_and(|m| m.contains("because it is being terminated"))
        );
        assert_eq!(v["details"]["causes"][0]["reason"], "NamespaceTerminating");
    }
    wait_until("namespace removal", || {
        s.get("/api/v1/namespaces/team-a").status == 404
    });
    assert_eq!(
        s.get("/api/v1/namespaces/team-a/events").json()["items"],
        json!([])
    );
    let mut seen = Vec::new();
    watch.set_timeout(Duration::from_secs(5));
    while let Some(ev) = watch.next_event() {
        seen.push(ev["type"].as_str().unwrap_or_default().to_string());
        if seen.last().is_some_and(|t| t == "DELETED") {
            break;
        }
    }
    assert_eq!(
        seen.first().map(String::as_str),
        Some("MODIFIED"),
        "{seen:?}"
    );
    assert_eq!(seen.last().map(String::as_str), Some("DELETED"), "{seen:?}");

    let immortal = s.delete("/api/v1/namespaces/default");
    assert_eq!(immortal.status, 403);
    assert_eq!(
        immortal.json()["message"],
        "namespaces \"default\" is forbidden: this namespace may not be deleted"
    );
    // The name is free again.
    assert_eq!(
        s.post(
            "/api/v1/namespaces",
            &json!({"metadata": {"name": "team-a"}})
        )
        .status,
        201
    );
}

#[test]
fn objects_with_finalizers_wait_for_them() {
    let s = Server::start(&[]);
    let mut e = event("held", "r");
    e["metadata"]["finalizers"] = json!(["example.com/hold"]);
    assert_eq!(s.post("/api/v1/namespaces/default/events", &e).status, 201);
    let d = s.delete("/api/v1/namespaces/default/events/held");
    assert_eq!(d.status, 200);
    assert!(d.json()["metadata"]["deletionTimestamp"].as_str().is_some());
    let held = s.get("/api/v1/namespaces/default/events/held");
    assert_eq!(held.status, 200, "still there while finalizers remain");
    let r = s.patch(
        "/api/v1/namespaces/default/events/held",
        "application/merge-patch+json",
        r#"{"metadata":{"finalizers":null}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(s.get("/api/v1/namespaces/default/events/held").status, 404);
}

#[test]
fn restart_keeps_data_and_sigterm_is_graceful() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let mut s = Server::start_on(&data, &[]);
    let created = s
        .post("/api/v1/namespaces/default/events", &event("kept", "r"))
        .json();
    let mut watch = s.watch("/api/v1/namespaces/default/events?watch=true");
    assert_eq!(
        watch.next_event().map(|e| e["type"].clone()),
        Some(json!("ADDED"))
    );
    assert_eq!(
        s.stop(),
        Some(0),
        "clean exit on SIGTERM; log:\n{}",
        s.log_text()
    );
    watch.set_timeout(Duration::from_secs(5));
    assert!(
        watch.next_event().is_none() && watch.ended(),
        "watches end cleanly at shutdown"
    );
    let s2 = Server::start_on(&data, &[]);
    let got = s2.get("/api/v1/namespaces/default/events/kept");
    assert_eq!(got.status, 200);
    assert_eq!(got.json(), created);
}

#[test]
fn events_expire_after_the_event_ttl() {
    let s = Server::start(&["--event-ttl", "1s"]);
    assert_eq!(
        s.post("/api/v1/namespaces/default/events", &event("short", "r"))
            .status,
        201
    );
    assert_eq!(s.get("/api/v1/namespaces/default/events/short").status, 200);
    wait_until("event expiry", || {
        s.get("/api/v1/namespaces/default/events/short").status == 404
    });
    // Namespaces do not expire.
    assert_eq!(s.get("/api/v1/namespaces/default").status, 200);
}

#[test]
fn readyz_fails_during_the_shutdown_delay() {
    let mut s = Server::start(&["--shutdown-delay-duration", "2s"]);
    let port = s.port;
    let pid_kill = Command::new("sh")
        .arg("-c")
        .arg(format!("sleep 0.2; pkill -TERM -f 'insecure-port {port}'"))
        .spawn()
        .expect("kill");
    wait_until("readyz to fail", || {
        cairn_tests::client::request(port, "GET", "/readyz", &[], None)
            .is_ok_and(|r| r.status == 500)
    });
    let r = cairn_tests::client::request(port, "GET", "/readyz?verbose", &[], None)
        .expect("still serving");
    assert!(String::from_utf8_lossy(&r.body).contains("[-]shutdown failed: reason withheld"));
    assert_eq!(
        cairn_tests::client::request(port, "GET", "/livez", &[], None)
            .expect("live")
            .status,
        200
    );
    drop(pid_kill);
    assert_eq!(s.stop(), Some(0));
}
