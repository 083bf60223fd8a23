//! Reads of the current state beyond the verbs (an object as stored now,
//! for controllers and the write loops), and compacting away history
//! before a revision (the compaction controller, every interval).

use serde_json::Value;

use crate::api::error::ApiError;
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::store::{Store, storage_error};
use crate::storage::{KeyValue, Revision};

impl Store {
    /// An object as stored now (its resourceVersion filled in); `None` when
    /// there is none.
    pub async fn current(
        &self,
        kind: &KindSpec,
        ns: Option<&str>,
        name: &str,
    ) -> Result<Option<Value>, ApiError> {
        let key = keys::object_key(kind, ns, name);
        match self
            .storage
            .get(&key, None)
            .await
            .map_err(storage_error)?
            .kv
        {
            Some(kv) => Store::decode_stored(&kv).map(Some),
            None => Ok(None),
        }
    }

    /// The record at `key` now, or the kind's 404 for `name`: what every
    /// read-modify-write loop starts (and, after a lost race, restarts) from.
    pub(super) async fn read_existing(
        &self,
        kind: &KindSpec,
        key: &[u8],
        name: &str,
    ) -> Result<KeyValue, ApiError> {
        self.storage
            .get(key, None)
            .await
            .map_err(storage_error)?
            .kv
            .ok_or_else(|| kind.not_found(name))
    }

    /// Forgets history before `target` unless it is already compacted that
    /// far; whether the compaction point moved.
    pub async fn compact_to(&self, target: Revision) -> Result<bool, ApiError> {
        let status = self.storage.status().await.map_err(storage_error)?;
        if target <= status.compacted_revision {
            return Ok(false);
        }
        let moved = self
            .storage
            .compact_round(target)
            .await
            .map_err(storage_error)?;
        self.hubs.forget_before(target);
        Ok(moved)
    }
}
