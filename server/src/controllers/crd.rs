//! CustomResourceDefinitions: serves the kinds of every CRD whose names are
//! accepted (registry + `Established`/`NamesAccepted` conditions), and on
//! deletion removes all instances, then the cleanup finalizer, then the kinds.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::api::error::ApiError;
use crate::api::kind::{KindSpec, Origin};
use crate::api::kinds::crd::cleanup_finalizer;
use crate::api::kinds::custom_resource::kinds_for_crd;
use crate::api::object;
use crate::api::store::{DeleteOptions, ListOptions, Store, Subresource};
use crate::http::AppState;
use crate::storage::KeyRange;
use crate::util::time;

/// The CRD kind itself.
fn crd_kind(store: &Store, domain: &str) -> Arc<KindSpec> {
    store
        .registry
        .lookup(
            &format!("apiextensions.{domain}"),
            "v1",
            "customresourcedefinitions",
        )
        .expect("CRDs are built in")
}

fn names_of(crd: &Value) -> Vec<String> {
    let mut out: Vec<String> = ["plural", "singular", "kind", "listKind"]
        .iter()
        .map(|f| object::str_at(crd, &format!("/spec/names/{f}")))
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    out.extend(object::strings_at(crd, "/spec/names/shortNames"));
    out
}

fn condition(kind: &str, ok: bool, reason: &str, message: &str, old: &Value) -> Value {
    let status = if ok { "True" } else { "False" };
    let previous = old
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|cs| {
            cs.iter()
                .find(|c| c.get("type").and_then(Value::as_str) == Some(kind))
        });
    let since = match previous {
        Some(p) if p.get("status").and_then(Value::as_str) == Some(status) => {
            p.get("lastTransitionTime").cloned().unwrap_or_default()
        }
        _ => json!(time::rfc3339(SystemTime::now())),
    };
    json!({"type": kind, "status": status, "lastTransitionTime": since, "reason": reason, "message": message})
}

