//! The `kubernetes` Service in `default`, as kube-apiserver keeps it: the
//! first address of the service range, port 443 (`https`) to the secure
//! port, created at start and again whenever it is deleted. Also the
//! start-up step that rebuilds the Service allocator from storage.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::informer::{Cache, KeyValue};
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::object;
use crate::api::store::{ListOptions, Store, WriteOptions};
use crate::app::AppState;
use crate::config::Config;
use crate::controllers::paired::Paired;

const NAMESPACE: &str = "default";
const NAME: &str = "kubernetes";

fn services(store: &Store) -> Arc<KindSpec> {
    store
        .registry
        .lookup("", "v1", "services")
        .expect("core kinds are built in")
}

/// Before serving: what stored Services hold is marked taken, so that no
/// address or port is handed out twice across restarts.
pub async fn recover_allocations(store: &Store) -> Result<(), ApiError> {
    let kind = services(store);
    let page = store.list(&kind, None, &ListOptions::default()).await?;
    kind.strategy.recover(&page.items);
    Ok(())
}

/// The Service as kube-apiserver writes it.
fn desired(config: &Config) -> Value {
    let range = config.service_ranges.cluster_ip_range.0[0];
    // The port this server answers on (the plain one when HTTPS is off).
    let port = config.bound.lock().map_or(config.secure_port, |a| a.port());
    json!({
        "metadata": {
            "name": NAME,
            "labels": {"component": "apiserver", "provider": "kubernetes"}
        },
        "spec": {
            "type": "ClusterIP",
            "clusterIP": range.nth(1).to_string(),
            "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": port}],
            "sessionAffinity": "None"
        }
    })
}

/// Whether the `default` namespace is there and accepting objects.
fn default_namespace(kv: &KeyValue) -> Option<()> {
    let ns = Store::decode_stored(kv).ok()?;
    (object::name(&ns) == NAMESPACE && !object::is_terminating(&ns)).then_some(())
}

fn the_service(kv: &KeyValue) -> Option<()> {
    kv.key
        .ends_with(format!("/{NAMESPACE}/{NAME}").as_bytes())
        .then_some(())
}

/// Creates the Service when missing; whether to try again soon.
async fn sweep(
    state: &AppState,
    kind: &Arc<KindSpec>,
    namespaces: &Cache<()>,
    svcs: &Cache<()>,
) -> bool {
    let present = svcs
        .get(&keys::object_key(kind, Some(NAMESPACE), NAME))
        .is_some();
    if present || namespaces.values().next().is_none() {
        return false;
    }
    let decoded = Decoded {
        value: desired(&state.config),
        duplicates: Vec::new(),
    };
    let opts = WriteOptions {
        field_manager: Some("kube-apiserver".into()),
        ..WriteOptions::default()
    };
    match state
        .store
        .create(kind, Some(NAMESPACE), decoded, &opts)
        .await
    {
        Ok(_) | Err(ApiError::AlreadyExists { .. }) => false,
        // Its address is still held: the Service just deleted gives it
        // back right after its delete commits (or another Service took
        // it). Quietly, since this retries twice a second.
        Err(e @ ApiError::Invalid { .. }) => {
            tracing::debug!(error = %e, "cannot create the kubernetes service yet; retrying");
            true
        }
        Err(e) => {
            tracing::warn!(error = %e, "cannot create the kubernetes service; retrying");
            true
        }
    }
}

/// Runs until the server stops.
pub async fn run(state: Arc<AppState>) {
    let store = &state.store;
    let ns_kind = store
        .registry
        .lookup("", "v1", "namespaces")
        .expect("core kinds are built in");
    let svc_kind = services(store);
    let mut pair = Paired::new(
        store,
        (&ns_kind, default_namespace),
        (&svc_kind, the_service),
        state.shutdown.clone(),
        "kubernetes service controller",
    );
    while pair.due().await {
        let again = sweep(&state, &svc_kind, &pair.first, &pair.second).await;
        pair.swept(again);
    }
}
