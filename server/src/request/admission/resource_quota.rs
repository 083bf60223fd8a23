//! kube-apiserver's ResourceQuota admission: a create (or an update that
//! grows a claim or a Service) in a namespace with ResourceQuotas must fit
//! under each quota that covers it, or is refused in kube's words
//! (`exceeded quota: q, requested: pods=1, used: pods=2, limited:
//! pods=2`; `failed quota: q: must specify limits.cpu for: app`). The
//! quotas' new usage is written in the same commit as the object, so
//! usage never counts a write that did not land and two writers cannot
//! both take the last unit: a lost race admits again. A quota whose usage
//! is not yet published is counted afresh first. `limitedResources` of
//! the plugin's ResourceQuotaConfiguration make a resource (or a pod
//! scope) usable only under a quota that covers it.

use std::sync::Arc;
use std::time::SystemTime;

use serde_json::Value;

use crate::api::error::ApiError;
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::quota::recount::recount;
use crate::api::quota::scopes::{Selector, covers, hard, selectors};
use crate::api::quota::usage::Evaluator;
use crate::api::quota::{
    Resources, add, exceeded, from_json, increase, mask, pretty, to_json, without_zeros,
};
use crate::api::registry::Registry;
use crate::api::store::storage_error;
use crate::request::admission::resource_quota_config::Limited;
use crate::request::admission::{Attributes, Operation, Pins, ValidatingAdmission};
use crate::storage::{KeyRange, KeyValue, RangeOptions, Storage};
use crate::util::maybe_async::MaybeAsync;

pub const RESOURCE_QUOTA: &str = "ResourceQuota";

/// The plugin: reads a namespace's quotas from storage.
pub struct ResourceQuotaAdmission {
    storage: Arc<dyn Storage>,
    registry: Arc<Registry>,
    quotas: Arc<KindSpec>,
    limited: Vec<Limited>,
}

/// A quota that covers the object under review.
struct Covering {
    kv: KeyValue,
    quota: Value,
    hard: Resources,
}

impl ResourceQuotaAdmission {
    #[must_use]
    pub fn new(
        storage: Arc<dyn Storage>,
        registry: Arc<Registry>,
        quotas: Arc<KindSpec>,
        limited: Vec<Limited>,
    ) -> ResourceQuotaAdmission {
        ResourceQuotaAdmission {
            storage,
            registry,
            quotas,
            limited,
        }
    }

    async fn check(
        &self,
        attrs: &Attributes<'_>,
        evaluator: Evaluator,
        ns: &str,
        obj: &Value,
        pins: &mut Pins,
    ) -> Result<(), ApiError> {
        let prefix = keys::collection_prefix(&self.quotas, Some(ns));
        let read = self
            .storage
            .range(KeyRange::prefix(&prefix), RangeOptions::default())
            .await
            .map_err(storage_error)?;
        let limited: Vec<&Limited> = self
            .limited
            .iter()
            .filter(|l| l.group == attrs.kind.group && l.resource == attrs.kind.resource)
            .collect();
        if read.items.is_empty() && limited.is_empty() {
            return Ok(());
        }
        let now = SystemTime::now();
        let usage = evaluator.usage(obj, now);
        let mut covering = Vec::new();
        let mut covered_names: Vec<String> = Vec::new();
        let mut covered_scopes: Vec<String> = Vec::new();
        for kv in read.items {
            let quota: Value = serde_json::from_slice(&kv.value)
                .map_err(|e| ApiError::Internal(format!("a ResourceQuota is invalid JSON: {e}")))?;
            let hard = hard(&quota);
            covered_scopes.extend(
                selectors(&quota)
                    .filter(|s| s.selects(&evaluator, obj))
                    .map(|s| s.scope().to_string()),
            );
            if !covers(&quota, &hard, &evaluator, obj) {
                continue;
            }
            let tracked: Vec<&str> = hard
                .keys()
                .map(String::as_str)
                .filter(|n| evaluator.tracks(n))
                .collect();
            if let Err(e) = evaluator.constraints(&tracked, obj) {
                let name = crate::api::object::name(&quota);
                return Err(attrs.forbidden(format!("failed quota: {name}: {e}")));
            }
            covered_names.extend(tracked.iter().map(|n| (*n).to_string()));
            covering.push(Covering { kv, quota, hard });
        }
        self.check_limited(
            attrs,
            &evaluator,
            obj,
            &usage,
            &limited,
            &covered_names,
            &covered_scopes,
        )?;
        let delta = match attrs.old_object {
            Some(old) => increase(&usage, &evaluator.usage(old, now)),
            None => usage,
        };
        let delta = without_zeros(delta);
        if delta.is_empty() {
            return Ok(());
        }
        for Covering {
            kv,
            mut quota,
            hard,
        } in covering
        {
            let requested = mask(&delta, |n| hard.contains_key(n) && evaluator.tracks(n));
            if requested.is_empty() {
                continue;
            }
            // Usage is known once the controller (or an earlier write)
            // published it for every limited resource.
            let used_now = from_json(quota.pointer("/status/used"));
            let published = quota.pointer("/status/hard").is_some();
            let used = if published && hard.keys().all(|n| used_now.contains_key(n)) {
                used_now
            } else {
                recount(&*self.storage, &self.registry, ns, &quota, &hard, None).await?
            };
            let mut after = used.clone();
            add(&mut after, &requested);
            let over = exceeded(&mask(&after, |n| requested.contains_key(n)), &hard);
            if !over.is_empty() {
                let only = |n: &str| over.iter().any(|o| o == n);
                return Err(attrs.forbidden(format!(
                    "exceeded quota: {}, requested: {}, used: {}, limited: {}",
                    crate::api::object::name(&quota),
                    pretty(&mask(&requested, only)),
                    pretty(&mask(&used, only)),
                    pretty(&mask(&hard, only)),
                )));
            }
            for (name, amount) in &mut after {
                if let Some(h) = hard.get(name) {
                    amount.format = h.format;
                }
            }
            let status = quota.as_object_mut().map(|q| {
                q.entry("status")
                    .or_insert_with(|| Value::Object(Default::default()))
            });
            if let Some(status) = status.and_then(Value::as_object_mut) {
                status.insert("hard".into(), to_json(&hard));
                status.insert("used".into(), to_json(&after));
            }
            let bytes = serde_json::to_vec(&quota).expect("a JSON value always serializes");
            pins.write(kv.key.to_vec(), kv.mod_revision, bytes);
        }
        Ok(())
    }

