//! A quota's usage counted afresh from storage: every object of the kinds
//! its `hard` names, in its namespace, that it covers — what the quota
//! controller publishes as `status.used`, and what admission starts from
//! while a new quota has no usage yet.

use std::time::SystemTime;

use serde_json::Value;

use super::scopes::covers;
use super::usage::Evaluator;
use super::{Amount, Resources, add, mask};
use crate::api::error::ApiError;
use crate::api::keys;
use crate::api::registry::Registry;
use crate::api::store::storage_error;
use crate::storage::{KeyRange, RangeOptions, Revision, Storage};

/// What the objects of `namespace` use of each resource in `hard` (zero
/// for those nothing uses), read at `at` (else the latest revision).
pub async fn recount(
    storage: &dyn Storage,
    registry: &Registry,
    namespace: &str,
    quota: &Value,
    hard: &Resources,
    at: Option<Revision>,
) -> Result<Resources, ApiError> {
    let now = SystemTime::now();
    let mut used: Resources = hard
        .keys()
        .map(|name| (name.clone(), Amount::count(0)))
        .collect();
    for kind in registry.storage_kinds() {
        let Some(evaluator) = Evaluator::for_kind(&kind) else {
            continue;
        };
        if !hard.keys().any(|name| evaluator.tracks(name)) {
            continue;
        }
        let prefix = keys::collection_prefix(&kind, Some(namespace));
        let opts = RangeOptions {
            at,
            ..RangeOptions::default()
        };
        let read = storage
            .range(KeyRange::prefix(&prefix), opts)
            .await
            .map_err(storage_error)?;
        for kv in read.items {
            let Ok(obj) = serde_json::from_slice::<Value>(&kv.value) else {
                continue;
            };
            if covers(quota, hard, &evaluator, &obj) {
                let usage = evaluator.usage(&obj, now);
                add(&mut used, &mask(&usage, |name| hard.contains_key(name)));
            }
        }
    }
    // A sum keeps its first amount's format; zero started as a count.
    for (name, amount) in &mut used {
        if let Some(h) = hard.get(name) {
            amount.format = h.format;
        }
    }
    Ok(used)
}
