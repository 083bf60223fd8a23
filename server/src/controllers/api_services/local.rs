//! The local APIServices kube-apiserver keeps: one per served group
//! version (`v1.` for the core group), with kube-aggregator's priorities
//! for the built-in ones and 1000/100 for CustomResourceDefinitions' (its
//! crd-autoregistration), labelled as automanaged, always Available.

use std::collections::BTreeMap;
use std::time::SystemTime;

use serde_json::{Value, json};

use crate::api::group_priority::{CRD_PRIORITY, priority};
use crate::api::kind::Origin;
use crate::api::registry::Registry;
use crate::util::time::rfc3339;

/// The label kube-aggregator's autoregistration puts on what it manages.
pub const AUTOMANAGED: &str = "kube-aggregator.kubernetes.io/automanaged";

/// The APIService name of a group version: `<version>.<group>`.
#[must_use]
pub fn api_service_name(group: &str, version: &str) -> String {
    format!("{version}.{group}")
}

/// One local APIService wanted: its spec, and whether it comes from a
/// CustomResourceDefinition (its label then says `true`, else `onstart`).
#[derive(Clone, Debug, PartialEq)]
pub struct Wanted {
    pub spec: Value,
    pub from_crd: bool,
}

/// Every served group version's APIService, by name.
#[must_use]
pub fn wanted(registry: &Registry, domain: &str) -> BTreeMap<String, Wanted> {
    let mut out = BTreeMap::new();
    for kind in registry.snapshot().iter() {
        let name = api_service_name(&kind.group, &kind.version);
        if out.contains_key(&name) {
            continue;
        }
        let from_crd = matches!(kind.origin, Origin::Crd(_));
        let (group_priority, version_priority) = if from_crd {
            CRD_PRIORITY
        } else {
            priority(&kind.group, &kind.version, domain)
        };
        let spec = json!({
            "group": kind.group,
            "version": kind.version,
            "groupPriorityMinimum": group_priority,
            "versionPriority": version_priority,
        });
        out.insert(name, Wanted { spec, from_crd });
    }
    out
}

/// A new local APIService.
#[must_use]
pub fn object(api_version: &str, name: &str, wanted: &Wanted) -> Value {
    let managed = if wanted.from_crd { "true" } else { "onstart" };
    json!({
        "apiVersion": api_version,
        "kind": "APIService",
        "metadata": {"name": name, "labels": {AUTOMANAGED: managed}},
        "spec": wanted.spec,
    })
}

/// The condition a local APIService carries.
#[must_use]
pub fn local_available(now: SystemTime) -> Value {
    json!({
        "type": "Available",
        "status": "True",
        "lastTransitionTime": rfc3339(now),
        "reason": "Local",
        "message": "Local APIServices are always available",
    })
}

/// Whether a stored APIService is local (names no service).
#[must_use]
pub fn is_local(obj: &Value) -> bool {
    !obj.pointer("/spec/service").is_some_and(Value::is_object)
}

/// Whether a stored APIService's spec already says what `wanted` does.
#[must_use]
pub fn spec_matches(obj: &Value, wanted: &Wanted) -> bool {
    [
        "group",
        "version",
        "groupPriorityMinimum",
        "versionPriority",
    ]
    .iter()
    .all(|f| obj.pointer(&format!("/spec/{f}")) == wanted.spec.get(*f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_core_group_is_named_with_a_trailing_dot() {
        assert_eq!(api_service_name("", "v1"), "v1.");
    }
}
