//! A non-identity transformer through every path: the conformance suite
//! passes through it, stored bytes are really transformed, and values that
//! cannot be transformed back are errors naming their key.

use std::sync::Arc;

use cairn_transform::{Transformers, XOR_MARK, Xor};

use super::TransformingStorage;
use crate::storage::embedded::Embedded;
use crate::storage::{
    EventKind, Guard, KeyRange, RangeOptions, Revision, Storage, StorageError, Txn, conformance,
};

fn open(dir: &std::path::Path, prefix: &str) -> (Arc<dyn Storage>, TransformingStorage) {
    let raw: Arc<dyn Storage> = Arc::new(Embedded::open(dir).expect("open"));
    let t = Transformers::identity().with(prefix, Arc::new(Xor));
    let storage = TransformingStorage::new(Arc::clone(&raw), t);
    (raw, storage)
}

#[tokio::test]
async fn the_conformance_suite_passes_through_a_transformer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_raw, storage) = open(dir.path(), "/conformance/");
    conformance::run_all(&storage, b"/conformance/").await;
    storage.close();
}

#[tokio::test]
async fn values_are_transformed_on_disk_and_back_on_every_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (raw, s) = open(dir.path(), "/registry/secrets/");
    let key = b"/registry/secrets/ns/a".to_vec();
    let plain_key = b"/registry/configmaps/ns/a".to_vec();
    let from = s.current_revision().await.expect("rev");
    let mut watch = s.watch(KeyRange::prefix(b"/registry/"), from);
    let r1 = s
        .commit(
            Txn::new()
                .put(key.clone(), "one")
                .put(plain_key.clone(), "plain"),
        )
        .await
        .expect("put")
        .revision;
    let stored = raw.get(&key, None).await.expect("raw").kv.expect("present");
    assert!(
        stored.value.starts_with(XOR_MARK) && !stored.value.ends_with(b"one"),
        "{stored:?}"
    );
    let untouched = raw
        .get(&plain_key, None)
        .await
        .expect("raw")
        .kv
        .expect("present");
    assert_eq!(
        &untouched.value[..],
        b"plain",
        "other prefixes are stored as written"
    );
    let value = |r: Option<crate::storage::KeyValue>| r.map(|kv| kv.value.to_vec());
    assert_eq!(
        value(s.get(&key, None).await.expect("get").kv),
        Some(b"one".to_vec())
    );
    let r2 = s
        .commit(
            Txn::new()
                .guard(Guard::ModRevision(key.clone(), r1))
                .put(key.clone(), "two"),
        )
        .await
        .expect("update")
        .revision;
    let page = s
        .range(KeyRange::prefix(b"/registry/"), RangeOptions::default())
        .await
        .expect("range");
    let values: Vec<&[u8]> = page.items.iter().map(|kv| &kv.value[..]).collect();
    assert_eq!(values, vec![&b"plain"[..], &b"two"[..]]);
    let old = s
        .get(&key, Some(r1))
        .await
        .expect("old")
        .kv
        .expect("present");
    assert_eq!(&old.value[..], b"one", "reads at a revision too");
    let e = s
        .commit(
            Txn::new()
                .guard(Guard::ModRevision(key.clone(), r1))
                .delete(key.clone()),
        )
        .await
        .expect_err("stale");
    match e {
        StorageError::Conflict { current, .. } => assert_eq!(&current.value[..], b"two"),
        other => panic!("{other:?}"),
    }
    s.commit(Txn::new().delete(key.clone()))
        .await
        .expect("delete");
    let mut events = Vec::new();
    while events.len() < 4 {
        let batch = watch.next_batch().await.expect("open").expect("batch");
        events.extend(batch.iter().cloned());
    }
    type Seen = (EventKind, Option<Vec<u8>>, Option<Vec<u8>>);
    let seen: Vec<Seen> = events
        .into_iter()
        .filter(|e| e.key[..] == key[..])
        .map(|e| (e.kind, value(e.kv), value(e.prev)))
        .collect();
    assert_eq!(
        seen,
        vec![
            (EventKind::Put, Some(b"one".to_vec()), None),
            (EventKind::Put, Some(b"two".to_vec()), Some(b"one".to_vec())),
            (EventKind::Delete, None, Some(b"two".to_vec())),
        ],
        "watch values and previous values"
    );
    assert!(r2 > r1);
    s.close();
}

