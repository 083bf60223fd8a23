//! The local APIServices kube-apiserver keeps: one per served group
//! version (`v1.` for the core group), with kube-aggregator's priorities
//! for the built-in ones and 1000/100 for CustomResourceDefinitions' (its
//! crd-autoregistration), labelled as automanaged, always Available.

use std::collections::BTreeMap;
use std::time::SystemTime;

use serde_json::{Value, json};

use crate::api::kind::Origin;
use crate::api::registry::Registry;
use crate::util::time::rfc3339;

/// The label kube-aggregator's autoregistration puts on what it manages.
pub const AUTOMANAGED: &str = "kube-aggregator.kubernetes.io/automanaged";

/// kube-apiserver's priorities (group minimum, version) of its built-in
/// group versions, by the group's name before the API domain (or whole,
/// for groups without it).
const PRIORITIES: &[(&str, &str, i64, i64)] = &[
    ("", "v1", 18000, 1),
    ("apiregistration", "v1", 18000, 15),
    ("apps", "v1", 17800, 15),
    ("events", "v1", 17750, 15),
    ("authentication", "v1", 17700, 15),
    ("authentication", "v1beta1", 17700, 9),
    ("authentication", "v1alpha1", 17700, 1),
    ("authorization", "v1", 17600, 15),
    ("autoscaling", "v1", 17500, 15),
    ("autoscaling", "v2", 17500, 30),
    ("batch", "v1", 17400, 15),
    ("certificates", "v1", 17300, 15),
    ("networking", "v1", 17200, 15),
    ("policy", "v1", 17100, 15),
    ("rbac.authorization", "v1", 17000, 15),
    ("storage", "v1", 16800, 15),
    ("apiextensions", "v1", 16700, 15),
    ("admissionregistration", "v1", 16700, 15),
    ("scheduling", "v1", 16600, 15),
    ("coordination", "v1", 16500, 15),
    ("node", "v1", 16300, 15),
    ("discovery", "v1", 16200, 15),
    ("flowcontrol.apiserver", "v1", 16100, 21),
];

/// CustomResourceDefinitions' group versions rank below built-in ones.
const CRD_PRIORITY: (i64, i64) = (1000, 100);

/// The APIService name of a group version: `<version>.<group>`.
#[must_use]
pub fn api_service_name(group: &str, version: &str) -> String {
    format!("{version}.{group}")
}

fn priority(group: &str, version: &str, domain: &str) -> (i64, i64) {
    let suffix = format!(".{domain}");
    let short = group.strip_suffix(&suffix).unwrap_or(group);
    PRIORITIES
        .iter()
        .find(|(g, v, _, _)| *g == short && *v == version)
        .map_or(CRD_PRIORITY, |(_, _, g, v)| (*g, *v))
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
    fn built_in_groups_take_kube_apiserver_priorities() {
        assert_eq!(priority("", "v1", "k8s.io"), (18000, 1));
        assert_eq!(priority("apps", "v1", "k8s.io"), (17800, 15));
        assert_eq!(
            priority("rbac.authorization.k8s.io", "v1", "k8s.io"),
            (17000, 15)
        );
        assert_eq!(priority("example.com", "v1", "k8s.io"), CRD_PRIORITY);
        assert_eq!(api_service_name("", "v1"), "v1.");
    }
}
