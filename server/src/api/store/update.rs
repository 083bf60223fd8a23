//! PUT and the optimistic read-modify-write loop behind every update
//! (`guaranteed_update`), which re-reads the object after a lost race and
//! decides again; and in-process controllers' edits (`system_edit`).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::api::decode::Decoded;
use crate::api::error::{ApiError, Cause};
use crate::api::kind::KindSpec;
use crate::api::store::{Store, Subresource, WriteOptions, no_op, ownership, storage_error};
use crate::api::{keys, meta, object};
use crate::request::admission::{Attributes, Pins};
use crate::storage::{Guard, StorageError, Txn};

use super::write::{MODIFIED, Mutation, WriteOutcome, put_txn, served_bytes, with_rv, with_rv_str};

impl Store {
    /// PUT: replaces an object (creating it when the kind allows).
    pub async fn update(
        &self,
        kind: &Arc<KindSpec>,
        ns: Option<&str>,
        name: &str,
        decoded: Decoded,
        opts: &WriteOptions,
    ) -> Result<WriteOutcome, ApiError> {
        let (mut obj, warnings) = Store::decode_object(kind, decoded, opts.field_validation)?;
        object::name_from_url(&mut obj, name)?;
        Store::place_in_namespace(kind, ns, &mut obj)?;
        let precondition = super::parse_rv(object::meta_str(&obj, "resourceVersion"))?;
        if precondition.is_none() && !kind.unconditional_update {
            return Err(kind.invalid(
                name,
                vec![Cause::new(
                    "FieldValueInvalid",
                    "metadata.resourceVersion",
                    "Invalid value: 0x0: must be specified for an update",
                )],
                422,
            ));
        }
        let body = obj;
        loop {
            let result = self
                .guaranteed_update(kind, ns, name, opts, |_current| {
                    Ok(Mutation {
                        object: body.clone(),
                        precondition,
                        warnings: warnings.clone(),
                        managed: None,
                    })
                })
                .await;
            match result {
                Err(ApiError::NotFound { .. }) if kind.allow_create_on_update => {}
                other => return other,
            }
            let mut obj = body.clone();
            object::metadata_mut(&mut obj).remove("resourceVersion");
            match self
                .create_admitted(kind, ns, obj, warnings.clone(), &opts.creating_on_update())
                .await
            {
                // Another writer created it since it was found missing: this
                // PUT updates theirs, as Kubernetes retries it.
                Err(ApiError::AlreadyExists { .. }) => {}
                created => return created,
            }
        }
    }

