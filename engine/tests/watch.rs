//! Watch tests: history then live with no gap or duplicate across a
//! concurrent writer, previous values, a slow watcher ended with `Lagged`,
//! compacted starts, and shutdown.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use cairn_engine::{Engine, Error, EventKind, KeyRange, Options, Revision, Txn};

fn engine(dir: &std::path::Path, opts: Options) -> Engine {
    Engine::open(dir, opts).expect("open")
}

#[test]
fn history_then_live_has_no_gap_and_no_duplicate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = engine(
        dir.path(),
        Options {
            segment_bytes: 16 << 10,
            ..Options::no_sync()
        },
    );
    let total = 6000u64;
    let writer = {
        let e = e.clone();
        std::thread::spawn(move || {
            for i in 0..total {
                let t = if i % 5 == 4 {
                    Txn::new().delete(format!("/x/{:03}", (i - 1) % 300))
                } else {
                    Txn::new().put(format!("/x/{:03}", i % 300), format!("{i}"))
                };
                e.commit_blocking(t).expect("commit");
            }
        })
    };
    // Several watchers join at different points while the writer runs, each
    // from a revision in the past, some reading slowly.
    let mut watchers = Vec::new();
    for w in 0..4u64 {
        std::thread::sleep(Duration::from_millis(20));
        let start = e.current_revision().get().saturating_sub(500 * w);
        let mut watch = e
            .watch(KeyRange::prefix(b"/x/"), Revision(start))
            .expect("watch");
        watchers.push(std::thread::spawn(move || {
            let mut revs = Vec::new();
            while revs.last().is_none_or(|&r| r < total) {
                let ev = watch.blocking_next().expect("stream open").expect("event");
                if w == 1 && revs.len() % 1000 == 0 {
                    std::thread::sleep(Duration::from_millis(5));
                }
                revs.push(ev.revision.get());
            }
            (start, revs)
        }));
    }
    writer.join().expect("writer");
    for h in watchers {
        let (start, revs) = h.join().expect("watcher");
        assert_eq!(
            revs,
            (start + 1..=total).collect::<Vec<_>>(),
            "watch from {start}"
        );
    }
}

#[test]
fn events_carry_new_and_previous_records() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = engine(dir.path(), Options::no_sync());
    let mut w = e
        .watch(KeyRange::key(b"/k"), Revision::ZERO)
        .expect("watch");
    e.commit_blocking(Txn::new().put("/k", "one")).expect("c1");
    e.commit_blocking(Txn::new().put("/other", "x"))
        .expect("c2");
    e.commit_blocking(Txn::new().put("/k", "two")).expect("c3");
    e.commit_blocking(Txn::new().delete("/k")).expect("c4");
    let evs: Vec<_> = (0..3)
        .map(|_| w.blocking_next().expect("open").expect("event"))
        .collect();
    assert_eq!(evs[0].kind, EventKind::Put);
    assert_eq!(evs[0].kv.as_ref().expect("kv").value, "one");
    assert_eq!(evs[0].prev, None);
    assert_eq!(evs[1].revision, Revision(3));
    assert_eq!(evs[1].kv.as_ref().expect("kv").version, 2);
    assert_eq!(evs[1].prev.as_ref().expect("prev").value, "one");
    assert_eq!(evs[2].kind, EventKind::Delete);
    assert_eq!(&evs[2].key[..], b"/k");
    assert_eq!(evs[2].prev.as_ref().expect("prev").value, "two");
    assert!(w.try_next().is_none());
    // The same sequence replayed from history.
    let mut h = e
        .watch(KeyRange::key(b"/k"), Revision::ZERO)
        .expect("watch");
    let replay: Vec<_> = std::iter::from_fn(|| h.try_next())
        .map(|e| e.expect("event"))
        .collect();
    assert_eq!(replay, evs);
}