/// The status a live CRD should have, given whether its names are accepted.
fn desired_status(crd: &Value, conflict: Option<&str>) -> Value {
    let mut stored: Vec<String> = crd
        .pointer("/status/storedVersions")
        .and_then(Value::as_array)
        .map(|v| {
            v.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let conditions = match conflict {
        None => {
            if let Some(storage) = crd
                .pointer("/spec/versions")
                .and_then(Value::as_array)
                .and_then(|vs| vs.iter().find(|v| v.get("storage") == Some(&json!(true))))
                .and_then(|v| v.get("name").and_then(Value::as_str))
                && !stored.iter().any(|s| s == storage)
            {
                stored.push(storage.to_string());
            }
            vec![
                condition(
                    "NamesAccepted",
                    true,
                    "NoConflicts",
                    "no conflicts found",
                    crd,
                ),
                condition(
                    "Established",
                    true,
                    "InitialNamesAccepted",
                    "the initial names have been accepted",
                    crd,
                ),
            ]
        }
        Some(message) => vec![
            condition("NamesAccepted", false, "NameConflict", message, crd),
            condition(
                "Established",
                false,
                "NotAccepted",
                "not all names are accepted",
                crd,
            ),
        ],
    };
    let accepted = if conflict.is_none() {
        crd.pointer("/spec/names").cloned().unwrap_or_default()
    } else {
        crd.pointer("/status/acceptedNames")
            .cloned()
            .unwrap_or_else(|| json!({"plural": "", "kind": ""}))
    };
    json!({"conditions": conditions, "acceptedNames": accepted, "storedVersions": stored})
}

async fn write_status(
    store: &Store,
    kind: &Arc<KindSpec>,
    crd: &Value,
    status: Value,
) -> Result<(), ApiError> {
    if crd.get("status") == Some(&status) {
        return Ok(());
    }
    let name = object::name(crd).to_string();
    store
        .system_edit(kind, None, &name, Some(Subresource::Status), |next| {
            next["status"] = status.clone();
        })
        .await
}

/// Deletes a terminating CRD's instances, then its finalizer. Returns
/// whether work remains.
async fn clean_up(
    store: &Store,
    kind: &Arc<KindSpec>,
    crd: &Value,
    domain: &str,
) -> Result<bool, ApiError> {
    let finalizer = cleanup_finalizer(domain);
    if let Ok(kinds) = kinds_for_crd(crd)
        && let Some(instances) = kinds.into_iter().next()
    {
        let instances = Arc::new(instances);
        let (deleted, _) = store
            .delete_collection(
                &instances,
                None,
                &ListOptions::default(),
                &DeleteOptions::default(),
            )
            .await?;
        let remaining = store
            .list(&instances, None, &ListOptions::default())
            .await?;
        if !deleted.is_empty() || !remaining.items.is_empty() {
            return Ok(true);
        }
    }
    let name = object::name(crd).to_string();
    store
        .system_edit(kind, None, &name, None, |next| {
            let meta = object::metadata_mut(next);
            if let Some(list) = meta.get_mut("finalizers").and_then(Value::as_array_mut) {
                list.retain(|f| f.as_str() != Some(finalizer.as_str()));
            }
        })
        .await?;
    Ok(false)
}

/// The generation of each CRD whose kinds are registered, so unchanged CRDs
/// are not rebuilt (their CEL rules recompiled) on every pass.
pub type Registered = HashMap<String, i64>;

/// One pass over every CRD. Returns whether to look again soon.
pub async fn sync(store: &Store, domain: &str, registered: &mut Registered) -> bool {
    let kind = crd_kind(store, domain);
    let Ok(page) = store.list(&kind, None, &ListOptions::default()).await else {
        return true;
    };
    let mut crds = page.items;
    // A contested name stays with the CRD that has it, else the oldest.
    crds.sort_by_cached_key(|crd| {
        let accepted = crd
            .pointer("/status/conditions")
            .and_then(Value::as_array)
            .is_some_and(|cs| {
                cs.iter()
                    .any(|c| c["type"] == "NamesAccepted" && c["status"] == "True")
            });
        let created = object::meta_str(crd, "creationTimestamp")
            .unwrap_or_default()
            .to_string();
        (!accepted, created, object::name(crd).to_string())
    });
    let mut again = false;
    let mut claimed: Vec<(String, String, String)> = Vec::new();
    let mut live = HashSet::new();
    for crd in &crds {
        let name = object::name(crd).to_string();
        live.insert(name.clone());
        if object::is_terminating(crd) {
            // Instances stay readable and deletable, but no new ones.
            if registered.remove(&name).is_some()
                && let Ok(mut kinds) = kinds_for_crd(crd)
            {
                for k in &mut kinds {
                    k.accepts_creates = false;
                }
                store.registry.set_crd_kinds(&name, kinds);
            }
            match clean_up(store, &kind, crd, domain).await {
                Ok(more) => again |= more,
                Err(e) => {
                    tracing::warn!(crd = %name, error = %e, "removing custom resources failed; retrying");
                    again = true;
                }
            }
            continue;
        }
        let group = crd
            .pointer("/spec/group")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let conflict = names_of(crd).into_iter().find_map(|n| {
            claimed
                .iter()
                .find(|(g, claimed_name, _)| *g == group && *claimed_name == n)
                .map(|(_, _, owner)| format!("{n:?} is already in use by {owner}"))
        });
        let generation = crd
            .pointer("/metadata/generation")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        if conflict.is_none() {
            claimed.extend(
                names_of(crd)
                    .into_iter()
                    .map(|n| (group.clone(), n, name.clone())),
            );
            if registered.get(&name) != Some(&generation) {
                match kinds_for_crd(crd) {
                    Ok(kinds) => store.registry.set_crd_kinds(&name, kinds),
                    Err(e) => tracing::warn!(crd = %name, error = %e, "CRD cannot be served"),
                }
                registered.insert(name.clone(), generation);
            }
        } else if registered.remove(&name).is_some() {
            store.registry.set_crd_kinds(&name, Vec::new());
        }
        if let Err(e) =
            write_status(store, &kind, crd, desired_status(crd, conflict.as_deref())).await
        {
            tracing::warn!(crd = %name, error = %e, "updating CRD status failed; retrying");
            again = true;
        }
    }
    let served: HashSet<String> = store
        .registry
        .snapshot()
        .iter()
        .filter_map(|k| match &k.origin {
            Origin::Crd(name) => Some(name.clone()),
            Origin::BuiltIn => None,
        })
        .collect();
    for gone in served.difference(&live) {
        store.registry.set_crd_kinds(gone, Vec::new());
        registered.remove(gone);
    }
    again
}

/// Runs until the server stops: syncs on every CRD change, and every few
/// hundred milliseconds while work remains.
pub async fn run(state: Arc<AppState>) {
    let store = &state.store;
    let domain = state.config.api_domain.clone();
    let prefix = crate::api::keys::collection_prefix(&crd_kind(store, &domain), None);
    let mut shutdown = state.shutdown.clone();
    let mut registered = Registered::new();
    loop {
        let Ok(from) = store.current_revision().await else {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_secs(1)) => continue,
                _ = shutdown.changed() => return,
            }
        };
        let again = sync(store, &domain, &mut registered).await;
        let mut watch = store.storage.watch(KeyRange::prefix(&prefix), from);
        let pause = if again {
            Duration::from_millis(200)
        } else {
            Duration::from_secs(30)
        };
        tokio::select! {
            ev = watch.next_batch() => if ev.is_none() { return },
            () = tokio::time::sleep(pause) => {}
            _ = shutdown.changed() => return,
        }
    }
}
