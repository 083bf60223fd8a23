//! Value transformers around any backend: every value is transformed on its
//! way in (puts) and back on every way out (get, range, the current record
//! of a failed guard, watch events and their previous records). This is
//! where encryption at rest applies.
//!
//! With identity transformers everywhere (no encryption configured) every
//! call goes straight to the backend; a value whose transformer is the
//! identity is never touched, so reads stay zero-copy. The transformers
//! can be replaced while serving (a reloaded encryption configuration):
//! each call uses the set current when it starts.

#[cfg(test)]
mod tests;
mod watch;

use std::borrow::Cow;
use std::sync::Arc;

use bytes::Bytes;
use cairn_transform::Transformers;
use parking_lot::RwLock;

use crate::storage::{
    Committed, GetResult, KeyRange, KeyValue, Op, RangeOptions, RangeResult, Reply, Revision,
    Status, Storage, StorageError, Txn, Watch,
};

/// The transformers in force, replaceable as a whole.
pub struct SharedTransformers {
    current: RwLock<Arc<Transformers>>,
}

impl SharedTransformers {
    #[must_use]
    pub fn new(transformers: Transformers) -> SharedTransformers {
        SharedTransformers {
            current: RwLock::new(Arc::new(transformers)),
        }
    }

    /// The set in force now.
    #[must_use]
    pub fn load(&self) -> Arc<Transformers> {
        Arc::clone(&self.current.read())
    }

    /// Puts `transformers` in force for every later call.
    pub fn replace(&self, transformers: Transformers) {
        *self.current.write() = Arc::new(transformers);
    }
}

/// A backend whose values pass through [`Transformers`].
pub struct TransformingStorage {
    inner: Arc<dyn Storage>,
    transformers: Arc<SharedTransformers>,
}

impl TransformingStorage {
    #[must_use]
    pub fn new(inner: Arc<dyn Storage>, transformers: Transformers) -> TransformingStorage {
        TransformingStorage::shared(inner, Arc::new(SharedTransformers::new(transformers)))
    }

    /// A backend whose transformers may be replaced while it serves.
    #[must_use]
    pub fn shared(
        inner: Arc<dyn Storage>,
        transformers: Arc<SharedTransformers>,
    ) -> TransformingStorage {
        TransformingStorage {
            inner,
            transformers,
        }
    }

    /// The transformers in force, or `None` when every one is the identity.
    fn current(&self) -> Option<Arc<Transformers>> {
        let t = self.transformers.load();
        (!t.is_identity()).then_some(t)
    }

    /// A key read, its value as it was written.
    fn plain_read<'a>(
        &self,
        got: Reply<'a, Result<GetResult, StorageError>>,
    ) -> Reply<'a, Result<GetResult, StorageError>> {
        let Some(transformers) = self.current() else {
            return got;
        };
        got.map(move |got| {
            let mut got = got?;
            if let Some(kv) = &mut got.kv {
                plain(&transformers, kv)?;
            }
            Ok(got)
        })
    }
}

/// `kv`'s value as it was written.
pub(super) fn plain(transformers: &Transformers, kv: &mut KeyValue) -> Result<(), StorageError> {
    let t = transformers.for_key(&kv.key);
    if t.is_identity() {
        return Ok(());
    }
    let read =
        t.transform_from_storage(&kv.key, &kv.value)
            .map_err(|e| StorageError::CorruptValue {
                key: kv.key.clone(),
                reason: e.reason,
            })?;
    // The transformer's unused `stale` flag: every write stores the current
    // form, so a stale value is replaced by its next update.
    kv.value = match read.value {
        Cow::Borrowed(b) => kv.value.slice_ref(b),
        Cow::Owned(v) => Bytes::from(v),
    };
    Ok(())
}

fn plain_error(transformers: &Transformers, e: StorageError) -> StorageError {
    match e {
        StorageError::Conflict { guard, mut current } => match plain(transformers, &mut current) {
            Ok(()) => StorageError::Conflict { guard, current },
            Err(e) => e,
        },
        e => e,
    }
}

