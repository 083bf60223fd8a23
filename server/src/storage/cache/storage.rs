//! `Storage` for the cache: each read the window can answer exactly is
//! answered from memory; everything else goes to the backend.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::WatchCache;
use super::watch::CacheWatch;
use crate::storage::{
    Committed, GetResult, KeyRange, RangeOptions, RangeResult, Reply, Revision, Status, Storage,
    StorageError, Txn, Watch,
};

/// How long a read waits for the cache to reach the revision it needs
/// (the feed asks the backend for progress meanwhile, in case the revision
/// is a write outside the cached keys, which the cache never sees) before
/// it asks the backend instead.
const CATCH_UP: Duration = Duration::from_millis(50);

impl WatchCache {
    /// `range` at `at` from memory, if the window holds `at`.
    fn read_range(
        &self,
        range: &KeyRange,
        opts: &RangeOptions,
        at: Revision,
    ) -> Option<RangeResult> {
        let state = self.shared.state.read();
        let memory = state.memory.as_ref().filter(|m| m.holds(at))?;
        Some(memory.range(range, opts, at))
    }

    /// Waits until the cache has applied `revision` (at most `CATCH_UP`);
    /// whether it has.
    async fn caught_up(&self, revision: Revision) -> bool {
        if self.shared.applied() >= revision {
            return true;
        }
        self.shared.want(revision);
        let mut applied = self.shared.applied.subscribe();
        tokio::time::timeout(CATCH_UP, applied.wait_for(|r| *r >= revision))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// A range read at `at`, at a revision not older than
    /// `not_older_than`, or at the newest revision (consistently: the cache
    /// first reaches the backend's current revision).
    async fn range_waiting(
        &self,
        range: KeyRange,
        opts: RangeOptions,
    ) -> Result<RangeResult, StorageError> {
        let wanted = match (opts.at, opts.not_older_than) {
            (Some(at), _) => at,
            (None, Some(floor)) => floor,
            (None, None) => self.backend.current_revision().await?,
        };
        if self.caught_up(wanted).await {
            // A consistent read (or one not older than a revision) may be
            // served at any newer revision.
            let at = match opts.at {
                Some(at) => at,
                None => self.shared.applied().max(wanted),
            };
            if let Some(result) = self.read_range(&range, &opts, at) {
                return Ok(result);
            }
        }
        self.shared.fallbacks.fetch_add(1, Ordering::Relaxed);
        self.backend.range(range, opts).await
    }
}

impl Storage for WatchCache {
    fn get(&self, key: &[u8], at: Option<Revision>) -> Reply<'_, Result<GetResult, StorageError>> {
        if let Some(at) = at
            && self.covers(&KeyRange::key(key))
        {
            let state = self.shared.state.read();
            if let Some(memory) = state.memory.as_ref().filter(|m| m.holds(at)) {
                return Reply::ready(Ok(GetResult {
                    kv: memory.get(key, at),
                    revision: at,
                }));
            }
        }
        self.backend.get(key, at)
    }

    fn reached(&self, revision: Revision) -> bool {
        self.shared.applied() >= revision && self.shared.state.read().memory.is_some()
    }

    fn catch_up(&self, revision: Revision) -> Reply<'_, bool> {
        if self.reached(revision) {
            return Reply::Ready(true);
        }
        Reply::pending(self.caught_up(revision))
    }

    fn get_recent(&self, key: &[u8]) -> Reply<'_, Result<GetResult, StorageError>> {
        let floor = Revision(self.shared.floor.load(Ordering::Acquire));
        if self.covers(&KeyRange::key(key))
            && self.shared.following.load(Ordering::Acquire)
            && self.shared.applied() >= floor
        {
            let state = self.shared.state.read();
            if let Some(memory) = state.memory.as_ref() {
                let revision = memory.revision();
                if let Some(kv) = memory.get(key, revision) {
                    return Reply::ready(Ok(GetResult {
                        kv: Some(kv),
                        revision,
                    }));
                }
            }
        }
        // Perhaps written a moment ago, by another server.
        self.backend.get(key, None)
    }

    fn range(
        &self,
        range: KeyRange,
        opts: RangeOptions,
    ) -> Reply<'_, Result<RangeResult, StorageError>> {
        if !self.covers(&range) {
            return self.backend.range(range, opts);
        }
        if let Some(at) = opts.at
            && let Some(result) = self.read_range(&range, &opts, at)
        {
            return Reply::ready(Ok(result));
        }
        let loaded = self.shared.state.read().memory.is_some();
        match (loaded, opts.at) {
            (false, _) => self.backend.range(range, opts),
            // Older than the window: only the backend may still have it.
            (true, Some(at)) if at < self.oldest() => self.backend.range(range, opts),
            (true, _) => Reply::pending(self.range_waiting(range, opts)),
        }
    }

    fn commit(&self, txn: Txn) -> Reply<'_, Result<Committed, StorageError>> {
        self.backend.commit(txn).map(|outcome| {
            let floor = match &outcome {
                Err(StorageError::Conflict { current, .. }) => current.mod_revision,
                // Gone since the cache's copy: newer than anything applied.
                Err(StorageError::NotFound { .. }) => self.shared.applied().next(),
                _ => return outcome,
            };
            self.shared.floor.fetch_max(floor.get(), Ordering::AcqRel);
            outcome
        })
    }

    fn watch(&self, range: KeyRange, after: Revision) -> Watch {
        if self.covers(&range) {
            let state = self.shared.state.read();
            if state.memory.is_some()
                && !state.closed
                && let Some(next) = state.history.first_after(after)
            {
                let whole = range.start <= self.range.start && range.end == self.range.end;
                let range = (!whole).then(|| Arc::new(range));
                return Watch::new(CacheWatch::new(
                    Arc::clone(&self.shared),
                    range,
                    next,
                    after,
                    state.history.end(),
                ));
            }
        }
        self.backend.watch(range, after)
    }

    fn current_revision(&self) -> Reply<'_, Result<Revision, StorageError>> {
        self.backend.current_revision()
    }

    fn status(&self) -> Reply<'_, Result<Status, StorageError>> {
        self.backend.status()
    }

    fn compact(&self, at: Revision) -> Reply<'_, Result<(), StorageError>> {
        Reply::pending(async move {
            self.backend.compact(at).await?;
            self.shared.forget_before(at);
            Ok(())
        })
    }

    fn compact_round(&self, at: Revision) -> Reply<'_, Result<bool, StorageError>> {
        Reply::pending(async move {
            let compacted = self.backend.compact_round(at).await?;
            if compacted {
                self.shared.forget_before(at);
            }
            Ok(compacted)
        })
    }

    fn health(&self) -> Result<(), String> {
        self.backend.health()
    }

    fn close(&self) {
        self.stop.send_replace(true);
        self.shared.state.write().closed = true;
        self.shared.wake_all();
        self.backend.close();
    }

    fn stored_form_is_current(&self, key: &[u8], revision: Revision) -> Reply<'_, bool> {
        self.backend.stored_form_is_current(key, revision)
    }
}

impl WatchCache {
    /// The oldest revision the window answers.
    fn oldest(&self) -> Revision {
        self.shared
            .state
            .read()
            .memory
            .as_ref()
            .map_or(Revision::ZERO, |m| m.oldest())
    }
}
