//! Namespaces: the three that always exist, and finalization of deleted ones —
//! every namespaced object in a Terminating namespace is deleted (finalizers
//! honoured), then the `kubernetes` finalizer is removed, which removes the
//! namespace.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::kinds::namespace_strategy::{FINALIZER, IMMORTAL, spec_finalizers};
use crate::api::object;
use crate::api::store::{DeleteOptions, ListOptions, Store, WriteOptions};
use crate::http::AppState;
use crate::storage::KeyRange;

/// The API server itself creates the immortal namespaces, as Kubernetes'
/// bootstrap controller does (their managedFields name it).
fn bootstrap_options() -> WriteOptions {
    WriteOptions {
        field_manager: Some("kube-apiserver".into()),
        ..WriteOptions::default()
    }
}

/// Creates `default`, `kube-system` and `kube-public` if missing.
pub async fn bootstrap(store: &Store) -> Result<(), ApiError> {
    let kind = store
        .registry
        .lookup("", "v1", "namespaces")
        .expect("namespaces are built in")
        .clone();
    for name in IMMORTAL {
        let decoded = Decoded {
            value: json!({"metadata": {"name": name}}),
            duplicates: Vec::new(),
        };
        match store
            .create(&kind, None, decoded, &bootstrap_options())
            .await
        {
            Ok(_) | Err(ApiError::AlreadyExists { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Deletes a terminating namespace's content; clears its finalizer once empty.
/// Returns whether anything remains to be done later.
async fn finalize(store: &Store, ns: &Value) -> Result<bool, ApiError> {
    let name = object::name(ns).to_string();
    let mut remaining = false;
    for kind in store.registry.storage_kinds() {
        if !kind.namespaced {
            continue;
        }
        let (deleted, _) = store
            .delete_collection(
                &kind,
                Some(&name),
                &ListOptions::default(),
                &DeleteOptions::default(),
            )
            .await?;
        // Objects with finalizers stay (terminating) until their finalizers go.
        remaining |= deleted.iter().any(object::is_terminating);
        remaining |= !store
            .list(
                &kind,
                Some(&name),
                &ListOptions {
                    limit: 1,
                    ..ListOptions::default()
                },
            )
            .await?
            .items
            .is_empty();
    }
    if remaining || !spec_finalizers(ns).iter().any(|f| f == FINALIZER) {
        return Ok(remaining);
    }
    let kind = store
        .registry
        .lookup("", "v1", "namespaces")
        .expect("namespaces are built in")
        .clone();
    store
        .system_edit(&kind, None, &name, None, |next| {
            let kept: Vec<String> = spec_finalizers(next)
                .into_iter()
                .filter(|f| f != FINALIZER)
                .collect();
            next["spec"]["finalizers"] = json!(kept);
        })
        .await?;
    Ok(false)
}

/// Finalizes every terminating namespace; returns whether to look again soon.
async fn sweep(store: &Store) -> bool {
    let kind = store
        .registry
        .lookup("", "v1", "namespaces")
        .expect("namespaces are built in")
        .clone();
    let Ok(page) = store.list(&kind, None, &ListOptions::default()).await else {
        return true;
    };
    let mut again = false;
    for ns in page.items.iter().filter(|n| object::is_terminating(n)) {
        match finalize(store, ns).await {
            Ok(more) => again |= more,
            Err(e) => {
                tracing::warn!(namespace = object::name(ns), error = %e, "namespace finalization failed; retrying");
                again = true;
            }
        }
    }
    again
}

/// Runs until the server stops: sweeps at start, on every namespace change,
/// and every few seconds while work remains.
pub async fn run(state: Arc<AppState>) {
    let store = &state.store;
    let kind = store
        .registry
        .lookup("", "v1", "namespaces")
        .expect("namespaces are built in")
        .clone();
    let prefix = crate::api::keys::collection_prefix(&kind, None);
    let mut shutdown = state.shutdown.clone();
    loop {
        let Ok(from) = store.current_revision().await else {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_secs(1)) => continue,
                _ = shutdown.changed() => return,
            }
        };
        let again = sweep(store).await;
        let mut watch = store.storage.watch(KeyRange::prefix(&prefix), from);
        let pause = if again {
            Duration::from_millis(500)
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