fn stored(transformers: &Transformers, txn: &mut Txn) -> Result<(), StorageError> {
    for op in &mut txn.ops {
        let Op::Put { key, value, .. } = op else {
            continue;
        };
        let stored = match transformers.transform_to_storage(key, value) {
            Ok(Cow::Borrowed(_)) => continue,
            Ok(Cow::Owned(v)) => v,
            Err(e) => {
                return Err(StorageError::Internal(format!(
                    "cannot transform the value of {} for storage: {e}",
                    String::from_utf8_lossy(key)
                )));
            }
        };
        *value = stored;
    }
    Ok(())
}

impl Storage for TransformingStorage {
    fn pages_cheaply(&self) -> bool {
        self.inner.pages_cheaply()
    }

    fn reached(&self, revision: Revision) -> bool {
        self.inner.reached(revision)
    }

    fn catch_up(&self, revision: Revision) -> Reply<'_, bool> {
        self.inner.catch_up(revision)
    }

    fn get(&self, key: &[u8], at: Option<Revision>) -> Reply<'_, Result<GetResult, StorageError>> {
        self.plain_read(self.inner.get(key, at))
    }

    fn get_recent(&self, key: &[u8]) -> Reply<'_, Result<GetResult, StorageError>> {
        self.plain_read(self.inner.get_recent(key))
    }

    fn range(
        &self,
        range: KeyRange,
        opts: RangeOptions,
    ) -> Reply<'_, Result<RangeResult, StorageError>> {
        let found = self.inner.range(range, opts);
        if opts.keys_only || opts.count_only {
            return found;
        }
        let Some(transformers) = self.current() else {
            return found;
        };
        found.map(move |found| {
            let mut found = found?;
            for kv in &mut found.items {
                plain(&transformers, kv)?;
            }
            Ok(found)
        })
    }

    fn commit(&self, mut txn: Txn) -> Reply<'_, Result<Committed, StorageError>> {
        let Some(transformers) = self.current() else {
            return self.inner.commit(txn);
        };
        if let Err(e) = stored(&transformers, &mut txn) {
            return Reply::ready(Err(e));
        }
        self.inner
            .commit(txn)
            .map(move |r| r.map_err(|e| plain_error(&transformers, e)))
    }

    fn watch(&self, range: KeyRange, after: Revision) -> Watch {
        let inner = self.inner.watch(range, after);
        if self.current().is_none() {
            return inner;
        }
        Watch::new(watch::PlainWatch {
            inner,
            transformers: Arc::clone(&self.transformers),
            failed: false,
        })
    }

    fn current_revision(&self) -> Reply<'_, Result<Revision, StorageError>> {
        self.inner.current_revision()
    }

    fn status(&self) -> Reply<'_, Result<Status, StorageError>> {
        self.inner.status()
    }

    fn compact(&self, at: Revision) -> Reply<'_, Result<(), StorageError>> {
        self.inner.compact(at)
    }

    fn compact_round(&self, at: Revision) -> Reply<'_, Result<bool, StorageError>> {
        self.inner.compact_round(at)
    }

    fn health(&self) -> Result<(), String> {
        self.inner.health()
    }

    fn close(&self) {
        self.inner.close();
    }

    fn stored_form_is_current(&self, key: &[u8], revision: Revision) -> Reply<'_, bool> {
        let Some(transformers) = self.current() else {
            return Reply::Ready(true);
        };
        // Read again as stored: only writes that would change nothing ask.
        self.inner.get(key, Some(revision)).map(move |got| {
            let Ok(GetResult { kv: Some(kv), .. }) = got else {
                return false;
            };
            transformers
                .for_key(&kv.key)
                .transform_from_storage(&kv.key, &kv.value)
                .is_ok_and(|read| !read.stale)
        })
    }
}
