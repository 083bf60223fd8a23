//! What the garbage collector does to one object, read fresh from the
//! store (Kubernetes' `attemptToDeleteItem`, `processDeletingDependentsItem`
//! and `orphanDependents`):
//! - an owner terminating with `orphan`: strip its references from its
//!   dependents, then drop the finalizer;
//! - an owner terminating with `foregroundDeletion`: delete its dependents,
//!   wait for those with `blockOwnerDeletion`, then drop the finalizer;
//! - a dependent: delete it once none of its owners is alive (foreground when
//!   an owner waits for it and it has dependents of its own); with a live
//!   owner left, drop its references to gone or waiting owners.

use std::sync::Arc;

use bytes::Bytes;
use serde_json::Value;

use crate::api::error::ApiError;
use crate::api::keys::Located;
use crate::api::kind::KindSpec;
use crate::api::object;
use crate::api::store::delete::{FOREGROUND_FINALIZER, ORPHAN_FINALIZER};
use crate::api::store::{DeleteOptions, Store};
use crate::controllers::gc::graph::Graph;

/// How a dependent's owner reference stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OwnerState {
    /// The owner exists and is not waiting for its dependents.
    Solid,
    /// No object of that kind, name and uid exists.
    Dangling,
    /// The owner is being deleted in the foreground.
    Waiting,
    /// The reference cannot be resolved (unknown kind, or a cluster-scoped
    /// dependent naming a namespaced owner): left alone, as Kubernetes does.
    Unresolved,
}

/// The served kind an owner reference names (any served version of the group).
fn owner_kind(store: &Store, reference: &Value) -> Option<Arc<KindSpec>> {
    let api_version = reference.get("apiVersion")?.as_str()?;
    let kind = reference.get("kind")?.as_str()?;
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let kinds = store.registry.snapshot();
    let mut same_group = kinds.iter().filter(|k| k.group == group && k.kind == kind);
    let first = same_group.next()?.clone();
    Some(
        std::iter::once(first.clone())
            .chain(same_group.cloned())
            .find(|k| k.version == version)
            .unwrap_or(first),
    )
}

async fn owner_state(store: &Store, namespace: Option<&str>, reference: &Value) -> OwnerState {
    let Some(kind) = owner_kind(store, reference) else {
        return OwnerState::Unresolved;
    };
    let ns = match (kind.namespaced, namespace) {
        (true, None) => return OwnerState::Unresolved,
        (true, Some(ns)) => Some(ns),
        (false, _) => None,
    };
    let name = reference.get("name").and_then(Value::as_str).unwrap_or("");
    let uid = reference.get("uid").and_then(Value::as_str).unwrap_or("");
    let Ok(owner) = store.current(&kind, ns, name).await else {
        return OwnerState::Unresolved;
    };
    match owner {
        Some(o) if object::uid(&o) == uid => {
            if object::is_terminating(&o) && object::has_finalizer(&o, FOREGROUND_FINALIZER) {
                OwnerState::Waiting
            } else {
                OwnerState::Solid
            }
        }
        _ => OwnerState::Dangling,
    }
}

fn reference_uid(reference: &Value) -> &str {
    reference.get("uid").and_then(Value::as_str).unwrap_or("")
}

/// The object at `at` now, if it exists.
async fn read(store: &Store, at: &Located) -> Result<Option<Value>, ApiError> {
    store
        .current(&at.kind, at.namespace.as_deref(), &at.name)
        .await
}

/// Rewrites an object's metadata (the collector is a system writer).
async fn edit(
    store: &Store,
    at: &Located,
    change: impl Fn(&mut Value) + Send + Sync,
) -> Result<(), ApiError> {
    store
        .system_edit(&at.kind, at.namespace.as_deref(), &at.name, None, change)
        .await
}

fn drop_finalizer(obj: &mut Value, finalizer: &str) {
    let kept = object::finalizers(obj)
        .into_iter()
        .filter(|f| f != finalizer)
        .collect();
    object::set_finalizers(obj, kept);
}

/// Keeps only the owner references whose uid `keep` accepts (an empty list
/// removes the field).
fn retain_references(obj: &mut Value, keep: impl Fn(&str) -> bool) {
    let kept: Vec<Value> = object::owner_references(obj)
        .iter()
        .filter(|r| keep(reference_uid(r)))
        .cloned()
        .collect();
    let meta = object::metadata_mut(obj);
    if kept.is_empty() {
        meta.remove("ownerReferences");
    } else {
        meta.insert("ownerReferences".into(), Value::Array(kept));
    }
}

/// Looks at one object; an error asks for another look later.
pub async fn process(store: &Store, graph: &Graph, key: &Bytes) -> Result<(), ApiError> {
    let Some(at) = store.registry.locate(key) else {
        return Ok(());
    };
    let Some(obj) = read(store, &at).await? else {
        return Ok(());
    };
    if object::is_terminating(&obj) {
        if object::has_finalizer(&obj, ORPHAN_FINALIZER) {
            return orphan_dependents(store, graph, &at, &obj).await;
        }
        if object::has_finalizer(&obj, FOREGROUND_FINALIZER) {
            return delete_dependents(store, graph, &at, &obj).await;
        }
        return Ok(());
    }
    if object::owner_references(&obj).is_empty() {
        return Ok(());
    }
    attempt_to_delete(store, graph, &at, &obj).await
}

