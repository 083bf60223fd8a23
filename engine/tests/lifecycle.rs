//! Open/close lifecycle and API edges: the directory lock, read-only opens,
//! key expiry, `revision_at`, stats, typed read errors, bad arguments, and
//! space reclaim shrinking the directory.

mod common;

use std::time::{Duration, Instant, SystemTime};

use cairn_engine::{
    Engine, Error, EventKind, Guard, KeyRange, Options, RangeOptions, Revision, Txn, lock_holder,
};

#[test]
fn a_second_writer_is_refused_with_the_lock_holder() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first = Engine::open(dir.path(), Options::no_sync()).expect("open");
    match Engine::open(dir.path(), Options::no_sync()) {
        Err(Error::Locked { lock_file, holder }) => {
            assert!(lock_file.ends_with("LOCK"));
            assert!(
                holder.contains(&format!("pid {}", std::process::id())),
                "{holder}"
            );
            let msg = Error::Locked { lock_file, holder }.to_string();
            assert!(msg.contains("LOCK") && msg.contains("locked"), "{msg}");
        }
        other => panic!("expected Locked, got {other:?}"),
    }
    assert!(lock_holder(dir.path()).is_some());
    drop(first);
    assert!(lock_holder(dir.path()).is_none());
    Engine::open(dir.path(), Options::no_sync()).expect("the lock is released on close");
}

#[test]
fn read_only_opens_beside_a_writer_and_refuses_writes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let w = Engine::open(
        dir.path(),
        Options {
            segment_bytes: 4096,
            ..Options::no_sync()
        },
    )
    .expect("open");
    for i in 0..100 {
        w.commit_blocking(Txn::new().put(format!("/r/{i:03}"), "v".repeat(50)))
            .expect("commit");
    }
    let r = Engine::open_read_only(dir.path(), Options::no_sync()).expect("read-only open");
    assert_eq!(r.current_revision(), w.current_revision());
    assert_eq!(
        r.range(&KeyRange::prefix(b"/r/"), RangeOptions::default())
            .expect("range")
            .items
            .len(),
        100
    );
    assert!(matches!(
        r.commit_blocking(Txn::new().put("/x", "y")),
        Err(Error::ReadOnly)
    ));
    assert!(matches!(r.compact(Revision(5)), Err(Error::ReadOnly)));
    let missing = tempfile::tempdir().expect("tempdir");
    assert!(matches!(
        Engine::open_read_only(missing.path(), Options::no_sync()),
        Err(Error::InvalidArgument(_))
    ));
    assert!(Engine::open_read_only(missing.path().join("nope"), Options::no_sync()).is_err());
}

#[test]
fn expired_keys_are_deleted_by_the_engine_as_events() {
    let dir = tempfile::tempdir().expect("tempdir");
    let opts = Options {
        expiry_poll: Duration::from_millis(20),
        ..Options::no_sync()
    };
    let e = Engine::open(dir.path(), opts.clone()).expect("open");
    let mut w = e
        .watch(KeyRange::prefix(b"/ev/"), Revision::ZERO)
        .expect("watch");
    e.commit_blocking(Txn::new().put_with_ttl("/ev/short", "bye", Duration::from_millis(100)))
        .expect("put");
    e.commit_blocking(Txn::new().put_with_ttl("/ev/renewed", "1", Duration::from_millis(100)))
        .expect("put");
    e.commit_blocking(Txn::new().put("/ev/renewed", "2"))
        .expect("overwrite without ttl");
    e.commit_blocking(Txn::new().put_with_ttl("/ev/later", "x", Duration::from_secs(3600)))
        .expect("put");
    for _ in 0..4 {
        w.blocking_next().expect("open").expect("put event");
    }
    let del = w.blocking_next().expect("open").expect("delete event");
    assert_eq!(
        (del.kind, &del.key[..]),
        (EventKind::Delete, &b"/ev/short"[..])
    );
    assert_eq!(
        del.revision,
        Revision(5),
        "expiry is an ordinary delete at a new revision"
    );
    assert_eq!(del.prev.expect("prev").value, "bye");
    assert!(e.get(b"/ev/short", None).expect("get").kv.is_none());
    std::thread::sleep(Duration::from_millis(150));
    assert_eq!(
        e.get(b"/ev/renewed", None)
            .expect("get")
            .kv
            .expect("kept")
            .value,
        "2"
    );
    let later = e.get(b"/ev/later", None).expect("get").kv.expect("kept");
    assert!(later.expires_at.expect("expiry") > SystemTime::now() + Duration::from_secs(3000));
    // A key that expires while the engine is closed goes after reopening.
    e.commit_blocking(Txn::new().put_with_ttl("/ev/offline", "x", Duration::from_millis(50)))
        .expect("put");
    drop(w);
    e.close();
    std::thread::sleep(Duration::from_millis(100));
    let e = Engine::open(dir.path(), opts).expect("reopen");
    let deadline = Instant::now() + Duration::from_secs(5);
    while e.get(b"/ev/offline", None).expect("get").kv.is_some() {
        assert!(
            Instant::now() < deadline,
            "expired key not deleted after reopen"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(e.get(b"/ev/later", None).expect("get").kv.is_some());
}

#[test]
fn revision_at_finds_the_newest_revision_by_then() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Engine::open(dir.path(), Options::no_sync()).expect("open");
    let before = SystemTime::now();
    std::thread::sleep(Duration::from_millis(5));
    e.commit_blocking(Txn::new().put("/t", "1")).expect("c1");
    std::thread::sleep(Duration::from_millis(5));
    let middle = SystemTime::now();
    std::thread::sleep(Duration::from_millis(5));
    e.commit_blocking(Txn::new().put("/t", "2")).expect("c2");
    assert_eq!(e.revision_at(before), None);
    assert_eq!(e.revision_at(middle), Some(Revision(1)));
    assert_eq!(e.revision_at(SystemTime::now()), Some(Revision(2)));
    drop(e);
    let e = Engine::open(dir.path(), Options::no_sync()).expect("reopen");
    assert_eq!(
        e.revision_at(middle),
        Some(Revision(1)),
        "commit times survive a reopen"
    );
}

#[test]
fn reads_outside_the_retained_window_fail_typed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Engine::open(dir.path(), Options::no_sync()).expect("open");
    for i in 0..10 {
        e.commit_blocking(Txn::new().put("/k", format!("{i}")))
            .expect("commit");
    }
    e.compact(Revision(5)).expect("compact");
    assert!(matches!(
        e.get(b"/k", Some(Revision(4))),
        Err(Error::Compacted {
            requested: Revision(4),
            compacted: Revision(5)
        })
    ));
    assert!(matches!(
        e.get(b"/k", Some(Revision(11))),
        Err(Error::FutureRevision {
            requested: Revision(11),
            current: Revision(10)
        })
    ));
    assert_eq!(
        e.get(b"/k", Some(Revision(5)))
            .expect("at compacted")
            .kv
            .expect("kv")
            .value,
        "4"
    );
    assert!(matches!(
        e.compact(Revision(11)),
        Err(Error::FutureRevision { .. })
    ));
    e.compact(Revision(3))
        .expect("compacting below the point is a no-op");
    assert_eq!(e.compacted_revision(), Revision(5));
    let r = e.range(
        &KeyRange::prefix(b"/"),
        RangeOptions {
            at: Some(Revision(2)),
            ..RangeOptions::default()
        },
    );
    assert!(matches!(r, Err(Error::Compacted { .. })));
}

