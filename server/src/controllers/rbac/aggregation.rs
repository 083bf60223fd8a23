//! ClusterRole aggregation, as Kubernetes' clusterrole-aggregation
//! controller does it: a ClusterRole with an `aggregationRule` has as
//! `rules` the union of the rules of every other ClusterRole that one of
//! its `clusterRoleSelectors` matches, in the order of those roles' names,
//! each rule once. The controller watches ClusterRoles through one
//! informer and rewrites an aggregated role (with the resourceVersion it
//! read) only when its rules differ; chains (`view` is part of `edit`,
//! `edit` of `admin`) settle as each write is seen in turn.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::informer::{Cache, Informer, KeyValue, Update};
use crate::api::kind::KindSpec;
use crate::api::object;
use crate::api::selectors::LabelSelector;
use crate::api::store::{ListOptions, Store, WriteOptions};
use crate::app::AppState;
use crate::request::authz::rbac::rule::PolicyRule;
use crate::request::authz::setup::rbac_group;

/// The manager Kubernetes' aggregation writes under.
const MANAGER: &str = "clusterrole-aggregation-controller";

/// How many rounds `settle` runs at most: enough for chains of aggregated
/// roles far longer than the default policy's.
const SETTLE_ROUNDS: usize = 8;

/// A ClusterRole as the controller reads it.
pub struct ClusterRole {
    pub name: String,
    labels: serde_json::Map<String, Value>,
    /// Its `aggregationRule` selectors, when it has one; an invalid
    /// selector is kept as its error (the role is then left as it is).
    selectors: Option<Result<Vec<LabelSelector>, String>>,
    /// The whole object as read, with its resourceVersion.
    object: Value,
}

/// A `metav1.LabelSelector` as a parsed selector.
fn label_selector(selector: &Value) -> Result<LabelSelector, String> {
    let mut terms = Vec::new();
    if let Some(labels) = selector.get("matchLabels").and_then(Value::as_object) {
        for (key, value) in labels {
            terms.push(format!("{key}={}", value.as_str().unwrap_or_default()));
        }
    }
    let expressions = selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for expression in expressions {
        let field = |name: &str| expression.get(name).and_then(Value::as_str).unwrap_or("");
        let key = field("key");
        let values: Vec<&str> = expression
            .get("values")
            .and_then(Value::as_array)
            .map(|v| v.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        terms.push(match field("operator") {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.to_string(),
            "DoesNotExist" => format!("!{key}"),
            other => return Err(format!("{other:?} is not a valid label selector operator")),
        });
    }
    LabelSelector::parse(&terms.join(","))
}

impl ClusterRole {
    /// A ClusterRole object (with its resourceVersion).
    #[must_use]
    pub fn from_object(object: Value) -> ClusterRole {
        let selectors = object.get("aggregationRule").map(|rule| {
            rule.get("clusterRoleSelectors")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .map(label_selector)
                .collect()
        });
        ClusterRole {
            name: object::name(&object).to_string(),
            labels: object
                .pointer("/metadata/labels")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
            selectors,
            object,
        }
    }

    fn rules(&self) -> &[Value] {
        self.object
            .get("rules")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }
}

fn project(kv: &KeyValue) -> Option<ClusterRole> {
    Store::decode_stored(kv).ok().map(ClusterRole::from_object)
}

/// The rules `role` aggregates from `all` (every ClusterRole), or `None`
/// when it aggregates nothing or a selector is invalid.
#[must_use]
pub fn aggregated_rules<'a>(
    role: &ClusterRole,
    all: impl IntoIterator<Item = &'a ClusterRole>,
) -> Option<Vec<Value>> {
    aggregate(role, all, &HashMap::new())
}

/// As `aggregated_rules`, reading the roles in `updated` with their new
/// rules.
fn aggregate<'a>(
    role: &ClusterRole,
    all: impl IntoIterator<Item = &'a ClusterRole>,
    updated: &HashMap<String, Vec<Value>>,
) -> Option<Vec<Value>> {
    let selectors = match role.selectors.as_ref()? {
        Ok(selectors) => selectors,
        Err(e) => {
            tracing::warn!(clusterrole = %role.name, error = %e, "cannot aggregate: invalid selector");
            return None;
        }
    };
    let mut sources: Vec<&ClusterRole> = all
        .into_iter()
        .filter(|other| other.name != role.name)
        .filter(|other| selectors.iter().any(|s| s.matches(&other.labels)))
        .collect();
    sources.sort_by(|a, b| a.name.cmp(&b.name));
    let mut seen: Vec<PolicyRule> = Vec::new();
    let mut rules = Vec::new();
    let source_rules = |source: &ClusterRole| -> Vec<Value> {
        updated
            .get(&source.name)
            .cloned()
            .unwrap_or_else(|| source.rules().to_vec())
    };
    for rule in sources.into_iter().flat_map(source_rules) {
        let parsed = PolicyRule::from_json(&rule);
        if !seen.contains(&parsed) {
            seen.push(parsed);
            rules.push(rule);
        }
    }
    Some(rules)
}

