//! The unsafe delete of an object that cannot be read
//! (`ignoreStoreReadErrorWithClusterBreakingPotential`, spec 4.5): its
//! stored value cannot be decrypted or decoded, so it is removed without
//! being read — no admission, finalizers or grace — guarded by the
//! revision it was found at. A readable object is refused.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::api::error::ApiError;
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::store::{Store, storage_error};
use crate::storage::{Guard, KeyRange, RangeOptions, Revision, StorageError, Txn};

impl Store {
    /// Removes the unreadable object `name`; what can be said of it (its
    /// kind, name and namespace, at the delete's revision).
    pub async fn delete_unreadable(
        &self,
        kind: &Arc<KindSpec>,
        ns: Option<&str>,
        name: &str,
    ) -> Result<Value, ApiError> {
        let key = keys::object_key(kind, ns, name);
        let found = match self.storage.get(&key, None).await {
            Ok(got) => {
                let kv = got.kv.ok_or_else(|| kind.not_found(name))?;
                if Store::decode_served(kind, &kv).is_ok() {
                    return Err(ApiError::BadRequest(
                        "ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively meant to delete corrupt objects that cannot be read; this object can be read, delete it normally".into(),
                    ));
                }
                kv.mod_revision
            }
            Err(StorageError::CorruptValue { .. }) => {
                self.stored_revision(kind, &key, name).await?
            }
            Err(e) => return Err(storage_error(e)),
        };
        let txn = Txn::new()
            .guard(Guard::ModRevision(key.clone(), found))
            .delete(key);
        let committed = match self.storage.commit(txn).await {
            Ok(c) => c,
            Err(StorageError::Conflict { .. } | StorageError::NotFound { .. }) => {
                return Err(ApiError::Conflict {
                    group: kind.group.clone(),
                    resource: kind.qualified_resource(),
                    name: name.into(),
                    cause: "the object has been modified; please apply your changes to the latest version and try again".into(),
                });
            }
            Err(e) => return Err(storage_error(e)),
        };
        self.admission.committed(kind, committed.revision).await;
        let mut meta = serde_json::Map::new();
        meta.insert("name".into(), json!(name));
        if let Some(ns) = ns.filter(|_| kind.namespaced) {
            meta.insert("namespace".into(), json!(ns));
        }
        meta.insert(
            "resourceVersion".into(),
            json!(committed.revision.get().to_string()),
        );
        Ok(json!({
            "apiVersion": kind.api_version(),
            "kind": kind.kind,
            "metadata": meta,
        }))
    }

    /// The revision of the value stored at `key`, read without its value.
    async fn stored_revision(
        &self,
        kind: &KindSpec,
        key: &[u8],
        name: &str,
    ) -> Result<Revision, ApiError> {
        let opts = RangeOptions {
            keys_only: true,
            ..RangeOptions::default()
        };
        let found = self
            .storage
            .range(KeyRange::key(key), opts)
            .await
            .map_err(storage_error)?;
        found
            .items
            .first()
            .map(|kv| kv.mod_revision)
            .ok_or_else(|| kind.not_found(name))
    }
}
