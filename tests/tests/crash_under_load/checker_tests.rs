//! The campaign's checks reject what they exist to catch: a lost or
//! altered acknowledged write, a half-applied or resurrected request, and
//! watch streams with a gap, a duplicate or events out of order.

use super::kinds::Kind;
use super::ledger::{After, Ledger, Object, State};
use super::watching::{Event, Watch};

fn present(rv: u64, content: &str) -> State {
    State::Present {
        rv,
        content: content.to_string(),
        terminating: false,
    }
}

fn acknowledged(state: State) -> Object {
    let mut o = Object::new(Kind::ConfigMap, false);
    o.settle(state);
    o
}

#[test]
fn a_lost_or_altered_acknowledged_write_is_an_anomaly() {
    for found in [
        State::Absent,
        present(5, "b"),
        present(6, "a"),
        present(4, "a"),
    ] {
        let mut o = acknowledged(present(5, "a"));
        assert!(o.reconcile("k0-o1", found.clone()).is_some(), "{found:?}");
    }
    let mut o = acknowledged(present(5, "a"));
    assert_eq!(o.reconcile("k0-o1", present(5, "a")), None);
}

#[test]
fn a_cut_off_request_leaves_its_object_before_or_after_and_nothing_else() {
    let pending = |after: After| {
        let mut o = acknowledged(present(5, "a"));
        o.pending = Some(after);
        o
    };
    let write = || After::Present {
        content: "b".into(),
        terminating: false,
    };
    assert_eq!(pending(write()).reconcile("x", present(5, "a")), None);
    assert_eq!(pending(write()).reconcile("x", present(9, "b")), None);
    // Not newer than the acknowledged version, another content, or marked
    // terminating by a plain write: half applied or invented.
    assert!(pending(write()).reconcile("x", present(5, "b")).is_some());
    assert!(pending(write()).reconcile("x", present(9, "c")).is_some());
    let terminating = State::Present {
        rv: 9,
        content: "b".into(),
        terminating: true,
    };
    assert!(pending(write()).reconcile("x", terminating).is_some());
    assert!(pending(write()).reconcile("x", State::Absent).is_some());
    let mut deleted = pending(After::Absent);
    assert_eq!(deleted.reconcile("x", State::Absent), None);
    assert!(deleted.deleted, "a durable delete owes a DELETED event");
}

fn event(kind: &str, name: &str, rv: u64, content: &str) -> Event {
    Event {
        kind: kind.into(),
        name: name.into(),
        rv,
        content: content.into(),
    }
}

fn watch(events: Vec<Event>) -> Watch {
    let mut w = Watch::new(Kind::ConfigMap, 1);
    w.events = events;
    w
}

fn ledger() -> Ledger {
    let mut l = Ledger::default();
    let mut o = acknowledged(present(3, "a"));
    o.settle(present(4, "b"));
    o.settle(State::Absent);
    l.objects.insert("k0-o1".into(), o);
    l
}

#[test]
fn a_complete_ordered_stream_passes() {
    let w = watch(vec![
        event("ADDED", "k0-o1", 3, "a"),
        event("MODIFIED", "k0-o1", 4, "b"),
        event("DELETED", "k0-o2", 5, ""),
        event("DELETED", "k0-o1", 5, "b"),
    ]);
    assert_eq!(w.order_anomalies(), Vec::<String>::new());
    assert_eq!(w.completeness_anomalies(&[&ledger()]), Vec::<String>::new());
}

#[test]
fn gaps_duplicates_and_disorder_are_anomalies() {
    let gap = watch(vec![
        event("ADDED", "k0-o1", 3, "a"),
        event("DELETED", "k0-o1", 5, "b"),
    ]);
    assert_eq!(gap.completeness_anomalies(&[&ledger()]).len(), 1);
    let no_delete = watch(vec![
        event("ADDED", "k0-o1", 3, "a"),
        event("MODIFIED", "k0-o1", 4, "b"),
    ]);
    assert_eq!(no_delete.completeness_anomalies(&[&ledger()]).len(), 1);
    let wrong_content = watch(vec![
        event("ADDED", "k0-o1", 3, "a"),
        event("MODIFIED", "k0-o1", 4, "c"),
        event("DELETED", "k0-o1", 5, "c"),
    ]);
    assert_eq!(wrong_content.completeness_anomalies(&[&ledger()]).len(), 1);
    let duplicate = watch(vec![
        event("ADDED", "k0-o1", 3, "a"),
        event("MODIFIED", "k0-o1", 4, "b"),
        event("MODIFIED", "k0-o1", 4, "b"),
    ]);
    assert!(!duplicate.order_anomalies().is_empty());
    let disorder = watch(vec![
        event("MODIFIED", "k0-o1", 4, "b"),
        event("ADDED", "k0-o1", 3, "a"),
    ]);
    assert_eq!(disorder.order_anomalies().len(), 1);
}

#[test]
fn only_a_graceful_deletion_may_end_without_the_client() {
    let marked = State::Present {
        rv: 5,
        content: "a".into(),
        terminating: true,
    };
    let mut pod = Object::new(Kind::Pod, false);
    pod.settle(marked.clone());
    assert_eq!(pod.reconcile("p", State::Absent), None);
    assert!(pod.deleted, "the server's delete owes a DELETED event");
    let mut held = Object::new(Kind::ConfigMap, true);
    held.settle(marked);
    assert!(held.reconcile("c", State::Absent).is_some());
    let mut unmarked_pod = acknowledged(present(5, "a"));
    unmarked_pod.graceful = true;
    assert!(unmarked_pod.reconcile("p", State::Absent).is_some());
}
