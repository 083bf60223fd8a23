//! How much of each quota resource one object uses, as kube's quota
//! evaluators count it: every namespaced kind counts as
//! `count/<resource>[.<group>]` (and under its legacy name for ConfigMaps,
//! Secrets, ReplicationControllers and ResourceQuotas); pods add their
//! compute requests and limits while they are not finished, Services
//! their load balancers and node ports, claims their storage (per class
//! too). Events are not counted, as kube ignores them.

use std::time::SystemTime;

use serde_json::Value;

use super::{Amount, Resources, add};
use crate::api::kind::KindSpec;
use crate::api::kinds::checks::{items_at, str_at};
use crate::util::time::parse_rfc3339;

/// The quota evaluator of one kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Evaluator {
    Pods,
    Services,
    Claims,
    /// Any other kind: its objects are counted, nothing more.
    Count {
        /// `count/<resource>[.<group>]`.
        name: String,
        /// The name kube also counts it under (`configmaps`).
        legacy: Option<&'static str>,
    },
}

/// Names a pod's compute usage goes by, and the resources whose quota
/// makes every container state them (kube's `validationSet`).
const POD_COMPUTE: [&str; 9] = [
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
];
const MUST_BE_STATED: [&str; 6] = [
    "cpu",
    "memory",
    "requests.cpu",
    "requests.memory",
    "limits.cpu",
    "limits.memory",
];
const LEGACY_COUNTS: [&str; 4] = [
    "configmaps",
    "secrets",
    "replicationcontrollers",
    "resourcequotas",
];
const STORAGE_CLASS_SUFFIX: &str = ".storageclass.storage.k8s.io/";

impl Evaluator {
    /// The evaluator of a namespaced kind's objects; none for cluster-wide
    /// kinds and for Events.
    #[must_use]
    pub fn for_kind(kind: &KindSpec) -> Option<Evaluator> {
        if !kind.namespaced || kind.resource == "events" {
            return None;
        }
        if kind.group.is_empty() {
            match kind.resource.as_str() {
                "pods" => return Some(Evaluator::Pods),
                "services" => return Some(Evaluator::Services),
                "persistentvolumeclaims" => return Some(Evaluator::Claims),
                _ => {}
            }
        }
        Some(Evaluator::Count {
            name: count_name(&kind.group, &kind.resource),
            legacy: LEGACY_COUNTS
                .into_iter()
                .find(|r| kind.group.is_empty() && *r == kind.resource),
        })
    }

    /// Whether this evaluator counts quota resource `name`.
    #[must_use]
    pub fn tracks(&self, name: &str) -> bool {
        match self {
            Evaluator::Pods => {
                matches!(name, "pods" | "count/pods")
                    || POD_COMPUTE.contains(&name)
                    || name.starts_with("hugepages-")
                    || name.starts_with("requests.")
            }
            Evaluator::Services => matches!(
                name,
                "services" | "count/services" | "services.loadbalancers" | "services.nodeports"
            ),
            Evaluator::Claims => {
                matches!(
                    name,
                    "persistentvolumeclaims" | "count/persistentvolumeclaims" | "requests.storage"
                ) || name.contains(STORAGE_CLASS_SUFFIX)
            }
            Evaluator::Count {
                name: count,
                legacy,
            } => name == count || legacy.is_some_and(|l| l == name),
        }
    }

    /// Whether an update can change what an object uses (a claim's size,
    /// a Service's type); other kinds' updates are not admitted by quota.
    #[must_use]
    pub fn counts_updates(&self) -> bool {
        matches!(self, Evaluator::Services | Evaluator::Claims)
    }

    /// Whether an update can change what an object uses at all (a pod
    /// finishing, a claim growing); other kinds' objects only come and go.
    #[must_use]
    pub fn updates_change_usage(&self) -> bool {
        !matches!(self, Evaluator::Count { .. })
    }

