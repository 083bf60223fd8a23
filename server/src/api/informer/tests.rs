//! Informers on a real embedded store: list then watch of a prefix, a re-list
//! after a watch lost to compaction, projecting caches, and shared caches.

use std::sync::Arc;

use crate::storage::embedded::Embedded;
use crate::storage::{
    Committed, GetResult, KeyRange, RangeOptions, RangeResult, Reply, Revision, Status, Storage,
    StorageError, Txn, Watch,
};

use super::{Cache, Informer, Shared, Update};

fn storage(dir: &std::path::Path) -> Arc<dyn Storage> {
    Arc::new(Embedded::open(dir).expect("open"))
}

async fn put(s: &Arc<dyn Storage>, key: &str, value: &str) -> Revision {
    s.commit(Txn::new().put(key.as_bytes().to_vec(), value.as_bytes().to_vec()))
        .await
        .expect("commit")
        .revision
}

fn shape(update: &Update) -> String {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    match update {
        Update::Reset => "reset".into(),
        Update::Put { kv, prev } => format!(
            "put {}={} prev={:?}",
            text(&kv.key),
            text(&kv.value),
            prev.as_ref().map(|p| text(&p.value))
        ),
        Update::Deleted { key, prev, .. } => format!(
            "delete {} prev={:?}",
            text(key),
            prev.as_ref().map(|p| text(&p.value))
        ),
        Update::Synced { .. } => "synced".into(),
    }
}

async fn take(informer: &mut Informer, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    for _ in 0..n {
        let update = informer.next().await.expect("open").expect("update");
        out.push(shape(&update));
    }
    out
}

#[tokio::test]
async fn lists_then_watches_its_prefix_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = storage(dir.path());
    put(&s, "/registry/a/1", "one").await;
    put(&s, "/registry/b/1", "other").await;
    let mut informer = Informer::over(Arc::clone(&s), b"/registry/a/".to_vec());
    assert_eq!(
        take(&mut informer, 3).await,
        ["reset", "put /registry/a/1=one prev=None", "synced"]
    );
    put(&s, "/registry/b/2", "ignored").await;
    put(&s, "/registry/a/1", "uno").await;
    s.commit(Txn::new().delete(b"/registry/a/1".to_vec()))
        .await
        .expect("delete");
    assert_eq!(
        take(&mut informer, 2).await,
        [
            "put /registry/a/1=uno prev=Some(\"one\")",
            "delete /registry/a/1 prev=Some(\"uno\")"
        ]
    );
    assert!(informer.try_next().is_none());
    s.close();
}

#[tokio::test]
async fn a_large_list_comes_in_pages_of_one_revision_then_the_watch() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = storage(dir.path());
    let stored = super::LIST_PAGE * 2 + 7;
    let mut txn = Txn::new();
    for i in 0..stored {
        txn = txn.put(format!("/registry/p/{i:05}").into_bytes(), b"v0".to_vec());
    }
    s.commit(txn).await.expect("commit");
    let mut informer = Informer::over(Arc::clone(&s), b"/registry/p/".to_vec());
    assert_eq!(take(&mut informer, 2).await[0], "reset");
    assert!(
        informer.pending.len() < super::LIST_PAGE,
        "one page is held at a time"
    );
    // Written while the list is under way: not in the list, but watched.
    put(&s, "/registry/p/00000", "v1").await;
    put(&s, "/registry/p/99999", "new").await;
    let rest = take(&mut informer, stored + 2).await;
    let listed: Vec<_> = (0..stored)
        .map(|i| format!("put /registry/p/{i:05}=v0 prev=None"))
        .collect();
    assert_eq!(rest[..stored - 1], listed[1..]);
    assert_eq!(rest[stored - 1], "synced");
    assert_eq!(rest[stored], "put /registry/p/00000=v1 prev=Some(\"v0\")");
    assert_eq!(rest[stored + 1], "put /registry/p/99999=new prev=None");
    s.close();
}

#[tokio::test]
async fn a_watch_lost_to_compaction_lists_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = storage(dir.path());
    put(&s, "/registry/a/1", "v0").await;
    let mut informer = Informer::over(Arc::clone(&s), b"/registry/a/".to_vec());
    let mut cache = Cache::new(|kv| Some(String::from_utf8_lossy(&kv.value).into_owned()));
    while !cache.is_synced() {
        cache.apply(informer.next().await.expect("open").expect("update"));
    }
    // The informer is not read while far more commit batches go by than a
    // watcher may fall behind by; then history is compacted past them.
    let mut last = Revision::default();
    for i in 0..1100 {
        last = put(&s, "/registry/a/1", &format!("v{}", i + 1)).await;
    }
    put(&s, "/registry/a/2", "two").await;
    s.compact(last).await.expect("compact");
    // Whatever was delivered before the watch was lost, a fresh list follows.
    let mut reset = false;
    loop {
        let update = informer.next().await.expect("open").expect("update");
        reset |= matches!(update, Update::Reset);
        let synced = matches!(update, Update::Synced { .. });
        cache.apply(update);
        if reset && synced {
            break;
        }
    }
    let values: Vec<&String> = cache.values().collect();
    assert_eq!(values, ["v1100", "two"]);
    assert!(cache.is_synced());
    s.close();
}

