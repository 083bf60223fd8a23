//! Selected lists answered by a kind's list index: the index is built by a
//! first selective list before any history exists, so every later list —
//! current, at an Exact revision in the past, or paged while writers keep
//! changing the objects — must account for what changed after its
//! revision; and a selective list right after an acknowledged write sees
//! it (the index is never behind a write the client was told of).

use std::sync::atomic::{AtomicBool, Ordering};

use cairn_tests::Server;
use cairn_tests::selection::{Rng, rv};
use serde_json::json;

use crate::check::{check_current, check_exact, get_ok, items};
use crate::history::{EVENTS, NAMESPACES, cms, random_selector, random_write};

fn collections() -> [(String, bool); 4] {
    [
        (cms("ns-a"), false),
        ("/api/v1/configmaps".to_string(), false),
        (EVENTS.to_string(), true),
        ("/api/v1/events".to_string(), true),
    ]
}

fn started() -> Server {
    let s = Server::start(&[]);
    for ns in NAMESPACES {
        let body = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}});
        assert_eq!(s.post("/api/v1/namespaces", &body).status, 201);
    }
    // Build the indexes of both kinds while they are empty.
    for (collection, _) in collections() {
        get_ok(&s, &format!("{collection}?labelSelector=app%3Da"));
    }
    s
}

#[test]
fn an_index_built_first_answers_every_later_revision() {
    let s = started();
    let mut rng = Rng::new(0x1d_e8);
    let mut live = Vec::new();
    let mut revisions = Vec::new();
    for _ in 0..5 {
        for _ in 0..25 {
            random_write(&s, &mut rng, &mut live);
        }
        revisions.push(rv(&get_ok(&s, EVENTS)));
    }
    for &at in &revisions {
        for (collection, events) in &collections() {
            for _ in 0..4 {
                check_exact(&s, collection, at, &random_selector(&mut rng, *events));
            }
        }
    }
    for (collection, events) in &collections() {
        for _ in 0..6 {
            check_current(&s, collection, &random_selector(&mut rng, *events));
        }
    }
}

#[test]
fn pages_keep_their_snapshot_while_writers_change_the_objects() {
    let s = started();
    let mut rng = Rng::new(0x9a_9e5);
    let mut live = Vec::new();
    for _ in 0..60 {
        random_write(&s, &mut rng, &mut live);
    }
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let writer = scope.spawn(|| {
            let mut rng = Rng::new(0x5eed);
            let mut live = live.clone();
            let mut writes = 0;
            while !stop.load(Ordering::Relaxed) {
                random_write(&s, &mut rng, &mut live);
                writes += 1;
            }
            writes
        });
        for _ in 0..6 {
            for (collection, events) in &collections() {
                check_current(&s, collection, &random_selector(&mut rng, *events));
            }
        }
        stop.store(true, Ordering::Relaxed);
        let writes = writer.join().expect("writer");
        assert!(writes > 10, "the writer ran alongside ({writes} writes)");
    });
}

#[test]
fn a_selective_list_sees_every_acknowledged_write() {
    let s = started();
    let path = cms("ns-b");
    for i in 0..40 {
        let name = format!("seen-{i}");
        let body = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "labels": {"app": "a", "seq": i.to_string()}}});
        let created = s.post(&path, &body);
        assert_eq!(created.status, 201, "{}", created.text());
        let wrote = rv(&created.json());
        for query in [
            format!("labelSelector=seq%3D{i}"),
            format!("fieldSelector=metadata.name%3D{name}"),
        ] {
            let list = get_ok(&s, &format!("{path}?{query}"));
            assert!(
                rv(&list) >= wrote,
                "{query}: list revision before the write"
            );
            let names: Vec<_> = items(&list)
                .iter()
                .map(|o| {
                    o["metadata"]["name"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string()
                })
                .collect();
            assert_eq!(names, vec![name.clone()], "{query}");
        }
        if i % 2 == 0 {
            let relabel = json!({"metadata": {"labels": {"seq": "moved"}}});
            let r = s.patch(
                &format!("{path}/{name}"),
                "application/merge-patch+json",
                &relabel.to_string(),
            );
            assert_eq!(r.status, 200, "{}", r.text());
            let list = get_ok(&s, &format!("{path}?labelSelector=seq%3D{i}"));
            assert!(items(&list).is_empty(), "relabelled {name} still selected");
        } else {
            assert_eq!(s.delete(&format!("{path}/{name}")).status, 200);
            let list = get_ok(&s, &format!("{path}?fieldSelector=metadata.name%3D{name}"));
            assert!(items(&list).is_empty(), "deleted {name} still listed");
        }
    }
    let moved = get_ok(&s, &format!("{path}?labelSelector=seq%3Dmoved,app%3Da"));
    assert_eq!(items(&moved).len(), 20);
}