#[tokio::test]
async fn a_batch_is_transformed_once_for_every_watcher() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_raw, s) = open(dir.path(), "/t/");
    let from = s.current_revision().await.expect("rev");
    let mut watchers: Vec<_> = (0..3)
        .map(|_| s.watch(KeyRange::prefix(b"/t/"), from))
        .collect();
    // Live watchers share the commit's batch (history is read per watcher).
    for w in &mut watchers {
        assert!(w.try_next_batch().is_none(), "nothing yet");
    }
    s.commit(Txn::new().put("/t/a", "1").put("/t/b", "2"))
        .await
        .expect("put");
    let mut batches = Vec::new();
    for w in &mut watchers {
        batches.push(w.next_batch().await.expect("open").expect("batch"));
    }
    let first = batches[0].all().as_ptr();
    assert!(
        batches
            .iter()
            .all(|b| std::ptr::eq(b.all().as_ptr(), first)),
        "one shared copy"
    );
    assert_eq!(
        &batches[2].all()[1].kv.as_ref().expect("kv").value[..],
        b"2"
    );
    s.close();
}

#[tokio::test]
async fn values_that_do_not_transform_back_are_errors_naming_the_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (raw, s) = open(dir.path(), "/t/");
    let from = s.current_revision().await.expect("rev");
    let mut watch = s.watch(KeyRange::prefix(b"/t/"), from);
    raw.commit(Txn::new().put("/t/bad", "unmarked"))
        .await
        .expect("raw put");
    let corrupt = |e: StorageError| match e {
        StorageError::CorruptValue { key, .. } => assert_eq!(&key[..], b"/t/bad"),
        other => panic!("expected CorruptValue, got {other:?}"),
    };
    corrupt(s.get(b"/t/bad", None).await.expect_err("get"));
    corrupt(
        s.range(KeyRange::prefix(b"/t/"), RangeOptions::default())
            .await
            .expect_err("range"),
    );
    let keys = s
        .range(
            KeyRange::prefix(b"/t/"),
            RangeOptions {
                keys_only: true,
                ..RangeOptions::default()
            },
        )
        .await
        .expect("keys need no transform");
    assert_eq!(keys.items.len(), 1);
    corrupt(watch.next_batch().await.expect("open").expect_err("watch"));
    assert!(watch.next_batch().await.is_none(), "the watch ended");
    assert_eq!(
        s.current_revision().await.expect("rev"),
        Revision(from.get() + 1)
    );
    s.close();
}

#[tokio::test]
async fn an_unreadable_value_deleted_is_a_delete_event_without_its_value() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (raw, s) = open(dir.path(), "/t/");
    raw.commit(Txn::new().put("/t/bad", "unmarked"))
        .await
        .expect("raw put");
    let from = s.current_revision().await.expect("rev");
    let mut watch = s.watch(KeyRange::prefix(b"/t/"), from);
    s.commit(Txn::new().delete("/t/bad")).await.expect("delete");
    let batch = watch.next_batch().await.expect("open").expect("batch");
    let event = batch.iter().next().expect("an event");
    assert_eq!(event.kind, EventKind::Delete);
    let prev = event.prev.as_ref().expect("previous record");
    assert!(prev.value.is_empty(), "{prev:?}");
    s.close();
}

#[tokio::test]
async fn replaced_transformers_apply_to_later_calls() {
    let dir = tempfile::tempdir().expect("tempdir");
    let raw: Arc<dyn Storage> = Arc::new(Embedded::open(dir.path()).expect("open"));
    let shared = Arc::new(super::SharedTransformers::new(Transformers::identity()));
    let s = TransformingStorage::shared(Arc::clone(&raw), Arc::clone(&shared));
    s.commit(Txn::new().put("/t/a", "plain"))
        .await
        .expect("put");
    shared.replace(Transformers::identity().with("/t/", Arc::new(Xor)));
    s.commit(Txn::new().put("/t/b", "hidden"))
        .await
        .expect("put");
    let stored = raw.get(b"/t/b", None).await.expect("raw").kv.expect("b");
    assert!(stored.value.starts_with(XOR_MARK));
    let read = s.get(b"/t/b", None).await.expect("get").kv.expect("b");
    assert_eq!(&read.value[..], b"hidden");
    s.close();
}
