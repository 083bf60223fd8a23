//! The revision checker on hand-made histories: a consistent one passes,
//! and each kind of bad list or watch history is rejected.

use std::collections::BTreeMap;

use super::{Change, Effect, History, List, Watch, Write, check};

fn put(span: (u64, u64), key: &str, rv: u64, content: &str) -> Write {
    Write {
        invoked: span.0,
        returned: span.1,
        key: key.into(),
        effect: Effect::Put {
            rv,
            content: content.into(),
        },
    }
}

fn change(rv: u64, key: &str, value: Option<&str>) -> Change {
    Change {
        rv,
        key: key.into(),
        value: value.map(Into::into),
    }
}

fn list(span: (u64, u64), rv: u64, items: &[(&str, u64, &str)]) -> List {
    List {
        invoked: span.0,
        returned: span.1,
        exact: None,
        rv,
        items: items
            .iter()
            .map(|(k, rv, v)| ((*k).to_string(), (*rv, (*v).to_string())))
            .collect::<BTreeMap<_, _>>(),
    }
}

fn watch(from: u64, through: u64, events: Vec<Change>) -> Watch {
    Watch {
        name: "w".into(),
        from,
        through,
        events,
    }
}

/// a=1 at 10, b=1 at 11, a deleted at 12, b=2 at 13; lists in between.
fn consistent() -> History {
    let events = vec![
        change(10, "a", Some("a1")),
        change(11, "b", Some("b1")),
        change(12, "a", None),
        change(13, "b", Some("b2")),
    ];
    History {
        writes: vec![
            put((0, 10), "a", 10, "a1"),
            put((20, 30), "b", 11, "b1"),
            Write {
                invoked: 40,
                returned: 50,
                key: "a".into(),
                effect: Effect::Delete,
            },
            put((60, 70), "b", 13, "b2"),
        ],
        lists: vec![
            list((31, 35), 11, &[("a", 10, "a1"), ("b", 11, "b1")]),
            list((51, 55), 12, &[("b", 11, "b1")]),
            list((71, 75), 13, &[("b", 13, "b2")]),
        ],
        watches: vec![
            watch(9, 13, events.clone()),
            watch(11, 13, events[2..].to_vec()),
        ],
    }
}

#[test]
fn a_consistent_history_passes() {
    assert_eq!(check(&consistent()), Vec::<String>::new());
}

#[test]
fn a_list_missing_a_write_at_or_below_its_revision_is_rejected() {
    let mut h = consistent();
    h.lists[0] = list((31, 35), 11, &[("a", 10, "a1")]);
    assert!(!check(&h).is_empty());
}

#[test]
fn a_list_showing_a_later_write_is_rejected() {
    let mut h = consistent();
    h.lists[1] = list((51, 55), 12, &[("b", 13, "b2")]);
    assert!(!check(&h).is_empty());
}

#[test]
fn a_list_at_a_revision_older_than_a_finished_write_is_rejected() {
    // The state is right for revision 10, but b's write at 11 finished
    // before the list began: a stale read.
    let mut h = consistent();
    h.lists[0] = list((31, 35), 10, &[("a", 10, "a1")]);
    let anomalies = check(&h);
    assert!(
        anomalies.iter().any(|a| a.contains("finished before")),
        "{anomalies:?}"
    );
}

#[test]
fn lists_going_back_in_revision_are_rejected() {
    let mut h = consistent();
    h.lists
        .push(list((56, 58), 11, &[("a", 10, "a1"), ("b", 11, "b1")]));
    assert!(!check(&h).is_empty());
}

#[test]
fn a_write_revision_against_real_time_is_rejected() {
    let mut h = consistent();
    // Began after the write at 13 finished, yet stored below it.
    h.writes.push(put((80, 90), "c", 12, "c1"));
    assert!(!check(&h).is_empty());
}

#[test]
fn a_watch_with_a_gap_is_rejected() {
    let mut h = consistent();
    h.watches[1].events.remove(0);
    let anomalies = check(&h);
    assert!(
        anomalies.iter().any(|a| a.contains("never delivered")),
        "{anomalies:?}"
    );
}

#[test]
fn a_watch_repeating_an_event_is_rejected() {
    let mut h = consistent();
    let again = h.watches[1].events[1].clone();
    h.watches[1].events.push(again);
    assert!(!check(&h).is_empty());
}

#[test]
fn a_watch_out_of_order_is_rejected() {
    let mut h = consistent();
    h.watches[0].events.swap(1, 2);
    assert!(!check(&h).is_empty());
}

#[test]
fn a_watch_delivering_from_before_its_start_is_rejected() {
    let mut h = consistent();
    h.watches[1].events.insert(0, change(11, "b", Some("b1")));
    assert!(!check(&h).is_empty());
}

#[test]
fn watches_disagreeing_on_a_revision_are_rejected() {
    let mut h = consistent();
    h.watches[1].events[1] = change(13, "b", Some("b1"));
    assert!(!check(&h).is_empty());
}

#[test]
fn an_event_with_content_nobody_wrote_is_rejected() {
    let mut h = consistent();
    h.watches[0].events.push(change(14, "c", Some("ghost")));
    h.watches[0].through = 14;
    assert!(!check(&h).is_empty());
}

#[test]
fn an_exact_list_answered_at_another_revision_is_rejected() {
    let mut h = consistent();
    let mut l = list((80, 85), 11, &[("a", 10, "a1"), ("b", 11, "b1")]);
    l.exact = Some(11);
    h.lists.push(l.clone());
    assert_eq!(check(&h), Vec::<String>::new());
    l.exact = Some(10);
    h.lists.push(l);
    assert!(!check(&h).is_empty());
}

#[test]
fn a_list_missing_a_finished_delete_is_rejected() {
    // The delete of a finished at 50; a list begun later, at revision 11,
    // still shows a (the log puts the delete at 12, past the list).
    let mut h = consistent();
    h.lists[1] = list((51, 55), 11, &[("a", 10, "a1"), ("b", 11, "b1")]);
    let anomalies = check(&h);
    assert!(
        anomalies.iter().any(|a| a.contains("delete")),
        "{anomalies:?}"
    );
}

#[test]
fn an_acknowledged_delete_nowhere_in_the_log_is_rejected() {
    let mut h = consistent();
    for w in &mut h.watches {
        w.events.retain(|e| e.value.is_some());
    }
    h.lists.truncate(1);
    let anomalies = check(&h);
    assert_eq!(anomalies.len(), 1, "{anomalies:?}");
    assert!(
        anomalies[0].contains("no delete of its key"),
        "{anomalies:?}"
    );
}
