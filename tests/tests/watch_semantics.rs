//! Watch semantics against the real binary: bookmarks, streaming lists with
//! the initial-events-end bookmark, parameter combinations, compacted starts,
//! and list-then-watch missing nothing while a writer runs.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use cairn_tests::{Server, event};
use serde_json::{Value, json};

const EVENTS: &str = "/api/v1/namespaces/default/events";

fn rv_of(v: &Value) -> String {
    v["metadata"]["resourceVersion"]
        .as_str()
        .expect("rv")
        .to_string()
}

#[test]
fn bookmark_at_the_end_of_a_timeout() {
    let s = Server::start(&[]);
    let created = s.post(EVENTS, &event("b", "r")).json();
    let mut w = s.watch(&format!(
        "{EVENTS}?watch=true&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion={}",
        rv_of(&created)
    ));
    w.set_timeout(Duration::from_secs(10));
    let ev = w.next_event().expect("a bookmark");
    assert_eq!(ev["type"], "BOOKMARK");
    // The bookmark carries the newest revision the server has seen: the
    // event's, or a later one when the server wrote since (its own
    // controllers do).
    let bookmark_rv = rv_of(&ev["object"]);
    assert!(
        bookmark_rv.parse::<u64>().expect("numeric")
            >= rv_of(&created).parse::<u64>().expect("numeric"),
        "{ev}"
    );
    assert_eq!(
        ev["object"],
        json!({"kind": "Event", "apiVersion": "v1", "metadata": {"resourceVersion": bookmark_rv}})
    );
    assert!(w.next_event().is_none() && w.ended());
    // Without allowWatchBookmarks there is none.
    let mut quiet = s.watch(&format!(
        "{EVENTS}?watch=true&timeoutSeconds=1&resourceVersion={}",
        rv_of(&created)
    ));
    quiet.set_timeout(Duration::from_secs(10));
    assert!(quiet.next_event().is_none());
}

#[test]
fn send_initial_events_then_the_end_bookmark_then_changes() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    for n in ["i1", "i2"] {
        assert_eq!(s.post(EVENTS, &event(n, "r")).status, 201);
    }
    let mut w = s.watch(&format!("{EVENTS}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"));
    assert_eq!(w.status, 200);
    let a = w.next_event().expect("added");
    let b = w.next_event().expect("added");
    assert_eq!(
        (a["type"].as_str(), b["type"].as_str()),
        (Some("ADDED"), Some("ADDED"))
    );
    let end = w.next_event().expect("bookmark");
    assert_eq!(end["type"], "BOOKMARK");
    assert_eq!(
        end["object"]["metadata"]["annotations"],
        json!({"k8s.io/initial-events-end": "true"})
    );
    assert_eq!(s.post(EVENTS, &event("i3", "r")).status, 201);
    let live = w.next_event().expect("live");
    assert_eq!(
        (
            live["type"].clone(),
            live["object"]["metadata"]["name"].clone()
        ),
        (json!("ADDED"), json!("i3"))
    );

    let bad = [
        format!("{EVENTS}?watch=true&sendInitialEvents=true"),
        format!(
            "{EVENTS}?watch=true&sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=1"
        ),
        format!("{EVENTS}?watch=true&resourceVersionMatch=NotOlderThan&resourceVersion=1"),
        format!("{EVENTS}?watch=true&resourceVersion=abc"),
    ];
    for path in bad {
        let r = s.get(&path);
        assert_eq!(r.status, 400, "{path}: {}", r.text());
        assert_eq!(r.json()["kind"], "Status");
    }
    let gated = Server::start(&["--feature-gates", "WatchList=false"]);
    let r = gated.get(&format!(
        "{EVENTS}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
    ));
    assert!(
        r.status == 400 && r.text().contains("WatchList"),
        "{}",
        r.text()
    );
}

#[test]
fn a_compacted_start_is_an_error_event() {
    let s = Server::start(&["--compaction-interval", "1s"]);
    let first = s.post(EVENTS, &event("c1", "r")).json();
    let deadline = Instant::now() + Duration::from_secs(20);
    for n in 2.. {
        assert_eq!(s.post(EVENTS, &event(&format!("c{n}"), "r")).status, 201);
        let mut w = s.watch(&format!(
            "{EVENTS}?watch=true&resourceVersion={}",
            rv_of(&first)
        ));
        w.set_timeout(Duration::from_secs(2));
        let ev = w.next_event().expect("an event");
        if ev["type"] == "ERROR" {
            let st = &ev["object"];
            assert_eq!(
                (
                    st["kind"].as_str(),
                    st["code"].as_u64(),
                    st["reason"].as_str()
                ),
                (Some("Status"), Some(410), Some("Expired"))
            );
            assert!(w.next_event().is_none(), "the stream ends after the error");
            return;
        }
        assert!(Instant::now() < deadline, "history never compacted");
        std::thread::sleep(Duration::from_millis(300));
    }
}