/// Strips the owner from every dependent, then lets the owner go.
async fn orphan_dependents(
    store: &Store,
    graph: &Graph,
    owner_at: &Located,
    owner: &Value,
) -> Result<(), ApiError> {
    let uid = object::uid(owner).to_string();
    for key in graph.dependents(&uid) {
        if let Some(at) = store.registry.locate(&key) {
            edit(store, &at, |obj| retain_references(obj, |u| u != uid)).await?;
        }
    }
    edit(store, owner_at, |obj| drop_finalizer(obj, ORPHAN_FINALIZER)).await?;
    Ok(())
}

/// Deletes the dependents of an owner deleted in the foreground; lets the
/// owner go once no dependent blocks it.
async fn delete_dependents(
    store: &Store,
    graph: &Graph,
    owner_at: &Located,
    owner: &Value,
) -> Result<(), ApiError> {
    let uid = object::uid(owner).to_string();
    let mut blocked = false;
    for key in graph.dependents(&uid) {
        let Some(at) = store.registry.locate(&key) else {
            continue;
        };
        let Some(dependent) = read(store, &at).await? else {
            continue;
        };
        let Some(reference) = object::owner_references(&dependent)
            .iter()
            .find(|r| reference_uid(r) == uid)
        else {
            continue;
        };
        blocked |= reference
            .get("blockOwnerDeletion")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if !object::is_terminating(&dependent) {
            attempt_to_delete(store, graph, &at, &dependent).await?;
        }
    }
    if blocked {
        // The dependents' deletions wake this owner again.
        return Ok(());
    }
    edit(store, owner_at, |obj| {
        drop_finalizer(obj, FOREGROUND_FINALIZER)
    })
    .await?;
    Ok(())
}

/// Deletes a dependent none of whose owners is alive.
async fn attempt_to_delete(
    store: &Store,
    graph: &Graph,
    at: &Located,
    obj: &Value,
) -> Result<(), ApiError> {
    let namespace = object::namespace(obj).filter(|_| at.kind.namespaced);
    let mut solid = false;
    let mut unresolved = false;
    let mut gone_or_waiting = Vec::new();
    let mut waiting = false;
    for reference in object::owner_references(obj) {
        match owner_state(store, namespace, reference).await {
            OwnerState::Solid => solid = true,
            OwnerState::Unresolved => unresolved = true,
            OwnerState::Dangling => gone_or_waiting.push(reference_uid(reference).to_string()),
            OwnerState::Waiting => {
                waiting = true;
                gone_or_waiting.push(reference_uid(reference).to_string());
            }
        }
    }
    if solid {
        if !gone_or_waiting.is_empty() {
            edit(store, at, |o| {
                retain_references(o, |u| !gone_or_waiting.iter().any(|g| g == u));
            })
            .await?;
        }
        return Ok(());
    }
    if unresolved {
        return Ok(());
    }
    let policy = if waiting && graph.has_dependents(object::uid(obj)) {
        "Foreground"
    } else if object::has_finalizer(obj, ORPHAN_FINALIZER) {
        "Orphan"
    } else if object::has_finalizer(obj, FOREGROUND_FINALIZER) {
        "Foreground"
    } else {
        "Background"
    };
    let opts = DeleteOptions {
        precondition_uid: Some(object::uid(obj).to_string()),
        propagation_policy: Some(policy.into()),
        ..DeleteOptions::default()
    };
    match store
        .delete(&at.kind, at.namespace.as_deref(), &at.name, &opts)
        .await
    {
        Ok(_) | Err(ApiError::NotFound { .. } | ApiError::Conflict { .. }) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Ends a graceful deletion whose grace period is over (what a kubelet's
/// final DELETE does): `Some(later)` when the deadline moved.
pub async fn expire(
    store: &Store,
    key: &Bytes,
    now: std::time::SystemTime,
) -> Result<Option<std::time::SystemTime>, ApiError> {
    let Some(at) = store.registry.locate(key) else {
        return Ok(None);
    };
    let Some(obj) = read(store, &at).await? else {
        return Ok(None);
    };
    let Some(deadline) = crate::api::store::grace::grace_deadline(&obj) else {
        return Ok(None);
    };
    if deadline > now {
        return Ok(Some(deadline));
    }
    let opts = DeleteOptions {
        precondition_uid: Some(object::uid(&obj).to_string()),
        grace_period_seconds: Some(0),
        ..DeleteOptions::default()
    };
    match store
        .delete(&at.kind, at.namespace.as_deref(), &at.name, &opts)
        .await
    {
        Ok(_) | Err(ApiError::NotFound { .. } | ApiError::Conflict { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}
