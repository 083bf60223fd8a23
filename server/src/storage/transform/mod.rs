//! Value transformers around any backend: every value is transformed on its
//! way in (puts) and back on every way out (get, range, the current record
//! of a failed guard, watch events and their previous records). This is
//! where encryption at rest applies.
//!
//! With identity transformers everywhere (today's default) every call goes
//! straight to the backend; a value whose transformer is the identity is
//! never touched, so reads stay zero-copy.

#[cfg(test)]
mod tests;
mod watch;

use std::borrow::Cow;
use std::sync::Arc;

use bytes::Bytes;
use cairn_transform::Transformers;

use crate::storage::{
    Committed, GetResult, KeyRange, KeyValue, Op, RangeOptions, RangeResult, Reply, Revision,
    Status, Storage, StorageError, Txn, Watch,
};

/// A backend whose values pass through [`Transformers`].
pub struct TransformingStorage {
    inner: Arc<dyn Storage>,
    transformers: Arc<Transformers>,
    /// Every transformer is the identity: pass everything through.
    identity: bool,
}

impl TransformingStorage {
    #[must_use]
    pub fn new(inner: Arc<dyn Storage>, transformers: Transformers) -> TransformingStorage {
        TransformingStorage {
            inner,
            identity: transformers.is_identity(),
            transformers: Arc::new(transformers),
        }
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

impl TransformingStorage {
    fn stored(&self, txn: &mut Txn) -> Result<(), StorageError> {
        for op in &mut txn.ops {
            let Op::Put { key, value, .. } = op else {
                continue;
            };
            let stored = match self.transformers.transform_to_storage(key, value) {
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
}

impl Storage for TransformingStorage {
    fn get(&self, key: &[u8], at: Option<Revision>) -> Reply<'_, Result<GetResult, StorageError>> {
        let got = self.inner.get(key, at);
        if self.identity {
            return got;
        }
        got.map(|got| {
            let mut got = got?;
            if let Some(kv) = &mut got.kv {
                plain(&self.transformers, kv)?;
            }
            Ok(got)
        })
    }

    fn range(
        &self,
        range: KeyRange,
        opts: RangeOptions,
    ) -> Reply<'_, Result<RangeResult, StorageError>> {
        let found = self.inner.range(range, opts);
        if self.identity || opts.keys_only || opts.count_only {
            return found;
        }
        found.map(|found| {
            let mut found = found?;
            for kv in &mut found.items {
                plain(&self.transformers, kv)?;
            }
            Ok(found)
        })
    }

    fn commit(&self, mut txn: Txn) -> Reply<'_, Result<Committed, StorageError>> {
        if self.identity {
            return self.inner.commit(txn);
        }
        if let Err(e) = self.stored(&mut txn) {
            return Reply::ready(Err(e));
        }
        self.inner
            .commit(txn)
            .map(|r| r.map_err(|e| plain_error(&self.transformers, e)))
    }

    fn watch(&self, range: KeyRange, after: Revision) -> Watch {
        let inner = self.inner.watch(range, after);
        if self.identity {
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

    fn health(&self) -> Result<(), String> {
        self.inner.health()
    }

    fn close(&self) {
        self.inner.close();
    }
}
