//! Compare-and-swap transactions in kube-apiserver's shapes: a failed guard
//! writes nothing and returns the key's current record.

use super::Case;
use crate::storage::{Guard, Revision, StorageError, Txn};

/// Create = "absent": a second create fails with the existing record.
pub async fn creates_guard_absence(c: &Case<'_>) {
    let create = |value: &str| {
        Txn::new()
            .guard(Guard::Absent(c.key("a")))
            .put(c.key("a"), value)
    };
    let r1 = c.commit(create("first")).await;
    let e = c
        .storage
        .commit(create("second"))
        .await
        .expect_err("exists");
    let StorageError::Conflict { guard, current } = e else {
        panic!("expected Conflict, got {e:?}");
    };
    assert_eq!(guard, 0);
    assert_eq!(
        (&current.key[..], &current.value[..], current.mod_revision),
        (&c.key("a")[..], &b"first"[..], r1),
        "the failure carries the current record"
    );
    assert_eq!(c.current().await, r1, "a failed guard writes nothing");
}

/// Update and delete = "mod revision is R".
pub async fn updates_and_deletes_guard_the_mod_revision(c: &Case<'_>) {
    let r1 = c.put("u", "1").await;
    let update = |at: Revision, value: &str| {
        Txn::new()
            .guard(Guard::ModRevision(c.key("u"), at))
            .put(c.key("u"), value)
    };
    let r2 = c.commit(update(r1, "2")).await;
    let e = c
        .storage
        .commit(update(r1, "stale"))
        .await
        .expect_err("stale");
    match e {
        StorageError::Conflict { guard: 0, current } => {
            assert_eq!(
                (&current.value[..], current.mod_revision, current.version),
                (&b"2"[..], r2, 2)
            );
        }
        other => panic!("expected Conflict, got {other:?}"),
    }
    let value = c
        .storage
        .get(&c.key("u"), None)
        .await
        .expect("get")
        .kv
        .expect("present");
    assert_eq!(&value.value[..], b"2", "the stale update wrote nothing");
    let delete = |at: Revision| {
        Txn::new()
            .guard(Guard::ModRevision(c.key("u"), at))
            .delete(c.key("u"))
    };
    let e = c
        .storage
        .commit(delete(r1))
        .await
        .expect_err("stale delete");
    assert!(
        matches!(e, StorageError::Conflict { guard: 0, .. }),
        "{e:?}"
    );
    c.commit(delete(r2)).await;
    let e = c.storage.commit(update(r2, "3")).await.expect_err("gone");
    assert!(
        matches!(e, StorageError::NotFound { guard: 0 }),
        "an update of a missing key: {e:?}"
    );
    // kube-apiserver's create into a namespace also guards the namespace.
    let ns = c.put("ns", "live").await;
    let guarded = |at: Revision| {
        Txn::new()
            .guard(Guard::Absent(c.key("obj")))
            .guard(Guard::ModRevision(c.key("ns"), at))
            .put(c.key("obj"), "x")
    };
    c.put("ns", "terminating").await;
    let e = c
        .storage
        .commit(guarded(ns))
        .await
        .expect_err("namespace changed");
    match e {
        StorageError::Conflict { guard: 1, current } => {
            assert_eq!(&current.value[..], b"terminating");
        }
        other => panic!("expected the second guard to fail, got {other:?}"),
    }
    assert_eq!(
        c.storage.get(&c.key("obj"), None).await.expect("get").kv,
        None
    );
}

/// Every op of a transaction lands at one revision, or none does.
pub async fn transactions_are_atomic(c: &Case<'_>) {
    c.put("gone", "soon").await;
    let rev = c
        .commit(
            Txn::new()
                .put(c.key("p"), "1")
                .put(c.key("q"), "2")
                .delete(c.key("gone")),
        )
        .await;
    for k in ["p", "q"] {
        let kv = c
            .storage
            .get(&c.key(k), None)
            .await
            .expect("get")
            .kv
            .expect("present");
        assert_eq!(kv.mod_revision, rev, "{k} written at the txn's revision");
    }
    assert_eq!(
        c.storage.get(&c.key("gone"), None).await.expect("get").kv,
        None
    );
    let failing = Txn::new()
        .guard(Guard::Absent(c.key("p")))
        .put(c.key("r"), "3")
        .delete(c.key("q"));
    assert!(c.storage.commit(failing).await.is_err());
    assert_eq!(
        c.storage.get(&c.key("r"), None).await.expect("get").kv,
        None
    );
    assert!(
        c.storage
            .get(&c.key("q"), None)
            .await
            .expect("get")
            .kv
            .is_some()
    );
    assert_eq!(c.current().await, rev, "nothing written");
}
