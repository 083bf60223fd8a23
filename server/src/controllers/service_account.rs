//! The `default` ServiceAccount in every namespace, as Kubernetes'
//! service-account controller keeps it: created in each namespace that is
//! not terminating, and created again when deleted.

use std::sync::Arc;

use serde_json::json;

use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::informer::{Cache, KeyValue};
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::object;
use crate::api::store::{Store, WriteOptions};
use crate::app::AppState;
use crate::controllers::paired::Paired;

/// The service account every namespace has.
pub const DEFAULT: &str = "default";

/// A namespace, kept with whether it still accepts new objects.
struct Namespace {
    name: String,
    active: bool,
}

fn namespace(kv: &KeyValue) -> Option<Namespace> {
    let ns = Store::decode_stored(kv).ok()?;
    Some(Namespace {
        name: object::name(&ns).to_string(),
        active: !object::is_terminating(&ns),
    })
}

/// Only the `default` service accounts are kept (by key).
fn default_account(kv: &KeyValue) -> Option<()> {
    let name_at = kv.key.iter().rposition(|b| *b == b'/')? + 1;
    (kv.key[name_at..] == *DEFAULT.as_bytes()).then_some(())
}

/// The writes of this controller carry its name in managedFields, as
/// Kubernetes' controller manager's do.
fn write_options() -> WriteOptions {
    WriteOptions {
        field_manager: Some("kube-controller-manager".into()),
        ..WriteOptions::default()
    }
}

/// Creates the missing `default` service accounts; returns whether some
/// could not be created (to try again soon).
async fn sweep(
    store: &Store,
    kind: &Arc<KindSpec>,
    namespaces: &Cache<Namespace>,
    accounts: &Cache<()>,
) -> bool {
    let missing: Vec<String> = namespaces
        .values()
        .filter(|ns| ns.active)
        .filter(|ns| {
            accounts
                .get(&keys::object_key(kind, Some(&ns.name), DEFAULT))
                .is_none()
        })
        .map(|ns| ns.name.clone())
        .collect();
    let mut again = false;
    for ns in missing {
        let decoded = Decoded {
            value: json!({"metadata": {"name": DEFAULT}}),
            duplicates: Vec::new(),
        };
        match store
            .create(kind, Some(&ns), decoded, &write_options())
            .await
        {
            Ok(_) | Err(ApiError::AlreadyExists { .. }) => {}
            // The namespace began terminating: its next update says so.
            Err(ApiError::Forbidden { .. }) => {}
            Err(e) => {
                tracing::warn!(namespace = %ns, error = %e, "cannot create the default service account; retrying");
                again = true;
            }
        }
    }
    again
}

/// Runs until the server stops.
pub async fn run(state: Arc<AppState>) {
    let store = &state.store;
    let lookup = |resource: &str| {
        store
            .registry
            .lookup("", "v1", resource)
            .expect("core kinds are built in")
    };
    let (ns_kind, sa_kind) = (lookup("namespaces"), lookup("serviceaccounts"));
    let mut pair = Paired::new(
        store,
        (&ns_kind, namespace),
        (&sa_kind, default_account),
        state.shutdown.clone(),
        "service-account controller",
    );
    while pair.due().await {
        let again = sweep(store, &sa_kind, &pair.first, &pair.second).await;
        pair.swept(again);
    }
}

#[cfg(test)]
#[path = "service_account_tests.rs"]
mod tests;
