//! The watch cache over a real embedded store: the conformance suite
//! through it, and what the cache adds — reads and watches from memory,
//! one backend watch for every watcher, no gap when its backend watch
//! breaks, and a fresh load (its watchers ended) when its history is
//! compacted away.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::spy::{PATIENCE, cached, next, put};
use crate::storage::{
    EventKind, Guard, KeyRange, RangeOptions, Revision, Storage, StorageError, Txn, conformance,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_conformance_suite_passes_through_the_cache() {
    let (_dir, _spy, cache) = cached().await;
    conformance::run_all(cache.as_ref(), b"/registry/conformance/").await;
    cache.close();
    assert!(cache.health().is_err(), "closed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watchers_share_one_backend_watch_and_lists_come_from_memory() {
    let (_dir, spy, cache) = cached().await;
    let from = cache.current_revision().await.expect("revision");
    let mut all = cache.watch(KeyRange::prefix(b"/registry/"), from);
    let mut mine = cache.watch(KeyRange::prefix(b"/registry/a/"), from);
    assert_eq!(
        spy.watches.load(Ordering::SeqCst),
        1,
        "only the cache's own"
    );
    let b = put(cache.as_ref(), "/registry/b/1", "b").await;
    let a = put(cache.as_ref(), "/registry/a/1", "a").await;
    assert_eq!(next(&mut all).await.unwrap(), [("/registry/b/1".into(), b)]);
    assert_eq!(next(&mut all).await.unwrap(), [("/registry/a/1".into(), a)]);
    assert_eq!(
        next(&mut mine).await.unwrap(),
        [("/registry/a/1".into(), a)]
    );
    assert_eq!(mine.progress(), a);

    let ranges = spy.ranges.load(Ordering::SeqCst);
    let list = cache
        .range(KeyRange::prefix(b"/registry/"), RangeOptions::default())
        .await
        .expect("list");
    assert_eq!(list.items.len(), 3, "a consistent list sees the last write");
    let then = RangeOptions {
        at: Some(b),
        ..RangeOptions::default()
    };
    let past = cache
        .range(KeyRange::prefix(b"/registry/"), then)
        .await
        .expect("list");
    assert_eq!((past.items.len(), past.revision), (2, b));
    assert_eq!(
        spy.ranges.load(Ordering::SeqCst),
        ranges,
        "both from memory"
    );
    let read = cache.get(b"/registry/a/1", Some(b)).await.expect("get");
    assert!(
        read.kv.is_none(),
        "an exact get sees the key's absence then"
    );
    let gets = spy.gets.load(Ordering::SeqCst);
    let recent = cache.get_recent(b"/registry/a/1").await.expect("get");
    assert_eq!(recent.kv.map(|kv| kv.mod_revision), Some(a));
    assert_eq!(
        spy.gets.load(Ordering::SeqCst),
        gets,
        "a recent copy, from memory"
    );
    let unknown = cache.get_recent(b"/registry/a/2").await.expect("get");
    assert!(unknown.kv.is_none());
    assert_eq!(
        spy.gets.load(Ordering::SeqCst),
        gets + 1,
        "an unknown key is asked for"
    );
    // A guard that failed on a record the cache has does not stop it
    // answering; one on a record gone since the cache's copy does, until
    // the cache moves on.
    let stale = Txn::new()
        .guard(Guard::ModRevision(b"/registry/a/1".to_vec(), b))
        .put("/registry/a/1", "again");
    assert!(matches!(
        cache.commit(stale).await,
        Err(StorageError::Conflict { .. })
    ));
    let retried = cache.get_recent(b"/registry/a/1").await.expect("get");
    assert_eq!(retried.kv.map(|kv| kv.mod_revision), Some(a));
    assert_eq!(
        spy.gets.load(Ordering::SeqCst),
        gets + 1,
        "the cache is as new"
    );
    let gone = Txn::new()
        .guard(Guard::ModRevision(b"/registry/a/gone".to_vec(), b))
        .put("/registry/a/1", "again");
    assert!(matches!(
        cache.commit(gone).await,
        Err(StorageError::NotFound { .. })
    ));
    cache.get_recent(b"/registry/a/1").await.expect("get");
    assert_eq!(
        spy.gets.load(Ordering::SeqCst),
        gets + 2,
        "the backend's, after that"
    );
    let gets = gets + 1;
    let latest = cache.get(b"/registry/a/1", None).await.expect("get");
    assert_eq!(latest.kv.map(|kv| kv.mod_revision), Some(a));
    assert_eq!(
        spy.gets.load(Ordering::SeqCst),
        gets + 2,
        "a latest get is the backend's"
    );

    // History the backend has forgotten is still answered by the window.
    spy.compact(a).await.expect("compact");
    let kept = cache.range(KeyRange::prefix(b"/registry/"), then).await;
    assert_eq!(kept.expect("from memory").items.len(), 2);
    // Keys outside the cache go to the backend.
    put(cache.as_ref(), "/other/x", "x").await;
    let other = cache
        .range(KeyRange::prefix(b"/other/"), RangeOptions::default())
        .await;
    assert_eq!(other.expect("range").items.len(), 1);
    assert_eq!(spy.ranges.load(Ordering::SeqCst), ranges + 1);
    // That write moved the revision past every cached key's: the cache
    // learns from its watch's progress that it is current, and answers.
    let list = cache
        .range(KeyRange::prefix(b"/registry/"), RangeOptions::default())
        .await
        .expect("list");
    assert_eq!(list.items.len(), 3);
    assert_eq!(spy.ranges.load(Ordering::SeqCst), ranges + 1, "from memory");
    assert_eq!(cache.fallbacks(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_backend_watch_leaves_no_gap_and_lost_history_reloads() {
    let (_dir, spy, cache) = cached().await;
    let from = cache.current_revision().await.expect("revision");
    let mut watch = cache.watch(KeyRange::prefix(b"/registry/"), from);
    let one = put(cache.as_ref(), "/registry/k/1", "1").await;
    assert_eq!(
        next(&mut watch).await.unwrap(),
        [("/registry/k/1".into(), one)]
    );

    spy.breaks.fetch_add(1, Ordering::SeqCst);
    let two = put(cache.as_ref(), "/registry/k/2", "2").await;
    assert_eq!(
        next(&mut watch).await.unwrap(),
        [("/registry/k/2".into(), two)]
    );
    assert_eq!(
        spy.watches.load(Ordering::SeqCst),
        2,
        "watched again from where it was"
    );

    // Broken, and the backend forgets changes the cache has not seen: the
    // cache reads everything again, and its watcher gets the difference.
    spy.breaks.fetch_add(1, Ordering::SeqCst);
    let three = put(cache.as_ref(), "/registry/k/3", "3").await;
    let again = put(cache.as_ref(), "/registry/k/1", "1 again").await;
    let gone = spy
        .commit(Txn::new().delete("/registry/k/2"))
        .await
        .expect("delete")
        .revision;
    spy.compact(gone).await.expect("compact");
    let diff = tokio::time::timeout(PATIENCE, watch.next_batch())
        .await
        .expect("the difference in time")
        .expect("the watch goes on")
        .expect("not a 410: the watcher asked for nothing that is gone");
    let seen: Vec<(&[u8], EventKind, Revision, bool)> = diff
        .iter()
        .map(|e| (&e.key[..], e.kind, e.revision, e.prev.is_some()))
        .collect();
    assert_eq!(
        seen,
        [
            (&b"/registry/k/3"[..], EventKind::Put, three, false),
            (&b"/registry/k/1"[..], EventKind::Put, again, true),
            (&b"/registry/k/2"[..], EventKind::Delete, gone, true),
        ]
    );
    assert_eq!(watch.progress(), gone);
    let list = cache
        .range(KeyRange::prefix(b"/registry/k/"), RangeOptions::default())
        .await
        .expect("list");
    assert_eq!(list.items.len(), 2);
    let four = put(cache.as_ref(), "/registry/k/4", "4").await;
    assert_eq!(
        next(&mut watch).await.unwrap(),
        [("/registry/k/4".into(), four)]
    );
    // A watch from before the new read asks for changes that are gone.
    let mut late = cache.watch(KeyRange::prefix(b"/registry/"), two);
    assert!(matches!(
        late.next_batch().await,
        Some(Err(StorageError::Compacted { .. }))
    ));
    let mut current = cache.watch(KeyRange::prefix(b"/registry/"), gone);
    assert_eq!(
        next(&mut current).await.unwrap(),
        [("/registry/k/4".into(), four)]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_that_stops_reading_is_ended_but_a_quiet_one_is_not() {
    let (_dir, _spy, cache) = cached().await;
    let from = cache.current_revision().await.expect("revision");
    let mut stalled = cache.watch(KeyRange::prefix(b"/registry/"), from);
    let mut quiet = cache.watch(KeyRange::prefix(b"/registry/quiet/"), from);
    let asleep = tokio::time::timeout(Duration::from_millis(20), quiet.next_batch()).await;
    assert!(asleep.is_err(), "nothing for it yet");
    let mut last = from;
    for i in 0..1100 {
        last = put(cache.as_ref(), &format!("/registry/busy/{i}"), "x").await;
    }
    let applied = async {
        while cache.shared.applied() < last {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(PATIENCE, applied)
        .await
        .expect("the cache applies them");
    match next(&mut stalled).await {
        Err(StorageError::Lagged) => {}
        other => panic!("1,100 unread batches end a watcher: {other:?}"),
    }
    let mine = put(cache.as_ref(), "/registry/quiet/1", "q").await;
    assert_eq!(
        next(&mut quiet)
            .await
            .expect("not lagged: it had nothing to read"),
        [("/registry/quiet/1".into(), mine)]
    );
}
