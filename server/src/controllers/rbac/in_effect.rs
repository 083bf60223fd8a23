//! Whether the RBAC authorizer already decides with the default policy as
//! stored: its informer caches follow storage a moment behind, and the
//! `rbac/bootstrap-roles` hook reports itself done only once a request
//! made right after start-up is judged by the reconciled policy.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::bootstrap::BootstrapPolicy;
use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::object;
use crate::api::store::Store;
use crate::request::authz::rbac::Rbac;
use crate::request::authz::rbac::covers::uncovered;
use crate::request::authz::rbac::rule::PolicyRule;
use crate::request::user::UserInfo;

/// How often the caches are looked at, and for how long at most (then the
/// hook is reported done anyway: the caches will catch up).
const POLL: Duration = Duration::from_millis(10);
const PATIENCE: Duration = Duration::from_secs(10);

async fn stored(store: &Store, kind: &KindSpec, name: &str) -> Result<Option<Value>, ApiError> {
    match store.get(kind, None, name, None).await {
        Ok(obj) => Ok(Some(obj)),
        Err(ApiError::NotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Who a binding's subject is, as far as the check needs: users and
/// groups (service accounts are never default subjects).
fn subject_user(subject: &Value) -> Option<UserInfo> {
    let name = subject.get("name").and_then(Value::as_str)?;
    match subject.get("kind").and_then(Value::as_str)? {
        "User" => Some(UserInfo::new(name, &[])),
        "Group" => Some(UserInfo::new("", &[name])),
        _ => None,
    }
}

/// Whether RBAC holds every default role with its stored rules and grants
/// every default binding's subjects its role.
async fn in_effect(
    store: &Store,
    policy: &BootstrapPolicy,
    rbac: &Rbac,
    kinds: (&Arc<KindSpec>, &Arc<KindSpec>),
) -> Result<bool, ApiError> {
    let (roles, bindings) = kinds;
    for expected in &policy.cluster_roles {
        let name = object::name(expected);
        let Some(role) = stored(store, roles, name).await? else {
            continue;
        };
        let held = rbac.role_rules(true, name, "");
        if held.as_deref().ok() != Some(&PolicyRule::all_of(&role)[..]) {
            return Ok(false);
        }
    }
    for expected in &policy.cluster_role_bindings {
        let Some(binding) = stored(store, bindings, object::name(expected)).await? else {
            continue;
        };
        let role = binding
            .pointer("/roleRef/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let Ok(granted) = rbac.role_rules(true, role, "") else {
            continue;
        };
        let subjects = binding.get("subjects").and_then(Value::as_array);
        for user in subjects.into_iter().flatten().filter_map(subject_user) {
            if !uncovered(&rbac.rules(&user, "").0, &granted).is_empty() {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// Waits until RBAC decides with the stored default policy (or patience
/// runs out).
pub async fn wait(store: &Store, policy: &BootstrapPolicy, rbac: &Rbac) -> Result<(), ApiError> {
    let lookup = |resource: &str| {
        store
            .registry
            .lookup(&policy.group, "v1", resource)
            .ok_or_else(|| ApiError::Internal(format!("{resource}.{} is not served", policy.group)))
    };
    let (roles, bindings) = (lookup("clusterroles")?, lookup("clusterrolebindings")?);
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !in_effect(store, policy, rbac, (&roles, &bindings)).await? {
        if tokio::time::Instant::now() >= deadline {
            tracing::warn!(
                "the RBAC caches do not show the default policy yet; reporting the hook done"
            );
            break;
        }
        tokio::time::sleep(POLL).await;
    }
    Ok(())
}