#[test]
fn a_slow_watcher_is_ended_with_lagged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = engine(
        dir.path(),
        Options {
            watch_buffer_batches: 4,
            ..Options::no_sync()
        },
    );
    let mut slow = e
        .watch(KeyRange::prefix(b"/s/"), Revision::ZERO)
        .expect("watch");
    assert!(slow.try_next().is_none(), "caught up and live");
    for i in 0..50 {
        e.commit_blocking(Txn::new().put(format!("/s/{i}"), "v"))
            .expect("commit");
    }
    let mut delivered = 0;
    let err = loop {
        match slow.blocking_next() {
            Some(Ok(_)) => delivered += 1,
            Some(Err(err)) => break err,
            None => panic!("ended without an error"),
        }
    };
    assert!(matches!(err, Error::Lagged { buffered: 4 }), "{err}");
    assert!(
        delivered <= 4,
        "only what was buffered is delivered: {delivered}"
    );
    assert!(slow.blocking_next().is_none());
    assert_eq!(e.stats().live_watchers, 0, "the lagging feed was dropped");
    // Writers never waited for it.
    let fresh = e
        .watch(KeyRange::prefix(b"/s/"), Revision(40))
        .expect("rewatch");
    assert_eq!(
        std::iter::from_fn({
            let mut f = fresh;
            move || f.try_next()
        })
        .count(),
        10
    );
}

#[test]
fn compacted_starts_fail_typed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = engine(dir.path(), Options::no_sync());
    for i in 0..20 {
        e.commit_blocking(Txn::new().put("/c", format!("{i}")))
            .expect("commit");
    }
    // A watch that is still replaying history when compaction passes it.
    let mut behind = e
        .watch(KeyRange::prefix(b"/c"), Revision(2))
        .expect("watch");
    e.compact(Revision(10)).expect("compact");
    match e.watch(KeyRange::prefix(b"/c"), Revision(9)) {
        Err(Error::Compacted {
            requested,
            compacted,
        }) => assert_eq!((requested, compacted), (Revision(9), Revision(10))),
        other => panic!("expected Compacted, got {other:?}"),
    }
    assert!(matches!(
        behind.try_next(),
        Some(Err(Error::Compacted {
            compacted: Revision(10),
            ..
        }))
    ));
    // At the compaction point itself every later event is still there.
    let mut at = e
        .watch(KeyRange::prefix(b"/c"), Revision(10))
        .expect("watch at compacted");
    let revs: Vec<_> = std::iter::from_fn(|| at.try_next())
        .map(|e| e.expect("event").revision.get())
        .collect();
    assert_eq!(revs, (11..=20).collect::<Vec<_>>());
}

#[test]
fn a_watch_on_a_future_revision_sees_only_newer_events() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = engine(dir.path(), Options::no_sync());
    e.commit_blocking(Txn::new().put("/f", "1"))
        .expect("commit");
    let mut w = e
        .watch(KeyRange::prefix(b"/f"), Revision(3))
        .expect("watch");
    for i in 2..=5 {
        e.commit_blocking(Txn::new().put("/f", format!("{i}")))
            .expect("commit");
    }
    let revs: Vec<_> = std::iter::from_fn(|| w.try_next())
        .map(|e| e.expect("event").revision.get())
        .collect();
    assert_eq!(revs, vec![4, 5]);
}

#[test]
fn close_ends_blocked_watches() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = engine(dir.path(), Options::no_sync());
    let mut w = e.watch(KeyRange::all(), Revision::ZERO).expect("watch");
    let done = Arc::new(AtomicBool::new(false));
    let d = Arc::clone(&done);
    let t = std::thread::spawn(move || {
        let r = w.blocking_next();
        d.store(true, Ordering::SeqCst);
        r.is_none()
    });
    std::thread::sleep(Duration::from_millis(50));
    assert!(!done.load(Ordering::SeqCst));
    e.close();
    assert!(t.join().expect("join"), "a closed engine ends its watches");
}

#[test]
fn async_watch_under_tokio() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("rt");
    rt.block_on(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let e = engine(dir.path(), Options::no_sync());
        let mut w = e
            .watch(KeyRange::prefix(b"/a/"), Revision::ZERO)
            .expect("watch");
        let reader = tokio::spawn(async move {
            let mut n = 0;
            while n < 100 {
                w.next().await.expect("open").expect("event");
                n += 1;
            }
            n
        });
        let writes: Vec<_> = (0..100)
            .map(|i| {
                let e = e.clone();
                tokio::spawn(async move {
                    e.commit(Txn::new().put(format!("/a/{i}"), "v"))
                        .await
                        .expect("commit")
                })
            })
            .collect();
        for w in writes {
            w.await.expect("join");
        }
        assert_eq!(reader.await.expect("reader"), 100);
    });
}

