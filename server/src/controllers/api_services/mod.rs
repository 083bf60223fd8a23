//! The APIService controllers of kube-apiserver's aggregator, as one loop
//! on an APIService informer: the local APIServices of every served group
//! version kept (created at start, recreated when deleted, those of
//! CustomResourceDefinitions added and removed as the registry changes),
//! and the `Available` condition of those that name a service kept from a
//! probe of the service's discovery document. It writes only what differs.

pub mod availability;
pub mod local;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::informer::{Cache, Informer, KeyValue};
use crate::api::kind::KindSpec;
use crate::api::store::delete::DeleteOptions;
use crate::api::store::{ListOptions, Store, Subresource, WriteOptions};
use crate::app::AppState;
use local::{AUTOMANAGED, Wanted};

/// How often the registry is looked at for group versions come or gone.
const REGISTRY_CHECK: Duration = Duration::from_secs(1);
/// How often APIServices that name a service are probed when nothing changes.
const PROBE_EVERY: Duration = Duration::from_secs(30);

fn project(kv: &KeyValue) -> Option<Value> {
    Store::decode_stored(kv).ok()
}

/// The `Available` condition of a stored APIService.
#[must_use]
pub fn available_condition(obj: &Value) -> Option<&Value> {
    obj.pointer("/status/conditions")
        .and_then(Value::as_array)?
        .iter()
        .find(|c| c.get("type").and_then(Value::as_str) == Some("Available"))
}

/// Creates the local APIServices before the server listens, so that a
/// fresh server's first clients see no writes of its own after start-up.
pub async fn bootstrap(state: &AppState) -> Result<(), ApiError> {
    let group = format!("apiregistration.{}", state.config.api_domain);
    let Some(kind) = state.store.registry.lookup(&group, "v1", "apiservices") else {
        return Ok(());
    };
    let page = state
        .store
        .list(&kind, None, &ListOptions::default())
        .await?;
    let wanted = local::wanted(&state.store.registry, &state.config.api_domain);
    keep_locals(&state.store, &kind, &page.items, &wanted).await
}

/// Runs until the server stops.
pub async fn run(state: Arc<AppState>) {
    let group = format!("apiregistration.{}", state.config.api_domain);
    let Some(kind) = state.store.registry.lookup(&group, "v1", "apiservices") else {
        return;
    };
    let mut informer = Informer::for_kind(&state.store, &kind);
    let mut backends = BackendWatch::start(&state.store);
    let mut cache: Cache<Value> = Cache::new(project);
    let mut shutdown = state.shutdown.clone();
    let mut seen_generation = None;
    let mut dirty = true;
    let mut last_probe: Option<tokio::time::Instant> = None;
    loop {
        while let Some(update) = informer.try_next() {
            match update {
                Ok(update) => dirty |= cache.apply(update),
                Err(e) => tracing::warn!(error = %e, "listing APIServices failed; retrying"),
            }
        }
        if cache.is_synced() {
            state.aggregated.replace(cache.values());
        }
        let generation = state.store.registry.generation();
        dirty |= seen_generation != Some(generation);
        if cache.is_synced() && dirty {
            let wanted = local::wanted(&state.store.registry, &state.config.api_domain);
            let existing: Vec<Value> = cache.values().cloned().collect();
            match keep_locals(&state.store, &kind, &existing, &wanted).await {
                Ok(()) => {
                    dirty = false;
                    seen_generation = Some(generation);
                }
                Err(e) => {
                    tracing::warn!(error = %e, "keeping the local APIServices failed; retrying")
                }
            }
        }
        let probe_due = last_probe.is_none_or(|t| t.elapsed() >= PROBE_EVERY);
        if cache.is_synced() && probe_due {
            availability::probe_all(&state, &kind, cache.values()).await;
            last_probe = Some(tokio::time::Instant::now());
        }
        tokio::select! {
            update = informer.next() => match update {
                None => return,
                Some(Ok(update)) => {
                    if cache.apply(update) {
                        dirty = true;
                        // A changed APIService is probed at once.
                        last_probe = None;
                    }
                }
                Some(Err(e)) => tracing::warn!(error = %e, "watching APIServices failed; retrying"),
            },
            touched = backends.next() => {
                if touched.is_some_and(|key| state.aggregated.names_service_at(&key)) {
                    last_probe = None;
                }
            }
            () = tokio::time::sleep(REGISTRY_CHECK) => {}
            _ = shutdown.changed() => return,
        }
    }
}

