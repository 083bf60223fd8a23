//! `Watch::sync_progress`: a watch learns that commits outside its range
//! moved the store on, without missing a batch of its own range, and never
//! claims progress it has not made (history not yet read, a lagged feed).

use cairn_engine::{Engine, Error, KeyRange, Options, Revision, Txn};

fn put(e: &Engine, key: &str) -> Revision {
    e.commit_blocking(Txn::new().put(key, "v"))
        .expect("commit")
        .revision
}

#[test]
fn commits_elsewhere_advance_a_synced_watch_and_its_own_are_queued_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Engine::open(dir.path(), Options::no_sync()).expect("open");
    let start = put(&e, "/a/0");
    let mut watch = e.watch(KeyRange::prefix(b"/a/"), start).expect("watch");
    assert!(watch.try_next_batch().is_none(), "caught up and live");
    for i in 0..3 {
        put(&e, &format!("/b/{i}"));
    }
    assert_eq!(
        watch.progress(),
        start,
        "unsynced: only its own events count"
    );
    assert_eq!(watch.sync_progress(), e.current_revision());
    assert!(watch.try_next_batch().is_none(), "nothing of its range");

    let own = put(&e, "/a/1");
    let other = put(&e, "/b/9");
    assert_eq!(watch.sync_progress(), other);
    let batch = watch
        .try_next_batch()
        .expect("its batch was queued")
        .expect("no error");
    let revs: Vec<Revision> = batch.iter().map(|ev| ev.revision).collect();
    assert_eq!(revs, vec![own]);
    assert!(watch.try_next_batch().is_none());
    assert_eq!(watch.progress(), other);
}

#[test]
fn a_watch_still_reading_history_does_not_jump_ahead() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Engine::open(dir.path(), Options::no_sync()).expect("open");
    for i in 0..20 {
        put(&e, &format!("/a/{i}"));
    }
    let mut watch = e
        .watch(KeyRange::prefix(b"/a/"), Revision(5))
        .expect("watch");
    assert_eq!(
        watch.sync_progress(),
        Revision(5),
        "history after 5 is unread"
    );
    let mut seen = 0;
    while let Some(batch) = watch.try_next_batch() {
        seen += batch.expect("no error").iter().count();
    }
    assert_eq!(seen, 15);
    put(&e, "/z/1");
    assert_eq!(watch.sync_progress(), e.current_revision());
}

#[test]
fn a_lagged_watch_ends_instead_of_advancing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = Engine::open(
        dir.path(),
        Options {
            watch_buffer_batches: 2,
            ..Options::no_sync()
        },
    )
    .expect("open");
    let mut watch = e
        .watch(KeyRange::prefix(b"/a/"), Revision::ZERO)
        .expect("watch");
    assert!(watch.try_next_batch().is_none());
    for i in 0..10 {
        put(&e, &format!("/a/{i}"));
    }
    let synced = watch.sync_progress();
    assert!(
        synced < e.current_revision(),
        "progress stops at what was buffered: {synced:?}"
    );
    let err = loop {
        match watch.try_next_batch() {
            Some(Ok(_)) => {}
            Some(Err(err)) => break err,
            None => panic!("ended without an error"),
        }
    };
    assert!(matches!(err, Error::Lagged { .. }), "{err}");
}
