//! The `scheduling/bootstrap-system-priority-classes` post-start hook:
//! kube-apiserver creates `system-node-critical` and
//! `system-cluster-critical` when they are missing (a class that exists is
//! left as it is). Retries until storage accepts them.

use std::sync::Arc;
use std::time::Duration;

use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::kinds::cluster_rules::{SYSTEM_PRIORITY_CLASSES, system_priority_class};
use crate::api::store::{Store, WriteOptions};
use crate::app::AppState;

/// The hook's name, as kube-apiserver reports it under `poststarthook/`.
pub const HOOK: &str = "scheduling/bootstrap-system-priority-classes";

const RETRY: Duration = Duration::from_secs(1);

/// Creates the system classes that are missing.
pub async fn ensure(store: &Store, api_domain: &str) -> Result<(), ApiError> {
    let group = format!("scheduling.{api_domain}");
    let Some(kind) = store.registry.lookup(&group, "v1", "priorityclasses") else {
        return Ok(());
    };
    let api_version = kind.api_version();
    for (name, value, description) in SYSTEM_PRIORITY_CLASSES {
        match store.get(&kind, None, name, None).await {
            Ok(_) => continue,
            Err(ApiError::NotFound { .. }) => {}
            Err(e) => return Err(e),
        }
        let obj = Decoded {
            value: system_priority_class(&api_version, name, value, description),
            duplicates: Vec::new(),
        };
        match store
            .create(&kind, None, obj, &WriteOptions::default())
            .await
        {
            Ok(_) | Err(ApiError::AlreadyExists { .. }) => {
                tracing::debug!(name, "created the system priority class");
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The hook: creates the classes until it succeeds, then reports itself done.
pub async fn run(state: Arc<AppState>) {
    let mut shutdown = state.shutdown.clone();
    loop {
        match ensure(&state.store, &state.config.api_domain).await {
            Ok(()) => {
                state.health.hook_done(HOOK);
                return;
            }
            Err(e) => {
                tracing::warn!(error = %e, "creating the system priority classes failed; retrying");
            }
        }
        tokio::select! {
            () = tokio::time::sleep(RETRY) => {}
            _ = shutdown.changed() => return,
        }
    }
}