    /// What `obj` uses, at `now` (a pod past its deletion grace uses no
    /// compute).
    #[must_use]
    pub fn usage(&self, obj: &Value, now: SystemTime) -> Resources {
        let mut used = Resources::new();
        match self {
            Evaluator::Pods => {
                used.insert("count/pods".into(), Amount::count(1));
                if pod_is_live(obj, now) {
                    add(&mut used, &pod_compute(obj));
                }
            }
            Evaluator::Services => service_usage(obj, &mut used),
            Evaluator::Claims => claim_usage(obj, &mut used),
            Evaluator::Count { name, legacy } => {
                used.insert(name.clone(), Amount::count(1));
                if let Some(legacy) = legacy {
                    used.insert((*legacy).into(), Amount::count(1));
                }
            }
        }
        used
    }

    /// kube's `Constraints`: with cpu or memory under quota, each container
    /// must state them (`must specify limits.cpu for: app; requests.memory
    /// for: app,init`).
    pub fn constraints(&self, tracked: &[&str], obj: &Value) -> Result<(), String> {
        if *self != Evaluator::Pods {
            return Ok(());
        }
        let required: Vec<&str> = MUST_BE_STATED
            .into_iter()
            .filter(|r| tracked.contains(r))
            .collect();
        let mut missing: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
        let containers = items_at(obj, "/spec/containers")
            .iter()
            .chain(items_at(obj, "/spec/initContainers"));
        for container in containers {
            let stated = container_compute(container);
            for resource in &required {
                if !stated.contains_key(*resource) {
                    missing
                        .entry(resource)
                        .or_default()
                        .push(str_at(container, "/name"));
                }
            }
        }
        if missing.is_empty() {
            return Ok(());
        }
        let parts: Vec<String> = missing
            .into_iter()
            .map(|(resource, mut names)| {
                names.sort_unstable();
                names.dedup();
                format!("{resource} for: {}", names.join(","))
            })
            .collect();
        Err(format!("must specify {}", parts.join("; ")))
    }
}

/// `count/<resource>` for the core group, `count/<resource>.<group>` else.
#[must_use]
pub fn count_name(group: &str, resource: &str) -> String {
    if group.is_empty() {
        format!("count/{resource}")
    } else {
        format!("count/{resource}.{group}")
    }
}

/// kube's `QuotaV1Pod`: a finished pod, or one past its deletion grace,
/// no longer uses compute.
fn pod_is_live(pod: &Value, now: SystemTime) -> bool {
    if matches!(str_at(pod, "/status/phase"), "Succeeded" | "Failed") {
        return false;
    }
    let deleted_at = pod
        .pointer("/metadata/deletionTimestamp")
        .and_then(Value::as_str)
        .and_then(parse_rfc3339);
    let grace = pod
        .pointer("/metadata/deletionGracePeriodSeconds")
        .and_then(Value::as_u64);
    match (deleted_at, grace) {
        (Some(at), Some(grace)) => now <= at + std::time::Duration::from_secs(grace),
        _ => true,
    }
}

/// One container's (or a pod's total) requests and limits under the names
/// quota counts them by (kube's `podComputeUsageHelper`, less `pods`).
fn compute_names(requests: &Resources, limits: &Resources) -> Resources {
    let mut out = Resources::new();
    for (name, amount) in requests {
        match name.as_str() {
            "cpu" | "memory" | "ephemeral-storage" => {
                out.insert(name.clone(), *amount);
                out.insert(format!("requests.{name}"), *amount);
            }
            _ if name.starts_with("hugepages-") => {
                out.insert(name.clone(), *amount);
                out.insert(format!("requests.{name}"), *amount);
            }
            // Extended resources are quota'd as requests only.
            _ if name.contains('/') => {
                out.insert(format!("requests.{name}"), *amount);
            }
            _ => {}
        }
    }
    for (name, amount) in limits {
        if matches!(name.as_str(), "cpu" | "memory" | "ephemeral-storage") {
            out.insert(format!("limits.{name}"), *amount);
        }
    }
    out
}

fn container_compute(container: &Value) -> Resources {
    compute_names(
        &super::from_json(container.pointer("/resources/requests")),
        &super::from_json(container.pointer("/resources/limits")),
    )
}

