//! kube-apiserver's LimitRanger: the LimitRanges of a namespace give a
//! created pod's containers their missing requests and limits
//! (`defaultRequest`, `default`; noted in the `kubernetes.io/limit-ranger`
//! annotation), then hold each container, the pod as a whole and each
//! PersistentVolumeClaim to `min`, `max` and `maxLimitRequestRatio`, in
//! kube's words (`maximum cpu usage per Container is 1, but limit is 2`).
//! Pod updates are not checked: their containers' resources cannot change.

#[path = "limit_bounds.rs"]
mod limit_bounds;

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::api::error::ApiError;
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::kinds::checks::items_at;
use crate::api::store::storage_error;
use crate::request::admission::{
    Attributes, MutatingAdmission, Operation, Pins, ValidatingAdmission,
};
use crate::storage::{KeyRange, RangeOptions, Revision, Storage};
use crate::util::maybe_async::MaybeAsync;
use limit_bounds::{amounts, bounds, pod_totals};

pub const LIMIT_RANGER: &str = "LimitRanger";
const ANNOTATION: &str = "kubernetes.io/limit-ranger";

/// The plugin: reads a namespace's LimitRanges from storage (as recently
/// known: a watch cache's copy will do).
pub struct LimitRanger {
    storage: Arc<dyn Storage>,
    limit_ranges: Arc<KindSpec>,
}

/// What a write is, for this plugin.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    PodCreate,
    Claim,
}

fn target(attrs: &Attributes<'_>) -> Option<Target> {
    let kind = attrs.kind;
    if !kind.group.is_empty() || attrs.subresource.is_some() {
        return None;
    }
    match (kind.resource.as_str(), attrs.operation) {
        ("pods", Operation::Create) => Some(Target::PodCreate),
        ("persistentvolumeclaims", Operation::Create | Operation::Update) => Some(Target::Claim),
        _ => None,
    }
}

