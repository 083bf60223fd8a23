//! A backend for the cache's tests: a real embedded store that counts its
//! reads and watches and can break its watches.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use super::WatchCache;
use crate::storage::embedded::Embedded;
use crate::storage::{
    Committed, Events, GetResult, KeyRange, RangeOptions, RangeResult, Reply, Revision, Status,
    Storage, StorageError, Txn, Watch, WatchStream,
};

pub(super) const PATIENCE: Duration = Duration::from_secs(30);

/// A backend that counts its reads and watches and can break its watches.
pub(super) struct Spy {
    pub(super) inner: Embedded,
    pub(super) gets: AtomicUsize,
    pub(super) ranges: AtomicUsize,
    pub(super) watches: AtomicUsize,
    /// `current_revision` calls: what a consistent read asks first.
    pub(super) revisions: AtomicUsize,
    /// Watches opened before the latest break end with `Unavailable`.
    pub(super) breaks: Arc<AtomicU64>,
}

struct SpyWatch {
    inner: Watch,
    breaks: Arc<AtomicU64>,
    born: u64,
}

impl WatchStream for SpyWatch {
    fn poll_next_batch(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Events, StorageError>>> {
        if self.breaks.load(Ordering::SeqCst) != self.born {
            return Poll::Ready(Some(Err(StorageError::Unavailable("broken".into()))));
        }
        self.inner.poll_next_batch(cx)
    }

    fn try_next_batch(&mut self) -> Option<Result<Events, StorageError>> {
        self.inner.try_next_batch()
    }

    fn progress(&self) -> Revision {
        self.inner.progress()
    }

    fn sync_progress(&mut self) -> Option<Revision> {
        self.inner.sync_progress()
    }
}

impl Storage for Spy {
    fn get(&self, key: &[u8], at: Option<Revision>) -> Reply<'_, Result<GetResult, StorageError>> {
        self.gets.fetch_add(1, Ordering::SeqCst);
        self.inner.get(key, at)
    }
    fn range(&self, r: KeyRange, o: RangeOptions) -> Reply<'_, Result<RangeResult, StorageError>> {
        self.ranges.fetch_add(1, Ordering::SeqCst);
        self.inner.range(r, o)
    }
    fn commit(&self, txn: Txn) -> Reply<'_, Result<Committed, StorageError>> {
        self.inner.commit(txn)
    }
    fn watch(&self, range: KeyRange, after: Revision) -> Watch {
        self.watches.fetch_add(1, Ordering::SeqCst);
        Watch::new(SpyWatch {
            inner: self.inner.watch(range, after),
            breaks: Arc::clone(&self.breaks),
            born: self.breaks.load(Ordering::SeqCst),
        })
    }
    fn current_revision(&self) -> Reply<'_, Result<Revision, StorageError>> {
        self.revisions.fetch_add(1, Ordering::SeqCst);
        self.inner.current_revision()
    }
    fn status(&self) -> Reply<'_, Result<Status, StorageError>> {
        self.inner.status()
    }
    fn compact(&self, at: Revision) -> Reply<'_, Result<(), StorageError>> {
        self.inner.compact(at)
    }
    fn health(&self) -> Result<(), String> {
        self.inner.health()
    }
    fn close(&self) {
        self.inner.close();
    }
}

pub(super) async fn cached() -> (tempfile::TempDir, Arc<Spy>, Arc<WatchCache>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let spy = Arc::new(Spy {
        inner: Embedded::open(dir.path()).expect("open"),
        gets: AtomicUsize::new(0),
        ranges: AtomicUsize::new(0),
        watches: AtomicUsize::new(0),
        revisions: AtomicUsize::new(0),
        breaks: Arc::new(AtomicU64::new(0)),
    });
    spy.commit(Txn::new().put("/registry/old/a", "a0"))
        .await
        .expect("commit");
    let backend: Arc<dyn Storage> = Arc::clone(&spy) as Arc<dyn Storage>;
    let cache = WatchCache::start(backend, KeyRange::prefix(b"/registry/"));
    assert!(cache.loaded(PATIENCE).await, "the cache loads");
    (dir, spy, cache)
}

pub(super) async fn put(storage: &dyn Storage, key: &str, value: &str) -> Revision {
    storage
        .commit(Txn::new().put(key, value))
        .await
        .expect("commit")
        .revision
}

pub(super) async fn next(watch: &mut Watch) -> Result<Vec<(String, Revision)>, StorageError> {
    let got = tokio::time::timeout(PATIENCE, watch.next_batch())
        .await
        .expect("an event in time")
        .expect("the watch is open")?;
    Ok(got
        .iter()
        .map(|e| (String::from_utf8_lossy(&e.key).into_owned(), e.revision))
        .collect())
}
