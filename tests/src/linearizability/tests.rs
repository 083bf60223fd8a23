//! The checker on hand-made histories of the register model.

use super::register::{Answer, Op, Register, Request};
use super::{Call, check, check_by_key};

fn call(client: usize, span: (u64, u64), request: Request, answer: Answer) -> Call<Op> {
    on("k", client, span, request, answer)
}

fn on(key: &str, client: usize, span: (u64, u64), request: Request, answer: Answer) -> Call<Op> {
    Call {
        client,
        invoked: span.0,
        returned: span.1,
        op: Op {
            key: key.into(),
            request,
            answer,
        },
    }
}

fn create(content: &str) -> Request {
    Request::Create {
        content: content.into(),
    }
}

fn put(content: &str, precondition: Option<u64>) -> Request {
    Request::Update {
        content: content.into(),
        precondition,
        create_if_missing: true,
    }
}

fn patch(content: &str, precondition: Option<u64>) -> Request {
    Request::Update {
        content: content.into(),
        precondition,
        create_if_missing: false,
    }
}

fn delete(precondition: Option<u64>) -> Request {
    Request::Delete { precondition }
}

fn read(rv: u64, content: &str) -> Answer {
    Answer::Read {
        rv,
        content: content.into(),
    }
}

fn linearizable(calls: &[Call<Op>]) -> bool {
    let mut sorted = calls.to_vec();
    sorted.sort_by_key(|c| c.invoked);
    check(&Register, &sorted).is_ok()
}

#[test]
fn a_linearizable_history_passes() {
    let history = [
        call(0, (0, 10), create("a"), Answer::Created(5)),
        // Overlaps the create, so it may come first.
        call(1, (5, 15), Request::Get, Answer::NotFound),
        call(2, (12, 20), Request::Get, read(5, "a")),
        // A conditional update and a delete racing: the update came first.
        call(0, (30, 50), put("b", Some(5)), Answer::Written(7)),
        call(1, (35, 45), delete(None), Answer::Deleted),
        call(2, (40, 60), Request::Get, Answer::NotFound),
        call(3, (62, 64), patch("x", Some(7)), Answer::NotFound),
        // Two PUTs on the missing object: one creates, the other updates.
        call(3, (70, 90), put("c", None), Answer::Created(9)),
        call(4, (71, 91), put("d", None), Answer::Written(10)),
        call(1, (95, 99), delete(Some(9)), Answer::Conflict),
        call(0, (100, 110), Request::Get, read(10, "d")),
    ];
    assert!(linearizable(&history));
}

#[test]
fn a_conflict_only_a_gone_object_explains_fails() {
    let created = call(0, (0, 10), create("a"), Answer::Created(5));
    let racing_delete = call(1, (22, 30), delete(None), Answer::Deleted);
    // Before the delete it succeeds; after it, there is nothing to conflict with.
    for conditional in [patch("b", Some(5)), put("b", Some(5)), delete(Some(5))] {
        let loser = call(2, (20, 40), conditional, Answer::Conflict);
        let history = [created.clone(), racing_delete.clone(), loser];
        let stuck = check(&Register, &history).expect_err("not linearizable");
        assert_eq!((stuck.order, stuck.next), (vec![0, 1], vec![2]));
    }
    // The same answers are fine when another write changed the version.
    let history = [
        created,
        call(3, (12, 18), patch("z", None), Answer::Written(6)),
        racing_delete,
        call(2, (20, 40), put("b", Some(5)), Answer::Conflict),
    ];
    assert!(linearizable(&history));
}

#[test]
fn a_lost_create_on_update_fails() {
    let history = [
        call(0, (0, 20), put("a", None), Answer::Created(5)),
        call(1, (1, 21), put("b", None), Answer::AlreadyExists),
    ];
    assert!(!linearizable(&history));
    // A plain create may lose that way.
    let history = [
        call(0, (0, 20), put("a", None), Answer::Created(5)),
        call(1, (1, 21), create("b"), Answer::AlreadyExists),
    ];
    assert!(linearizable(&history));
}

#[test]
fn real_time_order_is_kept() {
    let created = call(0, (0, 10), create("a"), Answer::Created(5));
    let overlapping = call(1, (9, 30), Request::Get, Answer::NotFound);
    assert!(linearizable(&[created.clone(), overlapping]));
    let later = call(1, (11, 30), Request::Get, Answer::NotFound);
    assert!(!linearizable(&[created, later]));
}

#[test]
fn stale_reads_and_shrinking_revisions_fail() {
    let created = call(0, (0, 10), create("a"), Answer::Created(5));
    let updated = call(0, (20, 30), patch("b", None), Answer::Written(7));
    let stale = call(1, (40, 50), Request::Get, read(5, "a"));
    assert!(!linearizable(&[created.clone(), updated.clone(), stale]));
    let wrong_content = call(1, (40, 50), Request::Get, read(7, "a"));
    assert!(!linearizable(&[created.clone(), updated, wrong_content]));
    let deleted = call(0, (20, 30), delete(None), Answer::Deleted);
    let recreated_lower = call(0, (40, 50), create("c"), Answer::Created(3));
    assert!(!linearizable(&[created, deleted, recreated_lower]));
}

#[test]
fn memoization_keeps_wide_concurrency_cheap() {
    // Sixteen overlapping reads and a create: 17! orders, but few distinct
    // (linearized set, state) pairs.
    let mut history: Vec<Call<Op>> = (0..16)
        .map(|c| call(c, (c as u64, 100), Request::Get, Answer::NotFound))
        .collect();
    history.push(call(16, (3, 100), create("a"), Answer::Created(5)));
    assert!(linearizable(&history));
    // An impossible answer at the end makes the search try every one.
    history.push(call(17, (200, 210), Request::Get, read(6, "a")));
    assert!(!linearizable(&history));
}

#[test]
fn keys_are_checked_apart_and_violations_described() {
    let history = vec![
        on("good", 0, (0, 10), create("a"), Answer::Created(5)),
        on("bad", 1, (0, 10), create("a"), Answer::Created(6)),
        on("bad", 1, (20, 30), delete(None), Answer::Deleted),
        on("bad", 2, (40, 50), Request::Get, read(6, "a")),
        on("good", 2, (40, 50), Request::Get, read(5, "a")),
    ];
    let violations = check_by_key(&Register, history, |op| op.key.clone());
    assert_eq!(violations.len(), 1);
    assert_eq!(violations[0].key, "bad");
    let text = violations[0].describe(10);
    assert!(text.contains("orders 2 of them"), "{text}");
    assert!(text.contains("get → 200 rv=6 \"a\""), "{text}");
}
