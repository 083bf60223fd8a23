//! Watch streams against the real binary: initial state, changes after a
//! resourceVersion, selector transitions, timeouts, and compacted starts.

use std::time::Duration;

use cairn_tests::{Server, event};
use serde_json::json;

const EVENTS: &str = "/api/v1/namespaces/default/events";

#[test]
fn watch_reports_changes_in_order() {
    let s = Server::start(&[]);
    let first = s.post(EVENTS, &event("w1", "r")).json();
    let rv = first["metadata"]["resourceVersion"]
        .as_str()
        .expect("rv")
        .to_string();

    // No resourceVersion: current state as ADDED, then changes.
    let mut all = s.watch(&format!("{EVENTS}?watch=true"));
    assert_eq!(all.status, 200);
    assert_eq!(
        all.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| v.as_str()),
        Some("application/json")
    );
    let ev = all.next_event().expect("initial");
    assert_eq!(
        (ev["type"].clone(), ev["object"]["metadata"]["name"].clone()),
        (json!("ADDED"), json!("w1"))
    );

    // From a resourceVersion: only later changes.
    let mut after = s.watch(&format!(
        "/api/v1/watch/namespaces/default/events?resourceVersion={rv}"
    ));
    assert_eq!(
        s.patch(
            &format!("{EVENTS}/w1"),
            "application/merge-patch+json",
            r#"{"message":"m"}"#
        )
        .status,
        200
    );
    assert_eq!(s.post(EVENTS, &event("w2", "r")).status, 201);
    assert_eq!(s.delete(&format!("{EVENTS}/w1")).status, 200);
    for w in [&mut all, &mut after] {
        let kinds: Vec<(String, String)> = (0..3)
            .map(|_| {
                let e = w.next_event().expect("event");
                (
                    e["type"].as_str().expect("type").to_string(),
                    e["object"]["metadata"]["name"]
                        .as_str()
                        .expect("name")
                        .to_string(),
                )
            })
            .collect();
        assert_eq!(
            kinds,
            vec![
                ("MODIFIED".into(), "w1".into()),
                ("ADDED".into(), "w2".into()),
                ("DELETED".into(), "w1".into())
            ]
        );
    }
    // A single-object watch.
    let mut one = s.watch("/api/v1/watch/namespaces/default/events/w2");
    assert_eq!(
        one.next_event().expect("initial")["object"]["metadata"]["name"],
        "w2"
    );
    assert_eq!(s.post(EVENTS, &event("w3", "r")).status, 201);
    assert_eq!(
        s.patch(
            &format!("{EVENTS}/w2"),
            "application/merge-patch+json",
            r#"{"message":"x"}"#
        )
        .status,
        200
    );
    let e = one.next_event().expect("modified");
    assert_eq!(
        (e["type"].clone(), e["object"]["metadata"]["name"].clone()),
        (json!("MODIFIED"), json!("w2"))
    );
}

#[test]
fn selector_transitions_and_timeouts() {
    let s = Server::start(&[]);
    let r = s.post(EVENTS, &event("sel", "Pulled")).json();
    let rv = r["metadata"]["resourceVersion"]
        .as_str()
        .expect("rv")
        .to_string();
    let mut w = s.watch(&format!(
        "{EVENTS}?watch=1&resourceVersion={rv}&fieldSelector=reason%3DKilling"
    ));
    assert_eq!(
        s.patch(
            &format!("{EVENTS}/sel"),
            "application/merge-patch+json",
            r#"{"reason":"Killing"}"#
        )
        .status,
        200
    );
    assert_eq!(w.next_event().expect("starts matching")["type"], "ADDED");
    assert_eq!(
        s.patch(
            &format!("{EVENTS}/sel"),
            "application/merge-patch+json",
            r#"{"reason":"Pulled"}"#
        )
        .status,
        200
    );
    let gone = w.next_event().expect("stops matching");
    assert_eq!(gone["type"], "DELETED");

    let mut t = s.watch(&format!(
        "{EVENTS}?watch=true&resourceVersion={rv}&timeoutSeconds=1"
    ));
    t.set_timeout(Duration::from_secs(10));
    while t.next_event().is_some() {}
    assert!(t.ended(), "timeoutSeconds ends the stream cleanly");
}