#[test]
fn batches_hand_out_the_same_events_as_single_reads() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = engine(dir.path(), Options::no_sync());
    for i in 0..30 {
        e.commit_blocking(
            Txn::new()
                .put(format!("/b/{}", i % 7), format!("{i}"))
                .put(format!("/other/{i}"), "x"),
        )
        .expect("history");
    }
    let mut singles = e
        .watch(KeyRange::prefix(b"/b/"), Revision(10))
        .expect("watch");
    let mut batched = e
        .watch(KeyRange::prefix(b"/b/"), Revision(10))
        .expect("watch");
    let writers: Vec<_> = (0..8)
        .map(|t| {
            let e = e.clone();
            std::thread::spawn(move || {
                for i in 0..50 {
                    e.commit_blocking(
                        Txn::new()
                            .put(format!("/b/{t}-{i}"), "v")
                            .put(format!("/other/{t}-{i}"), "x"),
                    )
                    .expect("live");
                }
            })
        })
        .collect();
    for w in writers {
        w.join().expect("writer");
    }
    let total = 20 + 8 * 50;
    let mut from_singles = Vec::new();
    while from_singles.len() < total {
        from_singles.push(singles.blocking_next().expect("open").expect("event"));
    }
    let mut from_batches = Vec::new();
    let mut batches = 0;
    while from_batches.len() < total {
        let batch = batched.blocking_next_batch().expect("open").expect("batch");
        from_batches.extend(batch.iter().cloned());
        batches += 1;
    }
    assert_eq!(from_batches, from_singles);
    assert!(from_batches.iter().all(|ev| ev.key.starts_with(b"/b/")));
    assert!(
        batches < total,
        "group commits arrive as batches ({batches} for {total} events)"
    );
    assert!(batched.try_next_batch().is_none() && singles.try_next().is_none());
}

#[test]
fn a_batch_memo_is_computed_once_for_every_watcher() {
    use std::sync::atomic::AtomicUsize;
    let dir = tempfile::tempdir().expect("tempdir");
    let e = engine(dir.path(), Options::no_sync());
    let mut watchers: Vec<_> = (0..5)
        .map(|_| {
            e.watch(KeyRange::prefix(b"/m/"), Revision::ZERO)
                .expect("watch")
        })
        .collect();
    for w in &mut watchers {
        assert!(w.try_next_batch().is_none(), "live");
    }
    e.commit_blocking(Txn::new().put("/m/a", "1").put("/other", "x"))
        .expect("commit");
    let computed = AtomicUsize::new(0);
    for w in &mut watchers {
        let batch = w.blocking_next_batch().expect("open").expect("batch");
        let len = batch.memo(|all| {
            computed.fetch_add(1, Ordering::SeqCst);
            all.len()
        });
        assert_eq!(len, Some(&2), "the memo sees the whole batch");
        assert!(!batch.is_whole(), "this watch sees one of the two events");
        let idx: Vec<usize> = batch.iter_indexed().map(|(i, _)| i).collect();
        assert_eq!(idx, vec![0]);
        assert_eq!(batch.memo(|_| "another type"), None);
    }
    assert_eq!(
        computed.load(Ordering::SeqCst),
        1,
        "computed once, shared by all five"
    );
}

#[test]
fn polling_for_a_batch_is_pending_until_a_commit_wakes_it() {
    use std::task::{Context, Poll, Wake, Waker};
    struct Flag(AtomicBool);
    impl Wake for Flag {
        fn wake(self: Arc<Self>) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let e = engine(dir.path(), Options::no_sync());
    e.commit_blocking(Txn::new().put("/p/old", "1"))
        .expect("commit");
    let mut w = e
        .watch(KeyRange::prefix(b"/p/"), Revision::ZERO)
        .expect("watch");
    let flag = Arc::new(Flag(AtomicBool::new(false)));
    let waker = Waker::from(Arc::clone(&flag));
    let mut cx = Context::from_waker(&waker);
    let Poll::Ready(Some(Ok(history))) = w.poll_next_batch(&mut cx) else {
        panic!("history is ready at once");
    };
    assert_eq!(history.iter().count(), 1);
    assert!(w.poll_next_batch(&mut cx).is_pending(), "nothing live yet");
    e.commit_blocking(Txn::new().put("/p/new", "2").put("/q", "x"))
        .expect("commit");
    assert!(flag.0.load(Ordering::SeqCst), "the commit woke the poller");
    let Poll::Ready(Some(Ok(live))) = w.poll_next_batch(&mut cx) else {
        panic!("the commit is ready");
    };
    let keys: Vec<&[u8]> = live.iter().map(|ev| &ev.key[..]).collect();
    assert_eq!(keys, vec![&b"/p/new"[..]]);
    e.close();
    assert!(
        matches!(w.poll_next_batch(&mut cx), Poll::Ready(None)),
        "closed"
    );
}
