//! A binding's params: the objects of the policy's `paramKind` its
//! `paramRef` names (`name`) or selects (`selector`), in the ref's
//! namespace or else the write's. None found is an allowed write, or a
//! denial with `parameterNotFoundAction: Deny`.

use serde_json::Value;

use super::compiled::{Binding, Policy};
use super::evaluate::Failure;
use crate::api::error::ApiError;
use crate::api::keys;
use crate::api::kinds::label_selector;
use crate::api::store::{Store, storage_error};
use crate::request::admission::Attributes;
use crate::storage::{KeyRange, RangeOptions};

/// Why there are no params to evaluate with; `always` failures are not
/// subject to the policy's failure policy.
pub struct ParamFailure {
    pub failure: Failure,
    pub always: bool,
}

fn failed(message: String, always: bool) -> ParamFailure {
    ParamFailure {
        failure: Failure {
            message,
            reason: "Invalid",
            index: None,
        },
        always,
    }
}

/// The params to evaluate `policy` with under `binding` (`[null]` for a
/// policy without a `paramKind`).
pub async fn resolve(
    reads: &Store,
    policy: &Policy,
    binding: &Binding,
    attrs: &Attributes<'_>,
) -> Result<Vec<Value>, ParamFailure> {
    let Some((api_version, kind_name)) = &policy.param_kind else {
        return Ok(vec![Value::Null]);
    };
    let Some(param_ref) = &binding.param_ref else {
        return Err(failed(
            format!(
                "failed to configure binding: policy '{}' has a paramKind, but binding '{}' has no paramRef",
                policy.name, binding.name
            ),
            false,
        ));
    };
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let Some(kind) = reads
        .registry
        .in_group_version(group, version)
        .into_iter()
        .find(|k| k.kind == *kind_name)
    else {
        return Err(failed(
            format!(
                "failed to find resource referenced by paramKind: '{api_version}, Kind={kind_name}'"
            ),
            false,
        ));
    };
    let namespace = match (&param_ref.namespace, kind.namespaced) {
        (_, false) => None,
        (Some(ns), true) => Some(ns.as_str()),
        (None, true) => match attrs.namespace.filter(|_| attrs.kind.namespaced) {
            Some(ns) => Some(ns),
            None => {
                return Err(failed(
                    "cannot use a namespaced paramRef in a policy binding that matches cluster-scoped resources".into(),
                    false,
                ));
            }
        },
    };
    let found = match (&param_ref.name, &param_ref.selector) {
        (Some(name), _) => match reads.get(&kind, namespace, name, None).await {
            Ok(obj) => vec![obj],
            Err(ApiError::NotFound { .. }) => Vec::new(),
            Err(e) => return Err(failed(format!("failed to read params: {e}"), false)),
        },
        (None, selector) => {
            let prefix = keys::collection_prefix(&kind, namespace);
            let read = reads
                .storage
                .range(KeyRange::prefix(&prefix), RangeOptions::default())
                .await
                .map_err(storage_error)
                .map_err(|e| failed(format!("failed to list params: {e}"), false))?;
            let selector = selector.clone().unwrap_or(Value::Null);
            read.items
                .iter()
                .filter_map(|kv| Store::decode_served(&kind, kv).ok())
                .filter(|obj| {
                    let labels = obj.pointer("/metadata/labels").and_then(Value::as_object);
                    selector.is_null() || label_selector::matches(&selector, labels)
                })
                .collect()
        }
    };
    if found.is_empty() && param_ref.deny_when_missing {
        return Err(failed(
            "no params found for policy binding with `Deny` parameterNotFoundAction".into(),
            true,
        ));
    }
    Ok(found)
}