/// The aggregated roles whose rules are not what they aggregate, each as
/// the object to write. Roles are taken in name order, each seeing the
/// new rules of those before it, as if written one after the other (two
/// roles aggregating each other then agree instead of swapping rules).
fn outdated(roles: &[&ClusterRole]) -> Vec<(String, Value)> {
    let mut ordered = roles.to_vec();
    ordered.sort_by(|a, b| a.name.cmp(&b.name));
    let mut updated: HashMap<String, Vec<Value>> = HashMap::new();
    let mut out = Vec::new();
    for role in ordered {
        let Some(rules) = aggregate(role, roles.iter().copied(), &updated) else {
            continue;
        };
        let current: Vec<PolicyRule> = role.rules().iter().map(PolicyRule::from_json).collect();
        let wanted: Vec<PolicyRule> = rules.iter().map(PolicyRule::from_json).collect();
        if current != wanted {
            let mut next = role.object.clone();
            next["rules"] = Value::Array(rules.clone());
            updated.insert(role.name.clone(), rules);
            out.push((role.name.clone(), next));
        }
    }
    out
}

/// Writes an aggregated role's new rules; a conflict means a newer
/// version is on its way.
async fn write(
    store: &Store,
    kind: &Arc<KindSpec>,
    name: &str,
    obj: Value,
) -> Result<(), ApiError> {
    let opts = WriteOptions {
        field_manager: Some(MANAGER.into()),
        ..WriteOptions::default()
    };
    let decoded = Decoded {
        value: obj,
        duplicates: Vec::new(),
    };
    store.update(kind, None, name, decoded, &opts).await?;
    tracing::debug!(clusterrole = %name, "aggregated rules updated");
    Ok(())
}

fn cluster_roles(store: &Store, rbac_group: &str) -> Result<Arc<KindSpec>, ApiError> {
    store
        .registry
        .lookup(rbac_group, "v1", "clusterroles")
        .ok_or_else(|| ApiError::Internal(format!("clusterroles.{rbac_group} is not served")))
}

/// Brings every aggregated role up to date now, reading from storage
/// (the start-up hook, before the controller's first pass).
pub async fn settle(store: &Store, rbac_group: &str) -> Result<(), ApiError> {
    let kind = cluster_roles(store, rbac_group)?;
    for _ in 0..SETTLE_ROUNDS {
        let page = store.list(&kind, None, &ListOptions::default()).await?;
        let roles: Vec<ClusterRole> = page
            .items
            .into_iter()
            .map(ClusterRole::from_object)
            .collect();
        let pending = outdated(&roles.iter().collect::<Vec<_>>());
        if pending.is_empty() {
            return Ok(());
        }
        for (name, obj) in pending {
            write(store, &kind, &name, obj).await?;
        }
    }
    Ok(())
}

/// Rewrites the outdated aggregated roles of the cache; returns whether
/// some write failed (to try again soon).
async fn sync(store: &Store, kind: &Arc<KindSpec>, roles: &Cache<ClusterRole>) -> bool {
    let pending = outdated(&roles.values().collect::<Vec<_>>());
    let mut again = false;
    for (name, obj) in pending {
        match write(store, kind, &name, obj).await {
            Ok(()) | Err(ApiError::NotFound { .. }) => {}
            Err(ApiError::Conflict { .. }) => again = true,
            Err(e) => {
                tracing::warn!(clusterrole = %name, error = %e, "cannot update aggregated rules; retrying");
                again = true;
            }
        }
    }
    again
}

/// Applies an informer's update; returns whether the cache changed.
fn absorb(cache: &mut Cache<ClusterRole>, update: Result<Update, ApiError>) -> bool {
    match update {
        Ok(update) => cache.apply(update),
        Err(e) => {
            tracing::warn!(error = %e, "listing ClusterRoles for aggregation failed; retrying");
            false
        }
    }
}

/// Runs until the server stops.
pub async fn run(state: Arc<AppState>) {
    let store = &state.store;
    let kind = match cluster_roles(store, &rbac_group(&state.config.api_domain)) {
        Ok(kind) => kind,
        Err(e) => {
            tracing::error!(error = %e, "ClusterRole aggregation cannot run");
            return;
        }
    };
    let mut informer = Informer::for_kind(store, &kind);
    let mut roles = Cache::new(project);
    let mut shutdown = state.shutdown.clone();
    let (mut changed, mut again) = (false, false);
    loop {
        while let Some(update) = informer.try_next() {
            changed |= absorb(&mut roles, update);
        }
        if roles.is_synced() && (changed || again) {
            again = sync(store, &kind, &roles).await;
            changed = false;
        }
        let pause = if again {
            Duration::from_millis(200)
        } else {
            Duration::from_secs(60)
        };
        tokio::select! {
            update = informer.next() => match update {
                Some(update) => changed |= absorb(&mut roles, update),
                None => return,
            },
            () = tokio::time::sleep(pause) => {}
            _ = shutdown.changed() => return,
        }
    }
}

#[cfg(test)]
#[path = "aggregation_tests.rs"]
mod tests;