/// One breach as it is, several as `[a, b]`.
fn breaches(errors: &[String]) -> String {
    match errors {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

impl LimitRanger {
    #[must_use]
    pub fn new(storage: Arc<dyn Storage>, limit_ranges: Arc<KindSpec>) -> LimitRanger {
        LimitRanger {
            storage,
            limit_ranges,
        }
    }

    /// The `spec.limits` items of the namespace's LimitRanges.
    async fn items(&self, ns: &str) -> Result<Vec<Value>, ApiError> {
        let prefix = keys::collection_prefix(&self.limit_ranges, Some(ns));
        let read = self
            .storage
            .range(
                KeyRange::prefix(&prefix),
                // What a watch cache holds will do, as kube's lister.
                RangeOptions {
                    not_older_than: Some(Revision::ZERO),
                    ..RangeOptions::default()
                },
            )
            .await
            .map_err(storage_error)?;
        let mut items = Vec::new();
        for kv in read.items {
            let range: Value = serde_json::from_slice(&kv.value)
                .map_err(|e| ApiError::Internal(format!("a LimitRange is invalid JSON: {e}")))?;
            items.extend(items_at(&range, "/spec/limits").iter().cloned());
        }
        Ok(items)
    }

    async fn admit_pod(&self, attrs: &Attributes<'_>, pod: &mut Value) -> Result<(), ApiError> {
        let items = self.items(attrs.namespace.unwrap_or_default()).await?;
        let containers: Vec<&Value> = items
            .iter()
            .filter(|i| i.get("type").and_then(Value::as_str) == Some("Container"))
            .collect();
        if containers.is_empty() {
            return Ok(());
        }
        let mut defaults = (Map::new(), Map::new());
        for item in containers {
            for (into, field) in [
                (&mut defaults.0, "defaultRequest"),
                (&mut defaults.1, "default"),
            ] {
                if let Some(values) = item.get(field).and_then(Value::as_object) {
                    into.extend(values.clone());
                }
            }
        }
        let notes = set_defaults(pod, &defaults.0, &defaults.1);
        if !notes.is_empty() {
            let note = format!("LimitRanger plugin set: {}", notes.join("; "));
            if let Some(meta) = pod.get_mut("metadata").and_then(Value::as_object_mut) {
                let annotations = meta
                    .entry("annotations")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Some(annotations) = annotations.as_object_mut() {
                    annotations.insert(ANNOTATION.into(), note.into());
                }
            }
        }
        Ok(())
    }

    async fn check(
        &self,
        attrs: &Attributes<'_>,
        obj: &Value,
        what: Target,
    ) -> Result<(), ApiError> {
        let items = self.items(attrs.namespace.unwrap_or_default()).await?;
        let mut errors = Vec::new();
        for item in &items {
            let kind = item.get("type").and_then(Value::as_str).unwrap_or_default();
            match (what, kind) {
                (Target::PodCreate, "Container") => {
                    for list in ["containers", "initContainers"] {
                        for c in items_at(obj, &format!("/spec/{list}")) {
                            let requests = amounts(c.pointer("/resources/requests"));
                            let limits = amounts(c.pointer("/resources/limits"));
                            bounds(item, "Container", &requests, &limits, false, &mut errors);
                        }
                    }
                }
                (Target::PodCreate, "Pod") => {
                    let (requests, limits) = pod_totals(obj);
                    bounds(item, "Pod", &requests, &limits, false, &mut errors);
                }
                (Target::Claim, "PersistentVolumeClaim") => {
                    let requests = amounts(obj.pointer("/spec/resources/requests"));
                    let limits = amounts(obj.pointer("/spec/resources/limits"));
                    bounds(
                        item,
                        "PersistentVolumeClaim",
                        &requests,
                        &limits,
                        true,
                        &mut errors,
                    );
                }
                _ => {}
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(attrs.forbidden(breaches(&errors)))
        }
    }
}

/// Gives each container the defaults it lacks; kube's notes of what was set.
fn set_defaults(
    pod: &mut Value,
    requests: &Map<String, Value>,
    limits: &Map<String, Value>,
) -> Vec<String> {
    let mut notes = Vec::new();
    for (list, label) in [
        ("initContainers", "init container"),
        ("containers", "container"),
    ] {
        let Some(containers) = pod
            .pointer_mut(&format!("/spec/{list}"))
            .and_then(Value::as_array_mut)
        else {
            continue;
        };
        for container in containers.iter_mut().filter_map(Value::as_object_mut) {
            let name = container
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let had_resources = container.contains_key("resources");
            let resources = container
                .entry("resources")
                .or_insert_with(|| Value::Object(Map::new()));
            let Some(resources) = resources.as_object_mut() else {
                continue;
            };
            let mut fill = |field: &str, from: &Map<String, Value>| {
                let into = resources
                    .entry(field)
                    .or_insert_with(|| Value::Object(Map::new()));
                let mut set: Vec<String> = Vec::new();
                if let Some(into) = into.as_object_mut() {
                    for (key, value) in from {
                        if !into.contains_key(key) {
                            into.insert(key.clone(), value.clone());
                            set.push(key.clone());
                        }
                    }
                }
                set.sort();
                set
            };
            let (set_requests, set_limits) = (fill("requests", requests), fill("limits", limits));
            if !set_requests.is_empty() {
                notes.push(format!(
                    "{} request for {label} {name}",
                    set_requests.join(", ")
                ));
            }
            if !set_limits.is_empty() {
                notes.push(format!(
                    "{} limit for {label} {name}",
                    set_limits.join(", ")
                ));
            }
            resources.retain(|_, v| v.as_object().is_none_or(|m| !m.is_empty()));
            if resources.is_empty() && !had_resources {
                container.remove("resources");
            }
        }
    }
    notes
}

impl MutatingAdmission for LimitRanger {
    fn name(&self) -> &'static str {
        LIMIT_RANGER
    }

    fn handles(&self, operation: Operation) -> bool {
        operation == Operation::Create
    }

    fn admit<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        object: Option<&'a mut Value>,
    ) -> MaybeAsync<'a, Result<(), ApiError>> {
        match object.filter(|_| target(attrs) == Some(Target::PodCreate)) {
            Some(pod) => MaybeAsync::pending(self.admit_pod(attrs, pod)),
            None => MaybeAsync::Ready(Ok(())),
        }
    }
}

impl ValidatingAdmission for LimitRanger {
    fn name(&self) -> &'static str {
        LIMIT_RANGER
    }

    fn handles(&self, operation: Operation) -> bool {
        matches!(operation, Operation::Create | Operation::Update)
    }

    fn validate<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        object: Option<&'a Value>,
        _pins: &'a mut Pins,
    ) -> MaybeAsync<'a, Result<(), ApiError>> {
        match (target(attrs), object) {
            (Some(what), Some(obj)) => MaybeAsync::pending(self.check(attrs, obj, what)),
            _ => MaybeAsync::Ready(Ok(())),
        }
    }
}

#[cfg(test)]
#[path = "limit_ranger_tests.rs"]
mod tests;