#[test]
fn bad_transactions_are_refused_and_write_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Engine::open(
        dir.path(),
        Options {
            max_txn_bytes: 4096,
            ..Options::no_sync()
        },
    )
    .expect("open");
    e.commit_blocking(Txn::new().put("/a", "1"))
        .expect("commit");
    let bad = [
        Txn::new().put("", "empty key"),
        Txn::new().put("/big", vec![0u8; 5000]),
        Txn::new().put("/dup", "1").delete("/dup"),
    ];
    for t in bad {
        assert!(matches!(
            e.commit_blocking(t),
            Err(Error::InvalidArgument(_))
        ));
    }
    match e.commit_blocking(
        Txn::new()
            .guard(Guard::Absent(b"/a".to_vec()))
            .put("/b", "2"),
    ) {
        Err(Error::GuardFailed { index: 0, current }) => {
            assert_eq!(current.expect("current").value, "1")
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        e.commit_blocking(
            Txn::new()
                .guard(Guard::Present(b"/zz".to_vec()))
                .put("/b", "2")
        ),
        Err(Error::GuardFailed {
            index: 0,
            current: None
        })
    ));
    assert_eq!(e.current_revision(), Revision(1));
    assert!(e.get(b"/b", None).expect("get").kv.is_none());
    let none = e
        .commit_blocking(Txn::new().delete("/nothing").with_prev())
        .expect("no-op");
    assert_eq!(
        (none.revision, none.changed, none.prev),
        (Revision(1), false, vec![None])
    );
}

#[test]
fn versions_follow_etcd_semantics() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Engine::open(dir.path(), Options::no_sync()).expect("open");
    e.commit_blocking(Txn::new().put("/v", "a")).expect("1");
    e.commit_blocking(Txn::new().put("/v", "b")).expect("2");
    e.commit_blocking(Txn::new().delete("/v")).expect("3");
    e.commit_blocking(Txn::new().put("/v", "c")).expect("4");
    let kv = e.get(b"/v", None).expect("get").kv.expect("kv");
    assert_eq!(
        (kv.create_revision, kv.mod_revision, kv.version),
        (Revision(4), Revision(4), 1)
    );
    let old = e
        .get(b"/v", Some(Revision(2)))
        .expect("get")
        .kv
        .expect("kv");
    assert_eq!(
        (old.create_revision, old.mod_revision, old.version),
        (Revision(1), Revision(2), 2)
    );
    assert!(e.get(b"/v", Some(Revision(3))).expect("get").kv.is_none());
}

