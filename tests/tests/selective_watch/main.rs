//! Selective watches against the real binary: watchers with label and field
//! selectors get exactly the events of the objects they select — under
//! concurrent writers, across transitions into and out of their selection,
//! when resumed from a resourceVersion, and in either framing. Expected
//! streams come from a client-side model (`cairn_tests::selection`) applied
//! to an unfiltered watch of the same history.

mod fanout;
mod resume;
mod set_based;
mod transitions;

use cairn_tests::selection::{Change, rv, summary};
use cairn_tests::{Server, WatchStream};

/// The collection's current revision (from a list).
fn current_rv(s: &Server, collection: &str) -> u64 {
    let r = s.get(collection);
    assert_eq!(r.status, 200, "{collection}: {}", r.text());
    rv(&r.json())
}

/// The next `n` events of a live watch, BOOKMARKs left out.
fn read_n(w: &mut WatchStream, n: usize, what: &str) -> Vec<Change> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let e = w.next_event().unwrap_or_else(|| {
            panic!(
                "{what}: the stream ended after {} of {n} events: {:?}",
                out.len(),
                summary(&out)
            )
        });
        let ty = e["type"].as_str().expect("type").to_string();
        assert_ne!(ty, "ERROR", "{what}: {e}");
        if ty != "BOOKMARK" {
            out.push((ty, e["object"].clone()));
        }
    }
    out
}

/// The events of an unfiltered live watch up to and including revision
/// `to` (which the caller knows was written).
fn read_until(w: &mut WatchStream, to: u64) -> Vec<Change> {
    let mut out: Vec<Change> = Vec::new();
    while out.last().is_none_or(|(_, o)| rv(o) < to) {
        out.extend(read_n(w, 1, "the unfiltered watch"));
    }
    out
}

/// The events of a watch (`path` without timeout or bookmark parameters)
/// with revisions up to `to`: read from a watch that ends by
/// `timeoutSeconds` with its closing BOOKMARK, which says how far it got;
/// a longer one is tried while that is short of `to`.
fn watch_window(s: &Server, path: &str, to: u64) -> Vec<Change> {
    for seconds in [1, 2, 4, 8, 16] {
        let r = s.get(&format!(
            "{path}&allowWatchBookmarks=true&timeoutSeconds={seconds}"
        ));
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        let lines: Vec<serde_json::Value> = r
            .body
            .split(|b| *b == b'\n')
            .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
            .map(|l| serde_json::from_slice(l).expect("a JSON watch event"))
            .collect();
        let reached = lines
            .iter()
            .rev()
            .find(|e| e["type"] == "BOOKMARK")
            .map(|b| rv(&b["object"]));
        if reached.is_some_and(|r| r >= to) {
            return cairn_tests::selection::watch_body_changes(&r.body)
                .into_iter()
                .filter(|(_, o)| rv(o) <= to)
                .collect();
        }
    }
    panic!("{path}: no watch reached revision {to}");
}

/// Asserts two event streams are the same: types, names and revisions
/// first (a readable diff), then the whole objects.
fn assert_same(what: &str, got: &[Change], want: &[Change]) {
    assert_eq!(summary(got), summary(want), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g, w, "{what}: the objects carried");
    }
}
