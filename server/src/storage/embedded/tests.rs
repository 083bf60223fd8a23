//! The embedded backend against the conformance suite, on a real data
//! directory.

use super::Embedded;
use crate::storage::{KeyRange, Storage, Txn, conformance};

#[tokio::test]
async fn the_embedded_backend_passes_the_conformance_suite() {
    let dir = tempfile::tempdir().expect("tempdir");
    let storage = Embedded::open(dir.path()).expect("open");
    conformance::run_all(&storage, b"/conformance/").await;
    storage.close();
    assert!(storage.health().is_err(), "closed");
}

/// The engine hands every live watcher one batch; the conversion to the
/// boundary's events happens once and is shared too.
#[tokio::test]
async fn live_watchers_share_one_converted_batch() {
    let dir = tempfile::tempdir().expect("tempdir");
    let storage = Embedded::open(dir.path()).expect("open");
    let from = storage.current_revision().await.expect("rev");
    let mut a = storage.watch(KeyRange::prefix(b"/a/"), from);
    let mut all = storage.watch(KeyRange::prefix(b"/"), from);
    assert!(a.try_next_batch().is_none() && all.try_next_batch().is_none());
    storage
        .commit(Txn::new().put("/a/1", "x").put("/b/1", "y"))
        .await
        .expect("commit");
    let mine = a.next_batch().await.expect("open").expect("batch");
    let every = all.next_batch().await.expect("open").expect("batch");
    assert!(std::ptr::eq(mine.all().as_ptr(), every.all().as_ptr()));
    assert!(!mine.is_whole() && every.is_whole());
    let keys: Vec<&[u8]> = mine.iter().map(|e| &e.key[..]).collect();
    assert_eq!(keys, vec![&b"/a/1"[..]]);
    storage.close();
}