#[test]
fn reclaim_gives_space_back_and_stats_follow() {
    let dir = tempfile::tempdir().expect("tempdir");
    let opts = Options {
        segment_bytes: 64 << 10,
        background_reclaim: false,
        ..Options::no_sync()
    };
    let e = Engine::open(dir.path(), opts.clone()).expect("open");
    for i in 0..4000u64 {
        e.commit_blocking(Txn::new().put(format!("/s/{:02}", i % 50), "v".repeat(200)))
            .expect("commit");
    }
    let before = e.stats();
    assert_eq!(
        (before.live_keys, before.versions, before.records),
        (50, 4000, 4000)
    );
    assert!(before.segments > 10);
    e.compact(Revision(3990)).expect("compact");
    let mid = e.stats();
    assert_eq!(
        mid.versions,
        50 + 10 - 10 + 10,
        "newest ≤ 3990 per key plus the 10 newer versions"
    );
    assert!(
        mid.bytes_reclaimable > before.bytes_on_disk * 8 / 10,
        "{mid:?}"
    );
    let r = e.reclaim(false).expect("reclaim");
    assert!(
        r.segments_in > 10 && r.reclaimed() > before.bytes_on_disk * 8 / 10,
        "{r:?}"
    );
    let after = e.stats();
    assert!(after.bytes_on_disk < before.bytes_on_disk / 5, "{after:?}");
    assert!(
        after.bytes_reclaimable < mid.bytes_reclaimable / 20,
        "only segments straddling C or active keep dead bytes"
    );
    assert_eq!(
        common::state_at(&e, None).len(),
        0,
        "other prefix untouched"
    );
    let all = e
        .range(&KeyRange::prefix(b"/s/"), RangeOptions::default())
        .expect("range");
    assert_eq!(all.items.len(), 50);
    drop(e);
    let files = std::fs::read_dir(dir.path()).expect("ls").count();
    let e = Engine::open(dir.path(), opts).expect("reopen");
    assert_eq!(e.stats().live_keys, 50);
    assert_eq!(
        e.range(&KeyRange::prefix(b"/s/"), RangeOptions::default())
            .expect("range")
            .items,
        all.items
    );
    assert!(files < 20, "old segment files were deleted: {files}");
}

#[test]
fn background_reclaim_runs_after_compact() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Engine::open(
        dir.path(),
        Options {
            segment_bytes: 16 << 10,
            ..Options::no_sync()
        },
    )
    .expect("open");
    for i in 0..2000u64 {
        e.commit_blocking(Txn::new().put(format!("/b/{}", i % 10), "v".repeat(100)))
            .expect("commit");
    }
    let before = e.stats().bytes_on_disk;
    e.compact(e.current_revision()).expect("compact");
    let deadline = Instant::now() + Duration::from_secs(10);
    while e.stats().bytes_on_disk > before / 4 {
        assert!(Instant::now() < deadline, "background reclaim did not run");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn durable_segments_keep_zeros_ahead_and_reopen_where_the_records_end() {
    let dir = tempfile::tempdir().expect("tempdir");
    let opts = Options {
        segment_bytes: 128 << 10,
        zero_fill_ahead: 32 << 10,
        ..Options::default()
    };
    let value = |i: u64| format!("{i:06}-{}", "z".repeat(1000));
    let write = |e: &Engine, range: std::ops::Range<u64>| {
        for i in range {
            e.commit_blocking(Txn::new().put(format!("/z/{i:06}"), value(i)))
                .expect("commit");
        }
    };
    let check_files = |e: &Engine| {
        let segs = e.segments();
        let (active, sealed) = segs.split_last().expect("segments");
        for s in sealed {
            assert_eq!(
                s.file_bytes, s.bytes,
                "sealed {:?} ends at its records",
                s.file
            );
        }
        assert!(
            active.file_bytes > active.bytes,
            "zeros kept ahead: {active:?}"
        );
        let bytes = std::fs::read(&active.file).expect("read");
        let records_end = usize::try_from(active.bytes).expect("small");
        assert!(bytes[records_end..].iter().all(|&b| b == 0));
    };

    let e = Engine::open(dir.path(), opts.clone()).expect("open");
    write(&e, 0..300);
    check_files(&e);
    e.close();
    assert!(
        cairn_engine::inspect::torn_tail(dir.path(), &opts)
            .expect("scan")
            .is_none()
    );
    let report = cairn_engine::inspect::verify(dir.path(), &opts, 1, &|_| {}).expect("verify");
    assert_eq!(report.problems.len(), 0, "{:?}", report.problems);
    assert_eq!(report.records, 300);

    // Reopened, appends go on where the records end, not after the zeros.
    let e = Engine::open(dir.path(), opts.clone()).expect("reopen");
    assert_eq!(e.stats().current_revision, Revision(300));
    write(&e, 300..600);
    check_files(&e);
    e.close();
    let e = Engine::open(dir.path(), opts).expect("reopen");
    let all = e
        .range(&KeyRange::prefix(b"/z/"), RangeOptions::default())
        .expect("range");
    assert_eq!(all.items.len(), 600);
    for (i, kv) in (0u64..).zip(&all.items) {
        assert_eq!(kv.value.as_ref(), value(i).as_bytes());
        assert_eq!(kv.mod_revision, Revision(i + 1));
    }
}