    /// The optimistic read-modify-write loop behind PUT and PATCH: `mutate`
    /// gets the current object (with its resourceVersion) and returns the new
    /// one; a concurrent change restarts the loop. A client's pinned
    /// resourceVersion is checked against each read, so after a lost race it
    /// answers 409 only if the object is still there (404 once it is gone),
    /// as Kubernetes' GuaranteedUpdate re-reads before it reports.
    pub(crate) async fn guaranteed_update(
        &self,
        kind: &Arc<KindSpec>,
        ns: Option<&str>,
        name: &str,
        opts: &WriteOptions,
        mutate: impl Fn(&Value) -> Result<Mutation, ApiError>,
    ) -> Result<WriteOutcome, ApiError> {
        let key = keys::object_key(kind, ns, name);
        loop {
            let kv = self.read_existing(kind, &key, name).await?;
            let old = Store::decode_served(kind, &kv)?;
            let Mutation {
                object: mut new,
                precondition,
                warnings,
                managed,
            } = mutate(&old)?;
            // A binding was admitted as the Binding's create.
            let binding = opts.subresource == Some(Subresource::Binding);
            let admitting = Attributes::update(kind, ns, name, opts, &old);
            if !binding {
                self.admission.admit(&admitting, Some(&mut new)).await?;
            }
            if object::name(&new) != name {
                let n = object::name(&new).to_string();
                return Err(kind.invalid(
                    name,
                    vec![Cause::invalid("metadata.name", &n, "field is immutable")],
                    422,
                ));
            }
            if precondition.is_some_and(|rv| rv != kv.mod_revision.get()) {
                return Err(kind.conflict(name, MODIFIED));
            }
            if let Some(uid) = object::meta_str(&new, "uid").filter(|u| !u.is_empty())
                && uid != object::uid(&old)
            {
                let uid = uid.to_string();
                return Err(kind.invalid(
                    name,
                    vec![Cause::invalid("metadata.uid", &uid, "field is immutable")],
                    422,
                ));
            }
            meta::preserve_on_update(&mut new, &old);
            match opts.subresource {
                Some(Subresource::Status) => new = only_status_from(new, &old),
                Some(Subresource::Finalize) => new = only_finalizers_from(new, &old),
                // The store computed the assignment itself.
                Some(Subresource::Binding) => {}
                Some(Subresource::Approval) => new = only_conditions_from(new, &old),
                None if opts.system => {}
                None | Some(Subresource::Scale) => {
                    kind.strategy.prepare_for_update(&mut new, &old);
                    if kind.subresources.status {
                        copy_field(&mut new, &old, "status");
                    }
                }
            }
            if opts.subresource != Some(Subresource::Binding)
                && generation_changes(kind, &new, &old)
            {
                let generation = old
                    .get("metadata")
                    .and_then(|m| m.get("generation"))
                    .and_then(Value::as_i64)
                    .unwrap_or(0);
                object::metadata_mut(&mut new).insert("generation".into(), json!(generation + 1));
            }
            let mut causes = meta::validate_meta(kind, &new);
            // A binding writes the stored pod as Kubernetes' binding REST
            // does: beside the pod's strategy, which keeps its node fixed.
            if !binding {
                causes.extend(
                    kind.strategy
                        .validate_update_by(&new, &old, &self.requester(opts)),
                );
            }
            if !causes.is_empty() {
                return Err(kind.invalid(name, causes, 422));
            }
            let pins = if binding {
                Pins::default()
            } else {
                self.admission.validate(&admitting, Some(&new)).await?
            };
            match &managed {
                Some(m) => ownership::store_entries(&mut new, m),
                None if binding => {}
                None => ownership::track_update(kind, Some(&old), &mut new, opts),
            }
            let claim = kind.strategy.claim(&mut new, Some(&old))?;
            let new = meta::canonical(kind, new);
            if no_op::unchanged(&new, &old)
                && self
                    .storage
                    .stored_form_is_current(&key, kv.mod_revision)
                    .await
            {
                // Nothing to store: the answer is the object as it is, and
                // watchers see no event.
                return Ok(WriteOutcome {
                    object: old,
                    created: false,
                    warnings,
                    served: None,
                });
            }
            // A graceful deletion still in its grace period is removed by the
            // collector when it ends, not by an update.
            let in_grace_period = new
                .pointer("/metadata/deletionGracePeriodSeconds")
                .and_then(Value::as_i64)
                .is_some_and(|g| g > 0);
            let finished = object::is_terminating(&new)
                && !object::has_finalizers(&new)
                && !in_grace_period
                && kind.strategy.ready_to_remove(&new);
            if opts.dry_run {
                let object = if finished {
                    new
                } else {
                    with_rv_str(new, &kv.mod_revision.get().to_string())
                };
                return Ok(WriteOutcome {
                    object,
                    created: false,
                    warnings,
                    served: None,
                });
            }
            let guard =
                pins.guard(Txn::new().guard(Guard::ModRevision(key.clone(), kv.mod_revision)));
            let stored = (!finished).then(|| Store::encode_for_storage(kind, &new));
            let txn = match &stored {
                None => guard.delete(key.clone()),
                Some(bytes) => put_txn(kind, guard, key.clone(), bytes.clone()),
            };
            self.watch_lag.pace().await;
            match self.storage.commit(txn).await {
                Ok(c) => {
                    if let Some(claim) = claim {
                        claim.keep();
                    }
                    if stored.is_none() {
                        kind.strategy.removed(&new);
                    }
                    self.admission.committed(kind, c.revision).await;
                    return Ok(WriteOutcome {
                        served: stored.and_then(|b| served_bytes(kind, &b, c.revision)),
                        object: with_rv(new, c.revision),
                        created: false,
                        warnings,
                    });
                }
                // Lost a race: decide again on what is there now.
                Err(StorageError::Conflict { .. } | StorageError::NotFound { .. }) => {}
                Err(e) => return Err(storage_error(e)),
            }
        }
    }
}