#[test]
fn list_then_watch_misses_nothing_under_a_writer() {
    let s = Arc::new(Server::start(&[]));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (s, stop) = (Arc::clone(&s), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut i = 0u32;
            while !stop.load(Ordering::Relaxed) && i < 400 {
                let name = format!("lw-{}", i % 40);
                match i % 3 {
                    0 | 1 => {
                        let mut e = event(&name, "r");
                        e["message"] = json!(format!("v{i}"));
                        e["metadata"]
                            .as_object_mut()
                            .expect("meta")
                            .remove("resourceVersion");
                        let _ = s.put(&format!("{EVENTS}/{name}"), &e);
                    }
                    _ => {
                        let _ = s.delete(&format!("{EVENTS}/{name}"));
                    }
                }
                i += 1;
            }
        })
    };
    std::thread::sleep(Duration::from_millis(100));
    let list = s.get(EVENTS).json();
    let mut cache: BTreeMap<String, Value> = list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|o| {
            (
                o["metadata"]["name"].as_str().expect("name").to_string(),
                o.clone(),
            )
        })
        .collect();
    let mut w = s.watch(&format!(
        "{EVENTS}?watch=true&resourceVersion={}",
        rv_of(&list)
    ));
    writer.join().expect("writer");
    stop.store(true, Ordering::Relaxed);
    let final_list = s.get(EVENTS).json();
    let final_rv: u64 = rv_of(&final_list).parse().expect("rv");
    w.set_timeout(Duration::from_secs(5));
    let mut last_rv = 0u64;
    while last_rv < final_rv {
        let ev = w
            .next_event()
            .expect("the watch reaches the final revision");
        let obj = &ev["object"];
        let rv: u64 = rv_of(obj).parse().expect("rv");
        assert!(rv > last_rv, "revisions increase");
        last_rv = rv;
        let name = obj["metadata"]["name"].as_str().expect("name").to_string();
        match ev["type"].as_str() {
            Some("ADDED" | "MODIFIED") => {
                cache.insert(name, obj.clone());
            }
            Some("DELETED") => {
                cache.remove(&name);
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    let want: BTreeMap<String, Value> = final_list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|o| {
            (
                o["metadata"]["name"].as_str().expect("name").to_string(),
                o.clone(),
            )
        })
        .collect();
    assert_eq!(cache, want, "list + watch rebuilds exactly the final state");
}

/// A watcher that stops reading is cut off once its backlog passes the
/// server's bound (it must re-list), instead of growing server memory; other
/// watchers and writers carry on.
#[test]
fn a_watcher_that_stops_reading_is_ended() {
    let s = Server::start(&[]);
    let mut stalled = s.watch("/api/v1/namespaces/default/events?watch=true");
    let mut reading = s.watch("/api/v1/namespaces/default/events?watch=true");
    let big = "x".repeat(16 * 1024);
    let total = 2500;
    let mut seen_by_reader = 0;
    for i in 0..total {
        let mut ev = event(&format!("e{i}"), "Flood");
        ev["message"] = json!(big);
        assert_eq!(s.post("/api/v1/namespaces/default/events", &ev).status, 201);
        // The healthy watcher keeps up as the writes go.
        if i % 50 == 49 {
            while seen_by_reader <= i {
                let e = reading.next_event().expect("the reading watcher is served");
                assert_eq!(e["type"], "ADDED");
                seen_by_reader += 1;
            }
        }
    }
    assert_eq!(seen_by_reader, total);
    // The stalled watcher gets what was buffered, then the end of the stream.
    let mut received = 0;
    // Without a cut-off the stream would stay open: give up after a pause.
    stalled.set_timeout(Duration::from_secs(5));
    while stalled.next_event().is_some() {
        received += 1;
    }
    assert!(stalled.ended(), "the server ended the stalled watch");
    assert!(
        received < total,
        "the stalled watcher was cut off ({received} of {total})"
    );
    assert_eq!(s.get("/readyz").status, 200);
}

/// A watcher that stops reading for a while (less than the server's bound)
/// gets every event afterwards, once and in order: the server then sends the
/// batches that piled up in larger writes.
#[test]
fn a_watcher_that_falls_behind_catches_up_in_order() {
    let s = Server::start(&[]);
    let mut behind = s.watch("/api/v1/namespaces/default/events?watch=true");
    let big = "y".repeat(16 * 1024);
    // ≈10 MB: far more than the socket buffers hold, far fewer batches than
    // the bound that ends a watcher.
    let total = 600;
    for i in 0..total {
        let mut ev = event(&format!("c{i}"), "Pile");
        ev["message"] = json!(big);
        assert_eq!(s.post("/api/v1/namespaces/default/events", &ev).status, 201);
    }
    behind.set_timeout(Duration::from_secs(10));
    let mut last_rv = 0u64;
    for i in 0..total {
        let e = behind.next_event().expect("every event arrives");
        assert_eq!(e["type"], "ADDED");
        assert_eq!(e["object"]["metadata"]["name"], format!("c{i}"));
        let rv: u64 = rv_of(&e["object"]).parse().expect("rv");
        assert!(rv > last_rv, "revisions increase");
        last_rv = rv;
    }
    assert!(!behind.ended(), "the watch stays open");
}
