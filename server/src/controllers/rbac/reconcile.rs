//! The `rbac/bootstrap-roles` post-start hook: the default policy is
//! reconciled as Kubernetes does at every start. Missing roles and
//! bindings are created; existing ones whose
//! `rbac.authorization.kubernetes.io/autoupdate` annotation is not
//! `"false"` get back what the default grants and they lack (rules,
//! aggregation selectors, subjects, labels, annotations), and nothing users
//! added is taken away; a binding whose role reference changed is deleted
//! and created again (a role reference cannot be updated). The hook then
//! brings the aggregated roles up to date once, waits for the RBAC
//! authorizer to decide with the result, and retries until all of it
//! succeeds.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use super::bootstrap::{AUTOUPDATE_ANNOTATION, BootstrapPolicy};
use super::{aggregation, in_effect};
use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::object;
use crate::api::store::{DeleteOptions, Store, WriteOptions};
use crate::app::AppState;
use crate::request::authz::rbac::Rbac;
use crate::request::authz::rbac::covers::uncovered;
use crate::request::authz::rbac::rule::PolicyRule;

/// The hook's name, as kube-apiserver reports it under `poststarthook/`.
pub const HOOK: &str = "rbac/bootstrap-roles";

/// How long a failed attempt waits before the next.
const RETRY: Duration = Duration::from_secs(1);

/// What reconciling one object needs done.
#[derive(Debug, PartialEq)]
pub enum Plan {
    Create(Value),
    /// The existing object (with its resourceVersion) made whole.
    Update(Value),
    /// Delete the existing object and create this one.
    Recreate(Value),
    /// Present and complete, or protected by `autoupdate: "false"`.
    Unchanged,
}

fn protected(existing: &Value) -> bool {
    existing
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(AUTOUPDATE_ANNOTATION))
        .and_then(Value::as_str)
        == Some("false")
}

/// Adds the labels and annotations of `expected` that `result` lacks (a
/// key present with another value keeps its value); returns whether any
/// was added.
fn merge_metadata(expected: &Value, result: &mut Value) -> bool {
    let mut changed = false;
    for field in ["labels", "annotations"] {
        let Some(wanted) = expected.pointer(&format!("/metadata/{field}")) else {
            continue;
        };
        let Some(wanted) = wanted.as_object() else {
            continue;
        };
        let have = object::metadata_mut(result)
            .entry(field)
            .or_insert_with(|| Value::Object(Map::new()));
        if !have.is_object() {
            *have = Value::Object(Map::new());
        }
        let have = have.as_object_mut().expect("made an object above");
        for (key, value) in wanted {
            if !have.contains_key(key) {
                have.insert(key.clone(), value.clone());
                changed = true;
            }
        }
    }
    changed
}

fn items<'a>(obj: &'a Value, pointer: &str) -> &'a [Value] {
    obj.pointer(pointer)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// A rule as stored: only the lists it uses.
fn rule_json(rule: &PolicyRule) -> Value {
    let mut out = Map::new();
    for (field, list) in [
        ("verbs", &rule.verbs),
        ("apiGroups", &rule.api_groups),
        ("resources", &rule.resources),
        ("resourceNames", &rule.resource_names),
        ("nonResourceURLs", &rule.non_resource_urls),
    ] {
        if field == "verbs" || !list.is_empty() {
            out.insert(field.into(), list.clone().into());
        }
    }
    Value::Object(out)
}

/// How a ClusterRole of the default policy is reconciled with what is
/// stored.
#[must_use]
pub fn plan_role(expected: &Value, existing: Option<&Value>) -> Plan {
    let Some(existing) = existing else {
        return Plan::Create(expected.clone());
    };
    if protected(existing) {
        return Plan::Unchanged;
    }
    let mut result = existing.clone();
    let mut changed = merge_metadata(expected, &mut result);
    // Rules are covered, not compared: what is missing is added back as
    // single permissions, as Kubernetes' reconciliation does.
    let have = PolicyRule::all_of(existing);
    let missing = uncovered(&have, &PolicyRule::all_of(expected));
    if !missing.is_empty() {
        let mut rules = items(existing, "/rules").to_vec();
        rules.extend(missing.iter().map(rule_json));
        result["rules"] = Value::Array(rules);
        changed = true;
    }
    let wanted = items(expected, "/aggregationRule/clusterRoleSelectors");
    let present = items(existing, "/aggregationRule/clusterRoleSelectors");
    let absent: Vec<Value> = wanted
        .iter()
        .filter(|s| !present.contains(s))
        .cloned()
        .collect();
    if !absent.is_empty() {
        let mut selectors = present.to_vec();
        selectors.extend(absent);
        result["aggregationRule"] = serde_json::json!({"clusterRoleSelectors": selectors});
        changed = true;
    }
    if changed {
        Plan::Update(result)
    } else {
        Plan::Unchanged
    }
}

/// A subject as compared: kind, API group, name, namespace.
fn subject_key(subject: &Value) -> [&str; 4] {
    ["kind", "apiGroup", "name", "namespace"]
        .map(|field| subject.get(field).and_then(Value::as_str).unwrap_or(""))
}

