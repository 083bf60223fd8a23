//! A pod's quality-of-service class, computed from its containers' CPU and
//! memory requests and limits the way Kubernetes computes it.

use std::collections::BTreeMap;

use serde_json::Value;

use super::checks::items_at;
use crate::api::quantity::nanos;

/// Resources that decide the class; others (GPUs, storage) do not.
const QOS_RESOURCES: [&str; 2] = ["cpu", "memory"];

/// Sums the positive quantities of `list` (requests or limits) into `totals`;
/// answers which QoS resources were present.
fn add_positive(
    list: Option<&Value>,
    totals: &mut BTreeMap<&'static str, i128>,
) -> Vec<&'static str> {
    let mut found = Vec::new();
    for name in QOS_RESOURCES {
        let amount = list.and_then(|l| l.get(name)).and_then(nanos).unwrap_or(0);
        if amount > 0 {
            *totals.entry(name).or_default() += amount;
            found.push(name);
        }
    }
    found
}

/// `Guaranteed`, `Burstable` or `BestEffort`.
#[must_use]
pub fn qos_class(pod: &Value) -> &'static str {
    let mut requests = BTreeMap::new();
    let mut limits = BTreeMap::new();
    let mut every_container_limits_both = true;
    let containers = items_at(pod, "/spec/containers")
        .iter()
        .chain(items_at(pod, "/spec/initContainers"));
    for container in containers {
        let resources = container.get("resources");
        add_positive(resources.and_then(|r| r.get("requests")), &mut requests);
        let limited = add_positive(resources.and_then(|r| r.get("limits")), &mut limits);
        if limited.len() != QOS_RESOURCES.len() {
            every_container_limits_both = false;
        }
    }
    if requests.is_empty() && limits.is_empty() {
        return "BestEffort";
    }
    let requests_match_limits = requests.iter().all(|(name, r)| limits.get(name) == Some(r));
    if every_container_limits_both && requests_match_limits && requests.len() == limits.len() {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pod(resources: &[Value]) -> Value {
        let containers: Vec<Value> = resources
            .iter()
            .enumerate()
            .map(|(i, r)| json!({"name": format!("c{i}"), "image": "x", "resources": r}))
            .collect();
        json!({"spec": {"containers": containers}})
    }

    #[test]
    fn no_requests_or_limits_is_best_effort() {
        assert_eq!(qos_class(&pod(&[json!({})])), "BestEffort");
        assert_eq!(
            qos_class(&json!({"spec": {"containers": [{"name": "a"}]}})),
            "BestEffort"
        );
        // Zero and non-QoS resources do not count.
        assert_eq!(
            qos_class(&pod(&[
                json!({"requests": {"cpu": "0", "nvidia.com/gpu": 1}})
            ])),
            "BestEffort"
        );
    }

    #[test]
    fn equal_cpu_and_memory_limits_and_requests_everywhere_is_guaranteed() {
        let full = json!({"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "0.5", "memory": "1024Mi"}});
        assert_eq!(qos_class(&pod(&[full.clone(), full.clone()])), "Guaranteed");
        // Requests defaulted from limits are equal by construction.
        let limits_only = json!({"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}});
        assert_eq!(qos_class(&pod(&[limits_only])), "Guaranteed");
    }

    #[test]
    fn anything_else_is_burstable() {
        let cpu_only = json!({"requests": {"cpu": "1"}, "limits": {"cpu": "1"}});
        assert_eq!(qos_class(&pod(&[cpu_only])), "Burstable");
        let unequal = json!({"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}});
        assert_eq!(qos_class(&pod(&[unequal])), "Burstable");
        let full = json!({"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}});
        assert_eq!(qos_class(&pod(&[full, json!({})])), "Burstable");
        let init = json!({"spec": {"containers": [{"name": "a"}],
            "initContainers": [{"name": "i", "resources": {"requests": {"memory": "10Mi"}}}]}});
        assert_eq!(qos_class(&init), "Burstable");
    }
}
