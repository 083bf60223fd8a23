//! Watches: order, previous values, resuming after a revision, ranges.

use super::{Case, next_events};
use crate::storage::{EventKind, KeyRange, Revision, Txn};

/// Puts, updates and deletes arrive in revision order, each with the
/// record it replaced.
pub async fn events_arrive_in_order_with_previous_values(c: &Case<'_>) {
    let from = c.current().await;
    let mut watch = c.storage.watch(KeyRange::prefix(c.prefix()), from);
    let r1 = c.put("a", "1").await;
    let r2 = c.put("a", "2").await;
    let r3 = c.commit(Txn::new().delete(c.key("a"))).await;
    let r4 = c
        .commit(Txn::new().put(c.key("b"), "x").put(c.key("c"), "y"))
        .await;
    let events = next_events(&mut watch, 5).await;
    let seen: Vec<(EventKind, Revision, Vec<u8>)> = events
        .iter()
        .map(|e| (e.kind, e.revision, e.key.to_vec()))
        .collect();
    assert_eq!(
        seen,
        vec![
            (EventKind::Put, r1, c.key("a")),
            (EventKind::Put, r2, c.key("a")),
            (EventKind::Delete, r3, c.key("a")),
            (EventKind::Put, r4, c.key("b")),
            (EventKind::Put, r4, c.key("c")),
        ]
    );
    let value = |kv: &Option<crate::storage::KeyValue>| kv.as_ref().map(|kv| kv.value.to_vec());
    assert_eq!(value(&events[0].kv), Some(b"1".to_vec()));
    assert_eq!(
        value(&events[0].prev),
        None,
        "a create has no previous record"
    );
    assert_eq!(
        value(&events[1].prev),
        Some(b"1".to_vec()),
        "an update carries the old value"
    );
    let kv = events[1].kv.as_ref().expect("put record");
    assert_eq!(
        (kv.create_revision, kv.mod_revision, kv.version),
        (r1, r2, 2)
    );
    assert_eq!(events[2].kv, None, "a delete has no new record");
    let prev = events[2]
        .prev
        .as_ref()
        .expect("a delete carries the deleted record");
    assert_eq!((&prev.value[..], prev.mod_revision), (&b"2"[..], r2));
    assert!(watch.progress() >= r4);
}

/// A watch from revision R replays what came after R, then goes live.
pub async fn watches_resume_after_a_revision(c: &Case<'_>) {
    c.put("k", "1").await;
    let mid = c.put("k", "2").await;
    let r3 = c.put("k", "3").await;
    let mut watch = c.storage.watch(KeyRange::prefix(c.prefix()), mid);
    let history = next_events(&mut watch, 1).await;
    assert_eq!(history[0].revision, r3, "only what came after the start");
    assert_eq!(
        history[0].prev.as_ref().map(|kv| &kv.value[..]),
        Some(&b"2"[..]),
        "history carries previous records too"
    );
    let r4 = c.put("k", "4").await;
    let live = next_events(&mut watch, 1).await;
    assert_eq!(live[0].revision, r4, "then live, with no gap");
    let mut again = c.storage.watch(KeyRange::prefix(c.prefix()), r3);
    let resumed = next_events(&mut again, 1).await;
    assert_eq!(
        resumed[0].revision, r4,
        "resuming after the last seen revision repeats nothing"
    );
}

/// A watch sees only keys in its range, even from a shared commit.
pub async fn watches_see_only_their_range(c: &Case<'_>) {
    let from = c.current().await;
    let mut one = c.storage.watch(KeyRange::key(&c.key("one")), from);
    let mut all = c.storage.watch(KeyRange::prefix(c.prefix()), from);
    let rev = c
        .commit(
            Txn::new()
                .put(c.key("one"), "1")
                .put(c.key("one-more"), "2")
                .put(c.key("two"), "3"),
        )
        .await;
    let mine = next_events(&mut one, 1).await;
    assert_eq!(
        (mine[0].key.to_vec(), mine[0].revision),
        (c.key("one"), rev)
    );
    assert_eq!(next_events(&mut all, 3).await.len(), 3);
    let later = c.put("two", "4").await;
    c.put("one", "5").await;
    let next = next_events(&mut one, 1).await;
    assert!(
        next[0].revision > later,
        "the other key's change was skipped"
    );
}
