//! History: TTL expiry, status, compaction.

use std::time::Duration;

use super::{Case, next_events};
use crate::storage::{EventKind, KeyRange, RangeOptions, StorageError, Txn};

/// A key written with a TTL carries a lease and is deleted once it has
/// passed, as an ordinary delete event with the previous record.
pub async fn ttl_expiry_is_a_delete_event(c: &Case<'_>) {
    let from = c.current().await;
    let mut watch = c.storage.watch(KeyRange::prefix(c.prefix()), from);
    let written = c
        .commit(
            Txn::new()
                .put_with_ttl(c.key("short"), "bye", Duration::from_secs(1))
                .put(c.key("stays"), "hi"),
        )
        .await;
    let short = c
        .storage
        .get(&c.key("short"), None)
        .await
        .expect("get")
        .kv
        .expect("present");
    assert!(short.lease.is_some(), "a TTL key is attached to a lease");
    let stays = c
        .storage
        .get(&c.key("stays"), None)
        .await
        .expect("get")
        .kv
        .expect("present");
    assert_eq!(stays.lease, None);
    let events = next_events(&mut watch, 3).await;
    let expiry = &events[2];
    assert_eq!(
        (expiry.kind, expiry.key.to_vec()),
        (EventKind::Delete, c.key("short")),
        "expiry is a delete"
    );
    assert!(expiry.revision > written, "at a new revision");
    let prev = expiry.prev.as_ref().expect("with the expired record");
    assert_eq!(&prev.value[..], b"bye");
    assert_eq!(
        c.storage.get(&c.key("short"), None).await.expect("get").kv,
        None
    );
    assert!(
        c.storage
            .get(&c.key("stays"), None)
            .await
            .expect("get")
            .kv
            .is_some()
    );
}

/// Status agrees with what was written.
pub async fn status_reports_revisions_and_size(c: &Case<'_>) {
    let rev = c.put("s", "some bytes").await;
    let status = c.storage.status().await.expect("status");
    assert!(status.current_revision >= rev);
    assert!(status.compacted_revision < rev);
    assert!(status.keys >= 1 && status.size_bytes > 0, "{status:?}");
}

/// Compaction: reads and watches below the compaction point fail with
/// `Compacted`; the newest version at or below it stays readable.
pub async fn compaction_forgets_older_revisions(c: &Case<'_>) {
    let r1 = c.put("c", "1").await;
    let r2 = c.put("c", "2").await;
    let r3 = c.put("c", "3").await;
    c.storage.compact(r2).await.expect("compact");
    let compacted = |e: StorageError| match e {
        StorageError::Compacted {
            requested,
            compacted,
        } => {
            assert_eq!((requested, compacted), (r1, r2));
        }
        other => panic!("expected Compacted, got {other:?}"),
    };
    compacted(
        c.storage
            .get(&c.key("c"), Some(r1))
            .await
            .expect_err("compacted get"),
    );
    let opts = RangeOptions {
        at: Some(r1),
        ..RangeOptions::default()
    };
    compacted(
        c.storage
            .range(KeyRange::prefix(c.prefix()), opts)
            .await
            .expect_err("compacted range"),
    );
    let kept = c
        .storage
        .get(&c.key("c"), Some(r2))
        .await
        .expect("at the compaction point");
    assert_eq!(&kept.kv.expect("present").value[..], b"2");
    let status = c.storage.status().await.expect("status");
    assert_eq!(status.compacted_revision, r2);
    let mut watch = c.storage.watch(KeyRange::prefix(c.prefix()), r1);
    match watch.next_batch().await {
        Some(Err(StorageError::Compacted { .. })) => {}
        other => panic!("a watch from a compacted revision: {other:?}"),
    }
    let mut fine = c.storage.watch(KeyRange::prefix(c.prefix()), r2);
    assert_eq!(next_events(&mut fine, 1).await[0].revision, r3);
}