/// `field` of `from` in `to` (absent when absent there).
fn copy_field(to: &mut Value, from: &Value, field: &str) {
    let Some(obj) = to.as_object_mut() else {
        return;
    };
    match from.get(field) {
        Some(v) => {
            obj.insert(field.into(), v.clone());
        }
        None => {
            obj.remove(field);
        }
    }
}

/// A `/status` write: the stored object with the new status. Metadata
/// changes other than managedFields are ignored, as Kubernetes' status
/// strategies do.
fn only_status_from(new: Value, old: &Value) -> Value {
    let mut out = old.clone();
    copy_field(&mut out, &new, "status");
    if let Some(fields) = new.get("metadata").and_then(|m| m.get("managedFields")) {
        object::metadata_mut(&mut out).insert("managedFields".into(), fields.clone());
    }
    out
}

/// A namespace `/finalize` write: the stored object with the new
/// `spec.finalizers`.
fn only_finalizers_from(new: Value, old: &Value) -> Value {
    let mut out = old.clone();
    let finalizers = new
        .pointer("/spec/finalizers")
        .cloned()
        .unwrap_or_else(|| json!([]));
    if !out.get("spec").is_some_and(Value::is_object) {
        out["spec"] = json!({});
    }
    out["spec"]["finalizers"] = finalizers;
    out
}

/// `old` with `new`'s `status.conditions`: all an `/approval` write changes.
fn only_conditions_from(new: Value, old: &Value) -> Value {
    let mut out = old.clone();
    if !out.get("status").is_some_and(Value::is_object) {
        out["status"] = json!({});
    }
    match new.pointer("/status/conditions") {
        Some(conditions) => out["status"]["conditions"] = conditions.clone(),
        None => {
            if let Some(status) = out["status"].as_object_mut() {
                status.remove("conditions");
            }
        }
    }
    out
}

/// Whether an update bumps `metadata.generation`: kinds that track it count
/// every change outside metadata (and outside status when status is a
/// subresource); others count `spec` changes.
fn generation_changes(kind: &KindSpec, new: &Value, old: &Value) -> bool {
    if !kind.tracks_generation {
        return new.get("spec") != old.get("spec");
    }
    let strip = |v: &Value| {
        let mut v = v.clone();
        if let Some(o) = v.as_object_mut() {
            o.remove("metadata");
            o.remove("kind");
            o.remove("apiVersion");
            if kind.subresources.status {
                o.remove("status");
            }
        }
        v
    };
    strip(new) != strip(old)
}

impl Store {
    /// An in-process controller's change to the latest object (the kind's
    /// update hooks skipped, races retried); a missing object is no error.
    pub async fn system_edit(
        &self,
        kind: &Arc<KindSpec>,
        ns: Option<&str>,
        name: &str,
        subresource: Option<Subresource>,
        change: impl Fn(&mut Value) + Send + Sync,
    ) -> Result<(), ApiError> {
        // In-process controllers are managers too, named as Kubernetes'
        // own components are: status written by the API server itself,
        // the rest by the controller manager.
        let manager = match subresource {
            Some(Subresource::Status) => "kube-apiserver",
            _ => "kube-controller-manager",
        };
        let opts = WriteOptions {
            system: true,
            subresource,
            field_manager: Some(manager.into()),
            ..WriteOptions::default()
        };
        let result = self
            .guaranteed_update(kind, ns, name, &opts, |current| {
                let mut next = current.clone();
                change(&mut next);
                Ok(Mutation {
                    object: next,
                    precondition: None,
                    warnings: Vec::new(),
                    managed: None,
                })
            })
            .await;
        match result {
            Ok(_) | Err(ApiError::NotFound { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }
}
