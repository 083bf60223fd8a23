//! Writes: what every write shares (its outcome, the mutation an update
//! computes, the transaction that stores it) and create. PUT and the
//! update loop are in `update.rs`, PATCH in `patch.rs`.

use std::sync::Arc;
use std::time::SystemTime;

use serde_json::{Value, json};

use crate::api::decode::Decoded;
use crate::api::error::{ApiError, Cause};
use crate::api::kind::KindSpec;
use crate::api::managed::Managed;
use crate::api::store::{Store, WriteOptions, ownership, storage_error};
use crate::api::{keys, meta, object};
use crate::request::admission::Attributes;
use crate::storage::{Guard, Revision, StorageError, Txn};

/// A successful write.
#[derive(Debug)]
pub struct WriteOutcome {
    /// The object as stored (with its resourceVersion; empty on dry run).
    pub object: Value,
    /// Whether the write created the object (201).
    pub created: bool,
    /// `Warning` header texts.
    pub warnings: Vec<String>,
    /// The object as compact JSON (the stored bytes with the revision
    /// spliced in), when the write stored it: saves a second serialization.
    pub served: Option<Vec<u8>>,
}

/// The stored bytes of a write, served with its new revision.
pub(super) fn served_bytes(kind: &KindSpec, stored: &[u8], rev: Revision) -> Option<Vec<u8>> {
    if !kind.stores_served_form() {
        return None;
    }
    let mut out = Vec::with_capacity(stored.len() + 32);
    crate::api::served::splice(stored, rev.get(), &mut out).then_some(out)
}

/// The new state an update computes from the current one.
pub struct Mutation {
    pub object: Value,
    /// A resourceVersion the client required (`metadata.resourceVersion`).
    pub precondition: Option<u64>,
    pub warnings: Vec<String>,
    /// managedFields an apply already settled; `None` records the change
    /// as an Update.
    pub managed: Option<Managed>,
}

pub(super) fn put_txn(kind: &KindSpec, txn: Txn, key: Vec<u8>, bytes: Vec<u8>) -> Txn {
    match kind.ttl {
        Some(ttl) => txn.put_with_ttl(key, bytes, ttl),
        None => txn.put(key, bytes),
    }
}

pub(super) const MODIFIED: &str =
    "the object has been modified; please apply your changes to the latest version and try again";

impl Store {
    /// POST: creates an object from a decoded body.
    pub async fn create(
        &self,
        kind: &Arc<KindSpec>,
        ns: Option<&str>,
        decoded: Decoded,
        opts: &WriteOptions,
    ) -> Result<WriteOutcome, ApiError> {
        let (obj, warnings) = Store::decode_object(kind, decoded, opts.field_validation)?;
        self.create_admitted(kind, ns, obj, warnings, opts).await
    }

    pub(super) fn place_in_namespace(
        kind: &KindSpec,
        ns: Option<&str>,
        obj: &mut Value,
    ) -> Result<(), ApiError> {
        let meta = object::metadata_mut(obj);
        match (kind.namespaced, ns) {
            (true, Some(ns)) => {
                match meta.get("namespace").and_then(Value::as_str) {
                    Some(b) if !b.is_empty() && b != ns => {
                        return Err(ApiError::BadRequest(
                            "the namespace of the provided object does not match the namespace sent on the request".into(),
                        ));
                    }
                    _ => {}
                }
                meta.insert("namespace".into(), json!(ns));
            }
            (true, None) => {
                return Err(ApiError::BadRequest(
                    "a namespace is required to create a namespaced object".into(),
                ));
            }
            (false, _) => {
                meta.remove("namespace");
            }
        }
        Ok(())
    }

    pub(crate) async fn create_admitted(
        &self,
        kind: &Arc<KindSpec>,
        ns: Option<&str>,
        obj: Value,
        warnings: Vec<String>,
        opts: &WriteOptions,
    ) -> Result<WriteOutcome, ApiError> {
        self.create_tracked(kind, ns, obj, warnings, opts, None)
            .await
    }

