//! The status of every ValidatingAdmissionPolicy, as kube-apiserver's
//! policy controller keeps it: once per generation, `typeChecking` (the
//! warnings of `policy::type_check`, an empty object when there are none)
//! and `observedGeneration`.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::api::informer::{Informer, Update};
use crate::api::object;
use crate::api::store::{Store, Subresource};
use crate::app::AppState;
use crate::request::admission::policy::type_check;

/// Pause before writing a status again after a failed write.
const RETRY_AFTER: Duration = Duration::from_secs(1);
/// Writes tried per generation.
const ATTEMPTS: u32 = 5;

/// The status a policy should have, when it does not have it yet.
fn wanted(policy: &Value, store: &Store) -> Option<(String, i64, Value)> {
    let generation = policy.pointer("/metadata/generation")?.as_i64()?;
    let observed = policy
        .pointer("/status/observedGeneration")
        .and_then(Value::as_i64);
    if observed == Some(generation) {
        return None;
    }
    let warnings = type_check::warnings(&policy["spec"], &store.registry);
    let checking = if warnings.is_empty() {
        json!({})
    } else {
        json!({"expressionWarnings": warnings})
    };
    Some((object::name(policy).to_string(), generation, checking))
}

/// Runs until the server stops.
pub async fn run(state: Arc<AppState>) {
    let store = &state.store;
    let group = format!("admissionregistration.{}", state.config.api_domain);
    let Some(kind) = store
        .registry
        .lookup(&group, "v1", "validatingadmissionpolicies")
    else {
        return;
    };
    let mut informer = Informer::for_kind(store, &kind);
    let mut shutdown = state.shutdown.clone();
    loop {
        let update = tokio::select! {
            update = informer.next() => update,
            _ = shutdown.changed() => return,
        };
        let kv = match update {
            None => return,
            Some(Ok(Update::Put { kv, .. })) => kv,
            Some(_) => continue,
        };
        let Some((name, generation, checking)) = Store::decode_stored(&kv)
            .ok()
            .and_then(|policy| wanted(&policy, store))
        else {
            continue;
        };
        for attempt in 1..=ATTEMPTS {
            let edit = store.system_edit(&kind, None, &name, Some(Subresource::Status), |obj| {
                if !obj.get("status").is_some_and(Value::is_object) {
                    obj["status"] = json!({});
                }
                obj["status"]["observedGeneration"] = generation.into();
                obj["status"]["typeChecking"] = checking.clone();
            });
            match edit.await {
                Ok(()) => break,
                Err(e) if attempt < ATTEMPTS => {
                    tracing::debug!(policy = %name, error = %e, "writing the policy's status; retrying");
                    tokio::time::sleep(RETRY_AFTER).await;
                }
                Err(e) => {
                    tracing::warn!(policy = %name, error = %e, "cannot write the policy's status")
                }
            }
        }
    }
}