/// The larger of each resource.
fn raise_to(into: &mut Resources, other: &Resources) {
    for (name, amount) in other {
        match into.get_mut(name) {
            Some(have) if amount.quantity.compare(&have.quantity).is_gt() => *have = *amount,
            Some(_) => {}
            None => {
                into.insert(name.clone(), *amount);
            }
        }
    }
}

/// A pod's requests or limits as kube totals them: the containers and
/// sidecars (restartable init containers) summed, raised to what each
/// other init container needs beside the sidecars started before it,
/// plus the overhead.
fn pod_total(pod: &Value, field: &str) -> Resources {
    let of = |c: &Value| super::from_json(c.pointer(&format!("/resources/{field}")));
    let mut sum = Resources::new();
    for c in items_at(pod, "/spec/containers") {
        add(&mut sum, &of(c));
    }
    let (mut sidecars, mut init_peak) = (Resources::new(), Resources::new());
    for c in items_at(pod, "/spec/initContainers") {
        let own = of(c);
        if str_at(c, "/restartPolicy") == "Always" {
            add(&mut sum, &own);
            add(&mut sidecars, &own);
            raise_to(&mut init_peak, &sidecars);
        } else {
            let mut beside = own;
            add(&mut beside, &sidecars);
            raise_to(&mut init_peak, &beside);
        }
    }
    raise_to(&mut sum, &init_peak);
    let overhead = super::from_json(pod.pointer("/spec/overhead"));
    add(&mut sum, &overhead);
    sum
}

fn pod_compute(pod: &Value) -> Resources {
    let mut used = compute_names(&pod_total(pod, "requests"), &pod_total(pod, "limits"));
    used.insert("pods".into(), Amount::count(1));
    used
}

fn service_usage(svc: &Value, used: &mut Resources) {
    used.insert("count/services".into(), Amount::count(1));
    used.insert("services".into(), Amount::count(1));
    let ports = items_at(svc, "/spec/ports");
    let node_ports = match str_at(svc, "/spec/type") {
        "NodePort" => ports.len(),
        "LoadBalancer" => {
            used.insert("services.loadbalancers".into(), Amount::count(1));
            let allocates = svc
                .pointer("/spec/allocateLoadBalancerNodePorts")
                .and_then(Value::as_bool)
                .unwrap_or(true);
            if allocates {
                ports.len()
            } else {
                ports.iter().filter(|p| p.get("nodePort").is_some()).count()
            }
        }
        _ => return,
    };
    used.insert(
        "services.nodeports".into(),
        Amount::count(i64::try_from(node_ports).unwrap_or(i64::MAX)),
    );
}

fn claim_usage(claim: &Value, used: &mut Resources) {
    used.insert("count/persistentvolumeclaims".into(), Amount::count(1));
    used.insert("persistentvolumeclaims".into(), Amount::count(1));
    let class = match str_at(claim, "/spec/storageClassName") {
        "" => str_at(
            claim,
            "/metadata/annotations/volume.beta.kubernetes.io~1storage-class",
        ),
        class => class,
    };
    if !class.is_empty() {
        used.insert(
            format!("{class}{STORAGE_CLASS_SUFFIX}persistentvolumeclaims"),
            Amount::count(1),
        );
    }
    let requested = claim
        .pointer("/spec/resources/requests/storage")
        .and_then(Value::as_str)
        .and_then(Amount::parse);
    let allocated = claim
        .pointer("/status/allocatedResources/storage")
        .and_then(Value::as_str)
        .and_then(Amount::parse);
    let storage = match (requested, allocated) {
        (Some(r), Some(a)) if a.quantity.compare(&r.quantity).is_gt() => Some(a),
        (Some(r), _) => Some(r),
        (None, a) => a,
    };
    if let Some(storage) = storage {
        used.insert("requests.storage".into(), storage);
        if !class.is_empty() {
            used.insert(
                format!("{class}{STORAGE_CLASS_SUFFIX}requests.storage"),
                storage,
            );
        }
    }
}

#[cfg(test)]
#[path = "usage_tests.rs"]
mod tests;