    /// Creates an admitted object; `managed` is what an apply settled, else
    /// the creator owns every field it wrote.
    pub(super) async fn create_tracked(
        &self,
        kind: &Arc<KindSpec>,
        ns: Option<&str>,
        mut obj: Value,
        warnings: Vec<String>,
        opts: &WriteOptions,
        managed: Option<Managed>,
    ) -> Result<WriteOutcome, ApiError> {
        if !kind.accepts_creates {
            return Err(ApiError::NotAllowed(
                "create not allowed while custom resource definition is terminating".into(),
            ));
        }
        Store::place_in_namespace(kind, ns, &mut obj)?;
        if object::meta_str(&obj, "resourceVersion").is_some_and(|rv| !rv.is_empty()) {
            return Err(ApiError::BadRequest(
                "resourceVersion should not be set on objects to be created".into(),
            ));
        }
        self.admit_new(kind, ns, opts, &mut obj).await?;
        meta::prepare_create(&mut obj, SystemTime::now());
        kind.strategy
            .prepare_for_create_by(&mut obj, &self.requester(opts));
        let name = object::name(&obj).to_string();
        if name.is_empty() {
            let causes = vec![
                Cause::required("metadata.name")
                    .with_message("Required value: name or generateName is required"),
            ];
            // Spec section 7: an omitted required field is a bad request.
            return Err(kind.invalid("", causes, 400));
        }
        let mut causes = meta::validate_meta(kind, &obj);
        causes.extend(kind.strategy.validate_by(&obj, &self.requester(opts)));
        if !causes.is_empty() {
            return Err(kind.invalid(&name, causes, 422));
        }
        match managed {
            Some(m) => ownership::store_entries(&mut obj, &m),
            None => ownership::track_update(kind, None, &mut obj, opts),
        }
        // After ownership: what the server allocates belongs to no manager.
        let mut claim = kind.strategy.claim(&mut obj, None)?;
        let obj = meta::canonical(kind, obj);
        let key = keys::object_key(kind, ns, &name);
        loop {
            // Again after a lost race: what admission read may have changed.
            let pins = self
                .admission
                .validate(&Attributes::create(kind, ns, &name, opts), Some(&obj))
                .await?;
            if opts.dry_run {
                if self
                    .storage
                    .get(&key, None)
                    .await
                    .map_err(storage_error)?
                    .kv
                    .is_some()
                {
                    return Err(kind.already_exists(&name));
                }
                return Ok(WriteOutcome {
                    object: obj,
                    created: true,
                    warnings,
                    served: None,
                });
            }
            let txn = pins.guard(Txn::new().guard(Guard::Absent(key.clone())));
            let stored = Store::encode_for_storage(kind, &obj);
            let txn = put_txn(kind, txn, key.clone(), stored.clone());
            self.watch_lag.pace().await;
            match self.storage.commit(txn).await {
                Ok(c) => {
                    if let Some(claim) = claim.take() {
                        claim.keep();
                    }
                    self.admission.committed(kind, c.revision).await;
                    return Ok(WriteOutcome {
                        served: served_bytes(kind, &stored, c.revision),
                        object: with_rv(obj, c.revision),
                        created: true,
                        warnings,
                    });
                }
                Err(StorageError::Conflict { guard: 0, .. }) => {
                    return Err(kind.already_exists(&name));
                }
                // Something admission read changed meanwhile (a namespace
                // may be terminating or gone now): admit again.
                Err(StorageError::Conflict { .. } | StorageError::NotFound { .. }) => {}
                Err(e) => return Err(storage_error(e)),
            }
        }
    }
}

pub(super) fn with_rv_str(mut obj: Value, rv: &str) -> Value {
    object::metadata_mut(&mut obj).insert("resourceVersion".into(), json!(rv));
    obj
}

/// The object with its new resourceVersion.
#[must_use]
pub fn with_rv(obj: Value, rev: Revision) -> Value {
    with_rv_str(obj, &rev.get().to_string())
}

impl Cause {
    /// The same cause with another message.
    #[must_use]
    pub fn with_message(mut self, message: &str) -> Cause {
        message.clone_into(&mut self.message);
        self
    }
}
