//! The cache's window of versions: reads at every revision it holds, and
//! what moving its start forgets.

use bytes::Bytes;

use super::Memory;
use crate::storage::{Event, EventKind, KeyRange, KeyValue, RangeOptions, Revision};

fn kv(key: &str, value: &str, created: u64, at: u64, version: u64) -> KeyValue {
    KeyValue {
        key: Bytes::copy_from_slice(key.as_bytes()),
        value: Bytes::copy_from_slice(value.as_bytes()),
        create_revision: Revision(created),
        mod_revision: Revision(at),
        version,
        lease: None,
    }
}

fn put(kv: KeyValue) -> Event {
    Event {
        kind: EventKind::Put,
        key: kv.key.clone(),
        revision: kv.mod_revision,
        kv: Some(kv),
        prev: None,
    }
}

fn delete(key: &str, at: u64) -> Event {
    Event {
        kind: EventKind::Delete,
        key: Bytes::copy_from_slice(key.as_bytes()),
        revision: Revision(at),
        kv: None,
        prev: None,
    }
}

fn values(memory: &Memory, at: u64) -> Vec<String> {
    memory
        .range(
            &KeyRange::prefix(b"/r/"),
            &RangeOptions::default(),
            Revision(at),
        )
        .items
        .iter()
        .map(|kv| String::from_utf8_lossy(&kv.value).into_owned())
        .collect()
}

/// `/r/a` = a1 and `/r/b` = b1 at 10; then a2 at 11, b deleted at 12,
/// c1 at 13, a3 at 14.
fn sample() -> Memory {
    let mut memory = Memory::loaded(
        Revision(10),
        vec![kv("/r/a", "a1", 5, 5, 1), kv("/r/b", "b1", 7, 7, 1)],
    );
    memory.apply(&[put(kv("/r/a", "a2", 5, 11, 2))]);
    memory.apply(&[delete("/r/b", 12), put(kv("/r/c", "c1", 13, 13, 1))]);
    memory.apply(&[put(kv("/r/a", "a3", 5, 14, 3))]);
    memory
}

#[test]
fn every_revision_in_the_window_reads_as_it_was() {
    let memory = sample();
    assert_eq!(
        (memory.oldest(), memory.revision()),
        (Revision(10), Revision(14))
    );
    assert_eq!(values(&memory, 10), ["a1", "b1"]);
    assert_eq!(values(&memory, 11), ["a2", "b1"]);
    assert_eq!(values(&memory, 12), ["a2"]);
    assert_eq!(values(&memory, 13), ["a2", "c1"]);
    assert_eq!(values(&memory, 14), ["a3", "c1"]);
    let a = memory.get(b"/r/a", Revision(14)).unwrap();
    assert_eq!(
        (a.version, a.create_revision, a.mod_revision),
        (3, Revision(5), Revision(14))
    );
    assert!(memory.get(b"/r/b", Revision(12)).is_none());
    assert!(
        memory.holds(Revision(10)) && !memory.holds(Revision(9)) && !memory.holds(Revision(15))
    );
}

#[test]
fn events_already_applied_are_skipped() {
    let mut memory = sample();
    memory.apply(&[put(kv("/r/a", "stale", 5, 13, 9))]);
    assert_eq!(values(&memory, 14), ["a3", "c1"]);
}

#[test]
fn limits_more_and_counts_as_the_backend_answers() {
    let memory = sample();
    let at = Revision(13);
    let range = KeyRange::prefix(b"/r/");
    let page = memory.range(
        &range,
        &RangeOptions {
            limit: 1,
            ..RangeOptions::default()
        },
        at,
    );
    assert_eq!((page.items.len(), page.more, page.count), (1, true, 2));
    let counted = RangeOptions {
        limit: 1,
        count_total: true,
        ..RangeOptions::default()
    };
    assert_eq!(memory.range(&range, &counted, at).count, 2);
    let only = RangeOptions {
        count_only: true,
        ..RangeOptions::default()
    };
    let page = memory.range(&range, &only, at);
    assert!(page.items.is_empty());
    assert_eq!(page.count, 2);
    let keys = RangeOptions {
        keys_only: true,
        ..RangeOptions::default()
    };
    let page = memory.range(&range, &keys, at);
    assert!(page.items.iter().all(|kv| kv.value.is_empty()));
    assert_eq!(page.items[1].key, "/r/c");
    let rest = memory.range(
        &KeyRange::between(b"/r/b", b""),
        &RangeOptions::default(),
        at,
    );
    assert_eq!(rest.items.len(), 1, "an open end reads to the last key");
}

#[test]
fn moving_the_start_forgets_only_what_no_read_from_it_sees() {
    let mut memory = sample();
    memory.forget_before(Revision(12));
    assert_eq!(memory.oldest(), Revision(12));
    assert_eq!(values(&memory, 12), ["a2"]);
    assert_eq!(values(&memory, 14), ["a3", "c1"]);
    memory.forget_before(Revision(11));
    assert_eq!(memory.oldest(), Revision(12), "the start never moves back");
    memory.forget_before(Revision(99));
    assert_eq!(memory.oldest(), Revision(14), "nor past what is applied");
    assert_eq!(memory.keys.get(&b"/r/a"[..]).map(Vec::len), Some(1));
    assert!(
        !memory.keys.contains_key(&b"/r/b"[..]),
        "a deletion seen by every read goes"
    );
    assert_eq!(memory.live(), 2);
}

#[test]
fn a_progress_report_moves_the_newest_revision() {
    let mut memory = sample();
    memory.reached(Revision(20));
    assert_eq!(values(&memory, 20), ["a3", "c1"]);
    memory.reached(Revision(3));
    assert_eq!(memory.revision(), Revision(20));
}

#[test]
fn the_changes_to_a_later_read_are_each_key_as_it_is_now() {
    // The sample at 14 (a3, c1); a later read at 20 finds a rewritten,
    // c gone, d new, and the tombstone of b still gone.
    let memory = sample();
    let later = Memory::loaded(
        Revision(20),
        vec![kv("/r/a", "a5", 5, 18, 5), kv("/r/d", "d1", 16, 16, 1)],
    );
    let changes: Vec<(String, EventKind, u64, Option<String>)> = memory
        .changes_to(&later)
        .iter()
        .map(|e| {
            (
                String::from_utf8_lossy(&e.key).into_owned(),
                e.kind,
                e.revision.get(),
                e.prev
                    .as_ref()
                    .map(|p| String::from_utf8_lossy(&p.value).into_owned()),
            )
        })
        .collect();
    assert_eq!(
        changes,
        [
            ("/r/d".into(), EventKind::Put, 16, None),
            ("/r/a".into(), EventKind::Put, 18, Some("a3".into())),
            ("/r/c".into(), EventKind::Delete, 20, Some("c1".into())),
        ]
    );
    assert!(
        sample().changes_to(&sample()).is_empty(),
        "nothing changed, nothing to send"
    );
}
