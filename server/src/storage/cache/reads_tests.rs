//! Reads the cache answers without asking its backend how far it is: a
//! range not older than a revision it has reached (`resourceVersion=0`,
//! `NotOlderThan`), and the checks a list index makes before it answers
//! from a watch of the cache (`reached`, `catch_up`).

use std::sync::atomic::Ordering;

use super::WatchCache;
use super::spy::{cached, put};
use crate::storage::{KeyRange, RangeOptions, RangeResult, Revision, Storage};

/// Every cached key, read at a revision not older than `floor`.
async fn not_older_than(cache: &WatchCache, floor: Revision) -> RangeResult {
    let options = RangeOptions {
        not_older_than: Some(floor),
        ..RangeOptions::default()
    };
    cache
        .range(KeyRange::prefix(b"/registry/"), options)
        .await
        .expect("range")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_not_older_than_a_reached_revision_asks_the_backend_nothing() {
    let (_dir, spy, cache) = cached().await;
    let written = put(cache.as_ref(), "/registry/a/1", "a").await;
    assert!(cache.catch_up(written).await, "the cache reaches a write");
    assert!(cache.reached(written));
    let (ranges, revisions) = (
        spy.ranges.load(Ordering::SeqCst),
        spy.revisions.load(Ordering::SeqCst),
    );
    for floor in [Revision::ZERO, written] {
        let read = not_older_than(&cache, floor).await;
        assert!(read.revision >= written, "served at what the cache holds");
        assert_eq!(read.items.len(), 2, "with the write");
    }
    assert_eq!(spy.ranges.load(Ordering::SeqCst), ranges, "from memory");
    assert_eq!(
        spy.revisions.load(Ordering::SeqCst),
        revisions,
        "without asking the backend's revision"
    );

    // A consistent read asks it, once.
    cache
        .range(KeyRange::prefix(b"/registry/"), RangeOptions::default())
        .await
        .expect("range");
    assert_eq!(spy.revisions.load(Ordering::SeqCst), revisions + 1);
    assert_eq!(
        spy.ranges.load(Ordering::SeqCst),
        ranges,
        "still from memory"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revision_the_cache_has_not_reached_is_waited_for_then_refused() {
    let (_dir, spy, cache) = cached().await;
    let current = cache.current_revision().await.expect("revision");
    let future = Revision(current.get() + 1000);
    assert!(!cache.reached(future));
    assert!(!cache.catch_up(future).await, "never written");
    // A read not older than it goes to the backend, which answers at what
    // it has (the API layer refuses such a revision with 504 before).
    let ranges = spy.ranges.load(Ordering::SeqCst);
    let read = not_older_than(&cache, future).await;
    assert_eq!(read.revision, current);
    assert_eq!(spy.ranges.load(Ordering::SeqCst), ranges + 1);
    assert_eq!(cache.fallbacks(), 1);
}
