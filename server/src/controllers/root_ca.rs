//! The `kube-root-ca.crt` ConfigMap in every namespace, as
//! kube-controller-manager's root-ca-cert-publisher keeps it: `ca.crt` is
//! the CA bundle that verifies this server (`--root-ca-file`, else the
//! cluster CA), so the projected service-account volume the ServiceAccount
//! admission plugin gives pods carries it. Created in each namespace that
//! is not terminating, created again when deleted, its data put back when
//! changed.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::informer::{Cache, KeyValue};
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::kinds::checks::str_at;
use crate::api::object;
use crate::api::store::{Store, WriteOptions};
use crate::app::AppState;
use crate::controllers::paired::Paired;

/// The ConfigMap's name, and its one key.
pub const NAME: &str = "kube-root-ca.crt";
const KEY: &str = "ca.crt";
const DESCRIPTION_KEY: &str = "kubernetes.io/description";
const DESCRIPTION: &str = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

/// A namespace still accepting new objects, by name.
fn active_namespace(kv: &KeyValue) -> Option<String> {
    let ns = Store::decode_stored(kv).ok()?;
    (!object::is_terminating(&ns)).then(|| object::name(&ns).to_string())
}

/// Only the published ConfigMaps are kept, whole.
fn published(kv: &KeyValue) -> Option<Value> {
    let name_at = kv.key.iter().rposition(|b| *b == b'/')? + 1;
    if kv.key[name_at..] != *NAME.as_bytes() {
        return None;
    }
    Store::decode_stored(kv).ok()
}

fn write_options() -> WriteOptions {
    WriteOptions {
        field_manager: Some("kube-controller-manager".into()),
        ..WriteOptions::default()
    }
}

/// Creates the missing ConfigMaps and restores changed ones; returns
/// whether some write failed (to try again soon).
async fn sweep(
    store: &Store,
    kind: &Arc<KindSpec>,
    ca_pem: &str,
    namespaces: &Cache<String>,
    maps: &Cache<Value>,
) -> bool {
    let mut again = false;
    for ns in namespaces.values() {
        let current = maps.get(&keys::object_key(kind, Some(ns), NAME));
        let outcome = match current {
            None => {
                let value = json!({
                    "metadata": {"name": NAME, "annotations": {DESCRIPTION_KEY: DESCRIPTION}},
                    "data": {KEY: ca_pem},
                });
                let decoded = Decoded {
                    value,
                    duplicates: Vec::new(),
                };
                store
                    .create(kind, Some(ns), decoded, &write_options())
                    .await
                    .map(drop)
            }
            Some(map) if str_at(map, "/data/ca.crt") != ca_pem => {
                let mut value = map.clone();
                value["data"] = json!({KEY: ca_pem});
                let decoded = Decoded {
                    value,
                    duplicates: Vec::new(),
                };
                store
                    .update(kind, Some(ns), NAME, decoded, &write_options())
                    .await
                    .map(drop)
            }
            Some(_) => Ok(()),
        };
        match outcome {
            Ok(()) | Err(ApiError::AlreadyExists { .. } | ApiError::Conflict { .. }) => {}
            // The namespace began terminating: its next update says so.
            Err(ApiError::Forbidden { .. } | ApiError::NotFound { .. }) => {}
            Err(e) => {
                tracing::warn!(namespace = %ns, error = %e, "cannot publish the root CA; retrying");
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
    let (ns_kind, cm_kind) = (lookup("namespaces"), lookup("configmaps"));
    let mut pair = Paired::new(
        store,
        (&ns_kind, active_namespace),
        (&cm_kind, published),
        state.shutdown.clone(),
        "root-ca-cert-publisher",
    );
    while pair.due().await {
        let again = match state
            .config
            .service_accounts
            .root_ca_pem(&state.config.data_dir)
        {
            Ok(ca_pem) => sweep(store, &cm_kind, &ca_pem, &pair.first, &pair.second).await,
            Err(e) => {
                tracing::warn!(error = %e, "no root CA to publish");
                true
            }
        };
        pair.swept(again);
    }
}
