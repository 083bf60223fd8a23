//! The `priority-and-fairness-config-producer` post-start hook: the API
//! Priority and Fairness configuration objects kube-apiserver keeps. Each
//! start creates the missing ones and brings back the spec of those whose
//! `apf.kubernetes.io/autoupdate-spec` annotation is `"true"`; objects a
//! user marked `"false"` (or made without the annotation) are left alone.
//! Retries until storage accepts all of it.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::kinds::flowcontrol_bootstrap::{AUTOUPDATE_ANNOTATION, Bootstrap};
use crate::api::object;
use crate::api::store::{Store, WriteOptions};
use crate::app::AppState;

/// The hook's name, as kube-apiserver reports it under `poststarthook/`.
pub const HOOK: &str = "priority-and-fairness-config-producer";

/// How long a failed attempt waits before the next.
const RETRY: Duration = Duration::from_secs(1);

/// What ensuring one object needs done.
#[derive(Debug, PartialEq)]
pub enum Plan {
    Create(Value),
    /// The stored object with the default spec.
    Update(Value),
    Unchanged,
}

/// How the bootstrap object `expected` is reconciled with what is stored.
#[must_use]
pub fn plan(expected: &Value, existing: Option<&Value>) -> Plan {
    let Some(existing) = existing else {
        return Plan::Create(expected.clone());
    };
    let auto_update = existing
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(AUTOUPDATE_ANNOTATION))
        .and_then(Value::as_str)
        == Some("true");
    if !auto_update || existing.get("spec") == expected.get("spec") {
        return Plan::Unchanged;
    }
    let mut updated = existing.clone();
    updated["spec"] = expected["spec"].clone();
    Plan::Update(updated)
}

fn write_options() -> WriteOptions {
    WriteOptions {
        field_manager: Some("api-priority-and-fairness-config-producer-v1".into()),
        ..WriteOptions::default()
    }
}

fn decoded(value: Value) -> Decoded {
    Decoded {
        value,
        duplicates: Vec::new(),
    }
}

async fn ensure(store: &Store, kind: &Arc<KindSpec>, expected: &Value) -> Result<(), ApiError> {
    let name = object::name(expected);
    let existing = match store.get(kind, None, name, None).await {
        Ok(obj) => Some(obj),
        Err(ApiError::NotFound { .. }) => None,
        Err(e) => return Err(e),
    };
    match plan(expected, existing.as_ref()) {
        Plan::Unchanged => {}
        Plan::Create(obj) => {
            match store
                .create(kind, None, decoded(obj), &write_options())
                .await
            {
                // Another API server on the same storage was first.
                Ok(_) | Err(ApiError::AlreadyExists { .. }) => {}
                Err(e) => return Err(e),
            }
            tracing::debug!(kind = %kind.kind, name, "created the default flow-control object");
        }
        Plan::Update(obj) => {
            store
                .update(kind, None, name, decoded(obj), &write_options())
                .await?;
            tracing::info!(kind = %kind.kind, name, "restored the default spec of the flow-control object");
        }
    }
    Ok(())
}

fn served(store: &Store, bootstrap: &Bootstrap, resource: &str) -> Result<Arc<KindSpec>, ApiError> {
    let group = bootstrap
        .api_version
        .strip_suffix("/v1")
        .unwrap_or(&bootstrap.api_version);
    store
        .registry
        .lookup(group, "v1", resource)
        .ok_or_else(|| ApiError::Internal(format!("{resource}.{group} is not served")))
}

/// One pass: priority levels first, so that no schema names a level that
/// is not there yet.
pub async fn reconcile(store: &Store, bootstrap: &Bootstrap) -> Result<(), ApiError> {
    let levels = served(store, bootstrap, "prioritylevelconfigurations")?;
    for expected in bootstrap
        .mandatory_priority_levels()
        .iter()
        .chain(&bootstrap.suggested_priority_levels())
    {
        ensure(store, &levels, expected).await?;
    }
    let schemas = served(store, bootstrap, "flowschemas")?;
    for expected in bootstrap
        .mandatory_flow_schemas()
        .iter()
        .chain(&bootstrap.suggested_flow_schemas())
    {
        ensure(store, &schemas, expected).await?;
    }
    Ok(())
}

/// The hook: reconciles until it succeeds, then reports itself done.
pub async fn run(state: Arc<AppState>) {
    let bootstrap = Bootstrap::new(&state.config.api_domain);
    let mut shutdown = state.shutdown.clone();
    loop {
        match reconcile(&state.store, &bootstrap).await {
            Ok(()) => {
                state.health.hook_done(HOOK);
                return;
            }
            Err(e) => {
                tracing::warn!(error = %e, "writing the default flow-control configuration failed; retrying");
            }
        }
        tokio::select! {
            () = tokio::time::sleep(RETRY) => {}
            _ = shutdown.changed() => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn level(annotation: Option<&str>, shares: u32) -> Value {
        let mut obj = json!({"metadata": {"name": "system", "resourceVersion": "7"},
            "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": shares}}});
        if let Some(a) = annotation {
            obj["metadata"]["annotations"] = json!({AUTOUPDATE_ANNOTATION: a});
        }
        obj
    }

    #[test]
    fn missing_objects_are_created_and_auto_updated_ones_restored() {
        let expected = level(Some("true"), 30);
        assert_eq!(plan(&expected, None), Plan::Create(expected.clone()));
        assert_eq!(plan(&expected, Some(&expected)), Plan::Unchanged);
        let drifted = level(Some("true"), 99);
        let Plan::Update(updated) = plan(&expected, Some(&drifted)) else {
            panic!("an auto-updated object is restored");
        };
        assert_eq!(updated["spec"], expected["spec"]);
        assert_eq!(updated["metadata"]["resourceVersion"], "7");
    }

    #[test]
    fn objects_users_took_over_are_left_alone() {
        let expected = level(Some("true"), 30);
        assert_eq!(
            plan(&expected, Some(&level(Some("false"), 99))),
            Plan::Unchanged
        );
        assert_eq!(plan(&expected, Some(&level(None, 99))), Plan::Unchanged);
    }
}
