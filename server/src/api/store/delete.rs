//! DELETE and DELETE-collection: preconditions, graceful deletion,
//! propagation finalizers (`orphan`, `foregroundDeletion`) for the garbage
//! collector, finalizers (the object stays, terminating, until they are
//! gone), kind-specific delete behaviour.

use std::sync::Arc;
use std::time::SystemTime;

use serde_json::{Value, json};

use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::store::delete_plan::{Plan, check_preconditions, plan};
use crate::api::store::write::with_rv;
use crate::api::store::{ListOptions, Store, storage_error};
use crate::api::{keys, object};
use crate::request::admission::Attributes;
use crate::request::user::UserInfo;
use crate::storage::{Guard, StorageError, Txn};

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
    /// Who deletes, as admission sees it; `None` for the API server's own
    /// in-process deletes.
    pub user: Option<Arc<UserInfo>>,
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

/// Finalizer of a DELETE with `propagationPolicy=Orphan`: the garbage
/// collector strips the owner's references from its dependents first.
pub const ORPHAN_FINALIZER: &str = "orphan";
/// Finalizer of a DELETE with `propagationPolicy=Foreground`: the garbage
/// collector deletes the dependents first.
pub const FOREGROUND_FINALIZER: &str = "foregroundDeletion";

impl Store {
    /// DELETE of one object.
    pub async fn delete(
        &self,
        kind: &Arc<KindSpec>,
        ns: Option<&str>,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<Deleted, ApiError> {
        if opts.unsafe_delete {
            return self
                .delete_unreadable(kind, ns, name)
                .await
                .map(Deleted::Removed);
        }
        // A delete has no new object: mutating plugins see the request only.
        self.admission
            .admit(&Attributes::delete(kind, ns, name, opts, None), None)
            .await?;
        let key = keys::object_key(kind, ns, name);
        loop {
            let kv = self.read_existing(kind, &key, name).await?;
            let current = Store::decode_served(kind, &kv)?;
            check_preconditions(kind, name, &current, kv.mod_revision.get(), opts)?;
            let pins = self
                .admission
                .validate(
                    &Attributes::delete(kind, ns, name, opts, Some(&current)),
                    None,
                )
                .await?;
            let update = match plan(kind, &current, opts, SystemTime::now())? {
                Plan::Unchanged => return Ok(Deleted::Pending(current)),
                Plan::Update(next) => Some(next),
                Plan::Remove => None,
            };
            if opts.dry_run {
                return Ok(match update {
                    Some(next) => Deleted::Pending(next),
                    None => Deleted::Removed(current),
                });
            }
            let guard =
                pins.guard(Txn::new().guard(Guard::ModRevision(key.clone(), kv.mod_revision)));
            let txn = match &update {
                Some(next) => match kind.ttl {
                    Some(ttl) => {
                        guard.put_with_ttl(key.clone(), Store::encode_for_storage(kind, next), ttl)
                    }
                    None => guard.put(key.clone(), Store::encode_for_storage(kind, next)),
                },
                None => guard.delete(key.clone()),
            };
            self.watch_lag.pace().await;
            match self.storage.commit(txn).await {
                Ok(c) => {
                    if update.is_none() {
                        kind.strategy.removed(&current);
                    }
                    self.admission.committed(kind, c.revision).await;
                    return Ok(match update {
                        Some(next) => Deleted::Pending(with_rv(next, c.revision)),
                        None => Deleted::Removed(with_rv(current, c.revision)),
                    });
                }
                // Lost a race: the preconditions are checked again against
                // what is there now (gone is 404, not a conflict).
                Err(StorageError::Conflict { .. } | StorageError::NotFound { .. }) => {}
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
        Ok((deleted, self.current_revision().await?))
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
