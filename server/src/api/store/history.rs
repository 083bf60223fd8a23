//! What controllers ask of the store beyond the verbs: an object's current
//! stored state, and compacting away history older than a retention window
//! (the compaction controller, every interval).

use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::api::error::ApiError;
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::store::{Store, storage_error};
use crate::storage::Revision;

impl Store {
    /// An object as stored now (its resourceVersion filled in); `None` when
    /// there is none.
    pub fn current(
        &self,
        kind: &KindSpec,
        ns: Option<&str>,
        name: &str,
    ) -> Result<Option<Value>, ApiError> {
        let key = keys::object_key(kind, ns, name);
        match self.storage.get(&key, None).map_err(storage_error)?.kv {
            Some(kv) => Store::decode_stored(&kv).map(Some),
            None => Ok(None),
        }
    }

    /// Forgets history older than `retain`; the new compaction revision
    /// when it moved.
    pub fn compact_older_than(&self, retain: Duration) -> Result<Option<Revision>, ApiError> {
        let storage = &self.storage;
        let Some(target) = SystemTime::now()
            .checked_sub(retain)
            .and_then(|t| storage.revision_at(t))
        else {
            return Ok(None);
        };
        if target <= storage.compacted_revision() {
            return Ok(None);
        }
        storage.compact(target).map_err(storage_error)?;
        Ok(Some(target))
    }
}