    /// `limitedResources`: what they name may only be used under a quota
    /// that covers it (kube's `insufficient quota to consume`).
    #[allow(clippy::too_many_arguments)]
    fn check_limited(
        &self,
        attrs: &Attributes<'_>,
        evaluator: &Evaluator,
        obj: &Value,
        usage: &Resources,
        limited: &[&Limited],
        covered_names: &[String],
        covered_scopes: &[String],
    ) -> Result<(), ApiError> {
        let mut uncovered: Vec<&str> = Vec::new();
        let mut unmatched: Vec<String> = Vec::new();
        for limit in limited {
            for name in usage.keys() {
                let named = limit
                    .match_contains
                    .iter()
                    .any(|c| name.contains(c.as_str()));
                if named && !covered_names.contains(name) && !uncovered.contains(&name.as_str()) {
                    uncovered.push(name);
                }
            }
            for requirement in &limit.match_scopes {
                let selector = Selector::from_json(requirement);
                if selector.selects(evaluator, obj)
                    && !covered_scopes.iter().any(|s| s == selector.scope())
                {
                    unmatched.push(selector.describe());
                }
            }
        }
        if !uncovered.is_empty() {
            uncovered.sort_unstable();
            return Err(attrs.forbidden(format!(
                "insufficient quota to consume: {}",
                uncovered.join(",")
            )));
        }
        if !unmatched.is_empty() {
            return Err(attrs.forbidden(format!(
                "insufficient quota to match these scopes: [{}]",
                unmatched.join(" ")
            )));
        }
        Ok(())
    }
}

impl ValidatingAdmission for ResourceQuotaAdmission {
    fn name(&self) -> &'static str {
        RESOURCE_QUOTA
    }

    fn handles(&self, operation: Operation) -> bool {
        matches!(operation, Operation::Create | Operation::Update)
    }

    fn validate<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        object: Option<&'a Value>,
        pins: &'a mut Pins,
    ) -> MaybeAsync<'a, Result<(), ApiError>> {
        let (Some(obj), Some(ns)) = (object, attrs.namespace) else {
            return MaybeAsync::Ready(Ok(()));
        };
        if attrs.subresource.is_some() || attrs.object_kind.is_some() {
            return MaybeAsync::Ready(Ok(()));
        }
        let Some(evaluator) = Evaluator::for_kind(attrs.kind) else {
            return MaybeAsync::Ready(Ok(()));
        };
        if attrs.operation == Operation::Update && !evaluator.counts_updates() {
            return MaybeAsync::Ready(Ok(()));
        }
        MaybeAsync::pending(self.check(attrs, evaluator, ns, obj, pins))
    }
}

#[cfg(test)]
#[path = "resource_quota_tests.rs"]
mod tests;
