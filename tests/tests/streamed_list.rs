//! A list larger than the pages storage is read in, sent as compact JSON
//! while writers change the collection: the server reads it page by page
//! as it sends it, and every page comes from the list's one revision.

use std::sync::atomic::{AtomicBool, Ordering};

use cairn_tests::{Server, event, item_names};
use serde_json::Value;

const EVENTS: &str = "/api/v1/namespaces/default/events";
/// Several of the server's stream pages (1,024 records).
const STORED: usize = 5_000;
const WRITERS: usize = 4;

/// The collection at `rv` read in pages of 500 (continue tokens), which
/// the server answers page by page from its snapshot.
fn paged_at(s: &Server, rv: &str) -> Vec<String> {
    let mut seen = Vec::new();
    let mut query = format!("limit=500&resourceVersion={rv}&resourceVersionMatch=Exact");
    loop {
        let page = s.get(&format!("{EVENTS}?{query}"));
        assert_eq!(page.status, 200, "{}", page.text());
        let page = page.json();
        seen.extend(item_names(&page));
        match page["metadata"]["continue"]
            .as_str()
            .filter(|c| !c.is_empty())
        {
            Some(t) => query = format!("limit=500&continue={t}"),
            None => return seen,
        }
    }
}

#[test]
fn a_list_read_as_it_is_sent_is_one_snapshot_under_writes() {
    let s = Server::start(&[]);
    std::thread::scope(|scope| {
        for w in 0..WRITERS {
            let s = &s;
            scope.spawn(move || {
                for i in (w..STORED).step_by(WRITERS) {
                    let r = s.post(EVENTS, &event(&format!("ev-{i:05}"), "r"));
                    assert_eq!(r.status, 201, "{}", r.text());
                }
            });
        }
    });
    let writing = AtomicBool::new(true);
    let (whole, written) = std::thread::scope(|scope| {
        let writer = scope.spawn(|| {
            let mut written = 0;
            while writing.load(Ordering::Relaxed) {
                let r = s.post(EVENTS, &event(&format!("new-{written:05}"), "r"));
                assert_eq!(r.status, 201, "{}", r.text());
                let r = s.delete(&format!("{EVENTS}/ev-{written:05}"));
                assert_eq!(r.status, 200, "{}", r.text());
                written += 1;
            }
            written
        });
        let lists: Vec<Value> = (0..3)
            .map(|_| {
                let r = s.get(EVENTS);
                assert_eq!(r.status, 200, "{}", r.text());
                r.json()
            })
            .collect();
        writing.store(false, Ordering::Relaxed);
        (lists, writer.join().expect("writer"))
    });
    assert!(written > 0, "the writer ran while the lists were read");
    for list in &whole {
        let rv = list["metadata"]["resourceVersion"]
            .as_str()
            .expect("resourceVersion");
        assert!(list["metadata"].get("continue").is_none());
        let got = item_names(list);
        // Between a writer's create and its delete there is one more.
        assert!((STORED..=STORED + 1).contains(&got.len()), "{}", got.len());
        assert!(
            got.windows(2).all(|w| w[0] < w[1]),
            "in key order, once each"
        );
        assert_eq!(got, paged_at(&s, rv), "the list at {rv} is its snapshot");
    }
}