#[tokio::test]
async fn a_cache_keeps_what_its_projection_makes_something_of() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = storage(dir.path());
    put(&s, "/registry/n/a", "keep").await;
    put(&s, "/registry/n/b", "drop").await;
    let mut informer = Informer::over(Arc::clone(&s), b"/registry/n/".to_vec());
    let mut cache = Cache::new(|kv| (&kv.value[..] == b"keep").then(|| kv.key.clone()));
    while !cache.is_synced() {
        cache.apply(informer.next().await.expect("open").expect("update"));
    }
    assert_eq!(cache.len(), 1);
    // An object that stops mattering leaves the cache; a delete of one it
    // never kept changes nothing.
    put(&s, "/registry/n/a", "drop").await;
    assert!(cache.apply(informer.next().await.expect("open").expect("update")));
    assert!(cache.is_empty());
    s.commit(Txn::new().delete(b"/registry/n/b".to_vec()))
        .await
        .expect("delete");
    assert!(!cache.apply(informer.next().await.expect("open").expect("update")));
    assert!(!cache.apply(Update::Reset));
    assert!(!cache.is_synced());
    s.close();
}

#[tokio::test]
async fn a_shared_informer_serves_many_readers_and_tells_them_of_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = storage(dir.path());
    put(&s, "/registry/r/a", "1").await;
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let informer = Informer::over(Arc::clone(&s), b"/registry/r/".to_vec());
    let mut first: Shared<String> = Shared::spawn(
        informer,
        |kv| Some(String::from_utf8_lossy(&kv.value).into_owned()),
        stop,
    );
    let mut second = first.clone();
    assert!(first.changed().await);
    assert!(first.read().is_synced());
    assert_eq!(first.read().values().cloned().collect::<Vec<_>>(), ["1"]);
    put(&s, "/registry/r/b", "2").await;
    assert!(second.changed().await);
    while second.read().len() < 2 {
        assert!(second.changed().await);
    }
    assert_eq!(
        second.read().values().cloned().collect::<Vec<_>>(),
        ["1", "2"]
    );
    stop_tx.send(true).expect("stop");
    while first.changed().await {}
    s.close();
}

#[tokio::test]
async fn failed_lists_are_retried_after_growing_pauses_not_at_once() {
    let mut informer = Informer::over(Arc::new(Down), b"/registry/a/".to_vec());
    let mut attempts = Vec::new();
    let started = tokio::time::Instant::now();
    let _ = tokio::time::timeout(std::time::Duration::from_secs(3), async {
        loop {
            match informer.next().await {
                Some(Err(_)) => attempts.push(started.elapsed()),
                other => panic!("a closed store lists nothing: {other:?}"),
            }
        }
    })
    .await;
    // 0, then 0.8 s later, then 1.6 s after that: three, not thousands.
    assert_eq!(attempts.len(), 3, "{attempts:?}");
    assert!(attempts[1] - attempts[0] >= std::time::Duration::from_millis(800));
    assert!(attempts[2] - attempts[1] >= std::time::Duration::from_millis(1600));
}

/// A backend that cannot be reached.
struct Down;

fn down<T>() -> Reply<'static, Result<T, StorageError>> {
    Reply::Ready(Err(StorageError::Unavailable("down".into())))
}

impl Storage for Down {
    fn get(&self, _: &[u8], _: Option<Revision>) -> Reply<'_, Result<GetResult, StorageError>> {
        down()
    }
    fn range(&self, _: KeyRange, _: RangeOptions) -> Reply<'_, Result<RangeResult, StorageError>> {
        down()
    }
    fn commit(&self, _: Txn) -> Reply<'_, Result<Committed, StorageError>> {
        down()
    }
    fn watch(&self, _: KeyRange, after: Revision) -> Watch {
        Watch::failed(StorageError::Unavailable("down".into()), after)
    }
    fn current_revision(&self) -> Reply<'_, Result<Revision, StorageError>> {
        down()
    }
    fn status(&self) -> Reply<'_, Result<Status, StorageError>> {
        down()
    }
    fn compact(&self, _: Revision) -> Reply<'_, Result<(), StorageError>> {
        down()
    }
    fn health(&self) -> Result<(), String> {
        Err("down".into())
    }
    fn close(&self) {}
}