/// The object as created anew: identity, labels and annotations kept,
/// what the server set dropped.
fn fresh(mut obj: Value) -> Value {
    let meta = object::metadata_mut(&mut obj);
    meta.retain(|field, _| matches!(field.as_str(), "name" | "labels" | "annotations"));
    obj
}

/// How a ClusterRoleBinding of the default policy is reconciled with what
/// is stored.
#[must_use]
pub fn plan_binding(expected: &Value, existing: Option<&Value>) -> Plan {
    let Some(existing) = existing else {
        return Plan::Create(expected.clone());
    };
    if protected(existing) {
        return Plan::Unchanged;
    }
    let mut result = existing.clone();
    let mut changed = merge_metadata(expected, &mut result);
    let present: Vec<[&str; 4]> = items(existing, "/subjects")
        .iter()
        .map(subject_key)
        .collect();
    let missing: Vec<Value> = items(expected, "/subjects")
        .iter()
        .filter(|s| !present.contains(&subject_key(s)))
        .cloned()
        .collect();
    if !missing.is_empty() {
        let mut subjects = items(existing, "/subjects").to_vec();
        subjects.extend(missing);
        result["subjects"] = Value::Array(subjects);
        changed = true;
    }
    if expected.get("roleRef") != existing.get("roleRef") {
        result["roleRef"] = expected["roleRef"].clone();
        return Plan::Recreate(fresh(result));
    }
    if changed {
        Plan::Update(result)
    } else {
        Plan::Unchanged
    }
}

/// Reconciliation writes as kube-apiserver's own.
fn write_options() -> WriteOptions {
    WriteOptions {
        field_manager: Some("kube-apiserver".into()),
        ..WriteOptions::default()
    }
}

fn decoded(value: Value) -> Decoded {
    Decoded {
        value,
        duplicates: Vec::new(),
    }
}

/// The stored object of this name, if any.
async fn current(store: &Store, kind: &KindSpec, name: &str) -> Result<Option<Value>, ApiError> {
    match store.get(kind, None, name, None).await {
        Ok(obj) => Ok(Some(obj)),
        Err(ApiError::NotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Carries out a plan for the object `name` of `kind`.
async fn carry_out(
    store: &Store,
    kind: &Arc<KindSpec>,
    name: &str,
    plan: Plan,
) -> Result<(), ApiError> {
    let what = format!("{}.{}/{name}", kind.resource, kind.group);
    match plan {
        Plan::Unchanged => return Ok(()),
        Plan::Create(obj) => {
            store
                .create(kind, None, decoded(obj), &write_options())
                .await?;
            tracing::info!(object = %what, "created the default RBAC object");
        }
        Plan::Update(obj) => {
            store
                .update(kind, None, name, decoded(obj), &write_options())
                .await?;
            tracing::info!(object = %what, "reconciled the default RBAC object");
        }
        Plan::Recreate(obj) => {
            match store
                .delete(kind, None, name, &DeleteOptions::default())
                .await
            {
                Ok(_) | Err(ApiError::NotFound { .. }) => {}
                Err(e) => return Err(e),
            }
            store
                .create(kind, None, decoded(obj), &write_options())
                .await?;
            tracing::info!(object = %what, "recreated the default RBAC binding with its role reference");
        }
    }
    Ok(())
}

fn rbac_kind(store: &Store, group: &str, resource: &str) -> Result<Arc<KindSpec>, ApiError> {
    store
        .registry
        .lookup(group, "v1", resource)
        .ok_or_else(|| ApiError::Internal(format!("{resource}.{group} is not served")))
}

/// One pass over the default policy.
pub async fn reconcile(store: &Store, policy: &BootstrapPolicy) -> Result<(), ApiError> {
    let roles = rbac_kind(store, &policy.group, "clusterroles")?;
    for expected in &policy.cluster_roles {
        let name = object::name(expected);
        let existing = current(store, &roles, name).await?;
        carry_out(store, &roles, name, plan_role(expected, existing.as_ref())).await?;
    }
    let bindings = rbac_kind(store, &policy.group, "clusterrolebindings")?;
    for expected in &policy.cluster_role_bindings {
        let name = object::name(expected);
        let existing = current(store, &bindings, name).await?;
        carry_out(
            store,
            &bindings,
            name,
            plan_binding(expected, existing.as_ref()),
        )
        .await?;
    }
    Ok(())
}

/// The hook: reconciles the default policy and settles aggregation,
/// retrying until both succeed, then reports itself done once `rbac`
/// decides with the result.
pub async fn run(state: Arc<AppState>, rbac: Rbac) {
    let policy = BootstrapPolicy::new(&state.config.api_domain);
    let mut shutdown = state.shutdown.clone();
    loop {
        let result = async {
            reconcile(&state.store, &policy).await?;
            aggregation::settle(&state.store, &policy.group).await?;
            in_effect::wait(&state.store, &policy, &rbac).await
        }
        .await;
        match result {
            Ok(()) => {
                state.health.hook_done(HOOK);
                return;
            }
            Err(e) => {
                tracing::warn!(error = %e, "reconciling the default RBAC policy failed; retrying");
            }
        }
        tokio::select! {
            () = tokio::time::sleep(RETRY) => {}
            _ = shutdown.changed() => return,
        }
    }
}

#[cfg(test)]
#[path = "reconcile_tests.rs"]
mod tests;