/// Services and Endpoints as they change: an aggregated APIService's
/// backend coming or going is probed at once, as kube-aggregator's
/// availability controller watches them.
struct BackendWatch {
    services: Option<Informer>,
    endpoints: Option<Informer>,
}

impl BackendWatch {
    fn start(store: &Store) -> BackendWatch {
        let informer = |resource| {
            store
                .registry
                .lookup("", "v1", resource)
                .map(|k| Informer::for_kind(store, &k))
        };
        BackendWatch {
            services: informer("services"),
            endpoints: informer("endpoints"),
        }
    }

    /// The storage key of the next Service or Endpoints written or
    /// deleted (`None` for other news); pends forever without informers.
    async fn next(&mut self) -> Option<bytes::Bytes> {
        let (Some(services), Some(endpoints)) = (&mut self.services, &mut self.endpoints) else {
            return std::future::pending().await;
        };
        let update = tokio::select! {
            u = services.next() => u,
            u = endpoints.next() => u,
        };
        match update {
            Some(Ok(crate::api::informer::Update::Put { kv, .. })) => Some(kv.key),
            Some(Ok(crate::api::informer::Update::Deleted { key, .. })) => Some(key),
            None => {
                // The server is stopping: the shutdown arm ends the loop.
                std::future::pending::<()>().await;
                None
            }
            _ => None,
        }
    }
}

/// Creates, updates and deletes local APIServices until they are what the
/// registry serves.
async fn keep_locals(
    store: &Store,
    kind: &Arc<KindSpec>,
    existing: &[Value],
    wanted: &BTreeMap<String, Wanted>,
) -> Result<(), ApiError> {
    let by_name: BTreeMap<&str, &Value> = existing
        .iter()
        .map(|v| (crate::api::object::name(v), v))
        .collect();
    for (name, want) in wanted {
        match by_name.get(name.as_str()) {
            None => create(store, kind, name, want).await?,
            Some(existing) if local::is_local(existing) => {
                let mut current = (*existing).clone();
                if automanaged(existing) && !local::spec_matches(existing, want) {
                    for (field, value) in want.spec.as_object().into_iter().flatten() {
                        current["spec"][field] = value.clone();
                    }
                    current = write(store, kind, name, current, None).await?;
                }
                if available_condition(&current).and_then(|c| c.get("status"))
                    != Some(&Value::from("True"))
                {
                    set_local_available(store, kind, name, current).await?;
                }
            }
            // Named a service: the aggregator's, probed for availability.
            Some(_) => {}
        }
    }
    for (name, existing) in &by_name {
        if local::is_local(existing) && automanaged(existing) && !wanted.contains_key(*name) {
            match store
                .delete(kind, None, name, &DeleteOptions::default())
                .await
            {
                Ok(_) | Err(ApiError::NotFound { .. }) => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(())
}

fn automanaged(obj: &Value) -> bool {
    obj.pointer("/metadata/labels")
        .and_then(|l| l.get(AUTOMANAGED))
        .is_some()
}

async fn create(
    store: &Store,
    kind: &Arc<KindSpec>,
    name: &str,
    want: &Wanted,
) -> Result<(), ApiError> {
    let obj = local::object(&kind.api_version(), name, want);
    let decoded = Decoded {
        value: obj,
        duplicates: Vec::new(),
    };
    match store
        .create(kind, None, decoded, &WriteOptions::default())
        .await
    {
        Ok(outcome) => set_local_available(store, kind, name, outcome.object).await,
        // Another server (or the informer's lag): the next sweep looks again.
        Err(ApiError::AlreadyExists { .. }) => Ok(()),
        Err(e) => Err(e),
    }
}

async fn set_local_available(
    store: &Store,
    kind: &Arc<KindSpec>,
    name: &str,
    mut obj: Value,
) -> Result<(), ApiError> {
    obj["status"] = serde_json::json!({"conditions": [local::local_available(SystemTime::now())]});
    write(store, kind, name, obj, Some(Subresource::Status))
        .await
        .map(|_| ())
}

/// Writes `obj` (through `subresource`); a conflict is left for the next
/// sweep, which sees the newer object.
pub(crate) async fn write(
    store: &Store,
    kind: &Arc<KindSpec>,
    name: &str,
    obj: Value,
    subresource: Option<Subresource>,
) -> Result<Value, ApiError> {
    let opts = WriteOptions {
        subresource,
        system: true,
        ..WriteOptions::default()
    };
    let decoded = Decoded {
        value: obj,
        duplicates: Vec::new(),
    };
    store
        .update(kind, None, name, decoded, &opts)
        .await
        .map(|o| o.object)
}
