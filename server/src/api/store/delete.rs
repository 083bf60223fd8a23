//! DELETE and DELETE-collection: preconditions, finalizers (the object stays,
//! terminating, until they are gone), kind-specific delete behaviour.

use std::sync::Arc;
use std::time::SystemTime;

use serde_json::{Value, json};

use crate::api::error::ApiError;
use crate::api::kind::{DeleteAction, KindSpec};
use crate::api::store::write::with_rv;
use crate::api::store::{ListOptions, Store, storage_error};
use crate::api::{keys, object};
use crate::storage::{Guard, StorageError, Txn};
use crate::util::time;

/// DeleteOptions that apply to one object.
#[derive(Clone, Debug, Default)]
pub struct DeleteOptions {
    pub dry_run: bool,
    pub precondition_uid: Option<String>,
    pub precondition_rv: Option<u64>,
    pub grace_period_seconds: Option<i64>,
    pub propagation_policy: Option<String>,
    pub orphan_dependents: Option<bool>,
    /// `ignoreStoreReadErrorWithClusterBreakingPotential=true`.
    pub unsafe_delete: bool,
}

/// What a DELETE did.
#[derive(Debug)]
pub enum Deleted {
    /// The object is gone; this was its last state (with the delete's revision).
    Removed(Value),
    /// The object remains (finalizers pending, or a kind-specific update such
    /// as a namespace turning Terminating); this is its new state.
    Pending(Value),
}

impl Store {
    /// DELETE of one object.
    pub async fn delete(
        &self,
        kind: &Arc<KindSpec>,
        ns: Option<&str>,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<Deleted, ApiError> {
        let key = keys::object_key(kind, ns, name);
        loop {
            let Some(kv) = self.storage.get(&key, None).map_err(storage_error)?.kv else {
                return Err(kind.not_found(name));
            };
            let current = Store::decode_served(kind, &kv)?;
            if let Some(uid) = &opts.precondition_uid {
                let actual = object::meta_str(&current, "uid").unwrap_or_default();
                if uid != actual {
                    return Err(ApiError::Conflict {
                        group: kind.group.clone(),
                        resource: kind.kind.clone(),
                        name: name.into(),
                        cause: format!(
                            "Precondition failed: UID in precondition: {uid}, UID in object meta: {actual}"
                        ),
                    });
                }
            }
            if let Some(rv) = opts.precondition_rv
                && rv != kv.mod_revision.get()
            {
                return Err(ApiError::Conflict {
                    group: kind.group.clone(),
                    resource: kind.kind.clone(),
                    name: name.into(),
                    cause: format!(
                        "the ResourceVersion in the precondition ({rv}) does not match the ResourceVersion in record ({}). The object might have been modified",
                        kv.mod_revision.get()
                    ),
                });
            }
            let update = if object::has_finalizers(&current) {
                if object::is_terminating(&current) {
                    return Ok(Deleted::Pending(current));
                }
                let mut next = current.clone();
                let meta = object::metadata_mut(&mut next);
                meta.insert(
                    "deletionTimestamp".into(),
                    json!(time::rfc3339(SystemTime::now())),
                );
                meta.insert("deletionGracePeriodSeconds".into(), json!(0));
                Some(next)
            } else {
                match kind.strategy.on_delete(&current)? {
                    DeleteAction::Remove => None,
                    DeleteAction::Update(next) if next == current => {
                        return Ok(Deleted::Pending(current));
                    }
                    DeleteAction::Update(next) => Some(next),
                }
            };
            if opts.dry_run {
                return Ok(match update {
                    Some(next) => Deleted::Pending(next),
                    None => Deleted::Removed(current),
                });
            }
            let guard = Txn::new().guard(Guard::ModRevision(key.clone(), kv.mod_revision));
            let txn = match &update {
                Some(next) => guard.put(key.clone(), Store::encode_for_storage(kind, next)),
                None => guard.delete(key.clone()),
            };
            match self.storage.commit(txn).await {
                Ok(c) => {
                    return Ok(match update {
                        Some(next) => Deleted::Pending(with_rv(next, c.revision)),
                        None => Deleted::Removed(with_rv(current, c.revision)),
                    });
                }
                Err(StorageError::GuardFailed { .. }) if opts.precondition_rv.is_some() => {
                    return Err(kind.conflict(name, "the object has been modified; please apply your changes to the latest version and try again"));
                }
                Err(StorageError::GuardFailed { .. }) => {}
                Err(e) => return Err(storage_error(e)),
            }
        }
    }

    /// DELETE of a collection: every object the selectors match. Returns the
    /// deleted objects.
    pub async fn delete_collection(
        &self,
        kind: &Arc<KindSpec>,
        ns: Option<&str>,
        list: &ListOptions,
        opts: &DeleteOptions,
    ) -> Result<(Vec<Value>, crate::storage::Revision), ApiError> {
        let page = self.list(kind, ns, list).await?;
        let mut deleted = Vec::new();
        for obj in page.items {
            let name = object::name(&obj).to_string();
            let obj_ns = object::namespace(&obj).map(str::to_string);
            match self.delete(kind, obj_ns.as_deref(), &name, opts).await {
                Ok(Deleted::Removed(o) | Deleted::Pending(o)) => deleted.push(o),
                Err(ApiError::NotFound { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok((deleted, self.storage.current_revision()))
    }
}

/// The `Status` a delete answers with when the kind does not return the object.
#[must_use]
pub fn success_status(kind: &KindSpec, obj: &Value) -> Value {
    let mut details = serde_json::Map::new();
    details.insert("name".into(), json!(object::name(obj)));
    if !kind.group.is_empty() {
        details.insert("group".into(), json!(kind.group));
    }
    details.insert("kind".into(), json!(kind.resource));
    if let Some(uid) = object::meta_str(obj, "uid") {
        details.insert("uid".into(), json!(uid));
    }
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": Value::Object(details)})
}
