//! Reads: revisions and versions, snapshot reads at retained revisions,
//! ranges with limits and exact counts, revisions not yet written.

use bytes::Bytes;

use super::Case;
use crate::storage::{KeyRange, RangeOptions, Revision, StorageError, Txn};

/// etcd's record semantics: create/mod revision and version per generation.
pub async fn revisions_and_versions(c: &Case<'_>) {
    let before = c.current().await;
    let r1 = c.put("a", "1").await;
    assert!(r1 > before, "a write gets a new revision");
    assert_eq!(c.current().await, r1, "the write's revision is current");
    let r2 = c.put("a", "2").await;
    assert!(r2 > r1, "revisions increase");
    let got = c.storage.get(&c.key("a"), None).await.expect("get");
    let kv = got.kv.expect("present");
    assert_eq!(
        (
            kv.create_revision,
            kv.mod_revision,
            kv.version,
            &kv.value[..]
        ),
        (r1, r2, 2, &b"2"[..]),
        "an update keeps the create revision and counts the version"
    );
    assert_eq!(kv.key, Bytes::from(c.key("a")));
    assert!(got.revision >= r2);
    let r3 = c.commit(Txn::new().delete(c.key("a"))).await;
    assert!(r3 > r2);
    let gone = c.storage.get(&c.key("a"), None).await.expect("get");
    assert_eq!(gone.kv, None, "deleted");
    let r4 = c.put("a", "3").await;
    let kv = c
        .storage
        .get(&c.key("a"), None)
        .await
        .expect("get")
        .kv
        .expect("present");
    assert_eq!(
        (kv.create_revision, kv.mod_revision, kv.version),
        (r4, r4, 1),
        "a re-created key starts a new generation"
    );
    let missing = c.storage.get(&c.key("never"), None).await.expect("get");
    assert_eq!(missing.kv, None);
}

/// Reads at a retained revision are snapshots of that revision.
pub async fn exact_reads_at_retained_revisions(c: &Case<'_>) {
    let r1 = c.put("x", "old").await;
    c.put("y", "other").await;
    let r3 = c.put("x", "new").await;
    c.commit(Txn::new().delete(c.key("y"))).await;
    let at = |r: Revision| async move { c.storage.get(&c.key("x"), Some(r)).await.expect("get") };
    let old = at(r1).await;
    assert_eq!(old.revision, r1, "served at the revision asked for");
    let kv = old.kv.expect("present at r1");
    assert_eq!((&kv.value[..], kv.mod_revision), (&b"old"[..], r1));
    assert_eq!(&at(r3).await.kv.expect("present").value[..], b"new");
    let page = c
        .storage
        .range(
            KeyRange::prefix(c.prefix()),
            RangeOptions {
                at: Some(r3),
                ..RangeOptions::default()
            },
        )
        .await
        .expect("range");
    let keys: Vec<&[u8]> = page.items.iter().map(|kv| &kv.key[..]).collect();
    assert_eq!(
        keys,
        vec![&c.key("x")[..], &c.key("y")[..]],
        "y still there at r3"
    );
    assert_eq!(page.revision, r3);
    let before = c
        .storage
        .get(&c.key("x"), Some(Revision(r1.get() - 1)))
        .await
        .expect("get");
    assert_eq!(before.kv, None, "x did not exist before its first write");
}

/// Limits, `more`, exact counts, keys only and count only.
pub async fn ranges_count_exactly(c: &Case<'_>) {
    let empty = c.current().await;
    let mut txn = Txn::new();
    for i in 0..5 {
        txn = txn.put(c.key(&format!("k{i}")), format!("v{i}"));
    }
    let rev = c.commit(txn).await;
    c.put("z-outside", "no").await;
    let range = || KeyRange::between(&c.key("k"), &c.key("l"));
    let read =
        |opts: RangeOptions| async move { c.storage.range(range(), opts).await.expect("range") };
    let all = read(RangeOptions::default()).await;
    let keys: Vec<Vec<u8>> = all.items.iter().map(|kv| kv.key.to_vec()).collect();
    let want: Vec<Vec<u8>> = (0..5).map(|i| c.key(&format!("k{i}"))).collect();
    assert_eq!(keys, want, "in key order, only the range");
    assert_eq!((all.count, all.more), (5, false));
    assert!(
        all.items.iter().all(|kv| kv.mod_revision == rev),
        "one txn, one revision"
    );
    let page = read(RangeOptions {
        limit: 2,
        count_total: true,
        ..RangeOptions::default()
    })
    .await;
    assert_eq!(
        (page.items.len(), page.more, page.count),
        (2, true, 5),
        "exact count past the limit"
    );
    let page = read(RangeOptions {
        limit: 5,
        count_total: true,
        ..RangeOptions::default()
    })
    .await;
    assert_eq!((page.items.len(), page.more, page.count), (5, false, 5));
    let page = read(RangeOptions {
        limit: 2,
        ..RangeOptions::default()
    })
    .await;
    assert!(
        page.more && page.count >= 3,
        "without count_total the count is at least one more"
    );
    let keys_only = read(RangeOptions {
        keys_only: true,
        ..RangeOptions::default()
    })
    .await;
    assert_eq!(keys_only.items.len(), 5);
    assert!(
        keys_only
            .items
            .iter()
            .all(|kv| kv.value.is_empty() && kv.version == 1)
    );
    let counted = read(RangeOptions {
        count_only: true,
        ..RangeOptions::default()
    })
    .await;
    assert_eq!(
        (counted.items.len(), counted.count, counted.more),
        (0, 5, false)
    );
    let earlier = read(RangeOptions {
        at: Some(empty),
        count_total: true,
        ..RangeOptions::default()
    })
    .await;
    assert_eq!(
        (earlier.items.len(), earlier.count),
        (0, 0),
        "nothing before the txn"
    );
}

/// A revision not yet written is an error naming the current one.
pub async fn future_revisions(c: &Case<'_>) {
    let current = c.put("f", "1").await;
    let ahead = Revision(current.get() + 1_000_000);
    let check = |e: StorageError| match e {
        StorageError::FutureRevision {
            requested,
            current: now,
        } => {
            assert_eq!(requested, ahead);
            assert!(now >= current && now < ahead);
        }
        other => panic!("expected FutureRevision, got {other:?}"),
    };
    check(
        c.storage
            .get(&c.key("f"), Some(ahead))
            .await
            .expect_err("future get"),
    );
    let opts = RangeOptions {
        at: Some(ahead),
        ..RangeOptions::default()
    };
    check(
        c.storage
            .range(KeyRange::prefix(c.prefix()), opts)
            .await
            .expect_err("future range"),
    );
}
