//! How kube carries allocated values through a Service update: values a
//! client left out are taken from the stored object, values a type change
//! makes meaningless are dropped, and cluster IPs never change once set.

use serde_json::{Value, json};

use super::fill::{cluster_ips, needs_cluster_ip, needs_health_check_port, needs_node_ports};
use crate::api::error::Cause;
use crate::api::kinds::checks::{items_at, str_at};

/// `clusterIP` and `clusterIPs` made to agree: the one given fills the
/// other; on an update, a changed `clusterIP` alone changes `clusterIPs[0]`.
pub fn normalize_cluster_ips(svc: &mut Value, old: Option<&Value>) {
    let Some(spec) = svc.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    let ip = spec
        .get("clusterIP")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let ips: Vec<Value> = spec
        .get("clusterIPs")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    match (ip.is_empty(), ips.is_empty()) {
        (false, true) => {
            spec.insert("clusterIPs".into(), json!([ip]));
        }
        (true, false) => {
            spec.insert("clusterIP".into(), ips[0].clone());
        }
        (false, false) => {
            if let Some(old) = old
                && str_at(old, "/spec/clusterIP") != ip
                && items_at(old, "/spec/clusterIPs") == ips.as_slice()
            {
                let mut ips = ips;
                ips[0] = json!(ip);
                spec.insert("clusterIPs".into(), json!(ips));
            }
        }
        (true, true) => {}
    }
}

fn copy_if_missing(new: &mut Value, old: &Value, field: &str) {
    let missing = new["spec"].get(field).is_none_or(|v| {
        v.is_null()
            || v.as_str() == Some("")
            || v.as_array().is_some_and(Vec::is_empty)
            || v.as_i64() == Some(0)
    });
    if missing && let Some(v) = old["spec"].get(field) {
        new["spec"][field] = v.clone();
    }
}

fn drop_if_unchanged(new: &mut Value, old: &Value, field: &str) {
    if new["spec"].get(field) == old["spec"].get(field)
        && let Some(spec) = new["spec"].as_object_mut()
    {
        spec.remove(field);
    }
}

/// kube's `patchAllocatedValues` and `dropTypeDependentFields`.
pub fn carry_allocated(new: &mut Value, old: &Value) {
    if !new.get("spec").is_some_and(Value::is_object) {
        return;
    }
    if needs_cluster_ip(old) && needs_cluster_ip(new) {
        if str_at(new, "/spec/clusterIP").is_empty() {
            copy_if_missing(new, old, "clusterIP");
            copy_if_missing(new, old, "clusterIPs");
        }
        copy_if_missing(new, old, "ipFamilies");
        copy_if_missing(new, old, "ipFamilyPolicy");
    }
    normalize_cluster_ips(new, Some(old));
    if needs_node_ports(old) && needs_node_ports(new) {
        let old_ports = items_at(old, "/spec/ports").to_vec();
        if let Some(ports) = new.pointer_mut("/spec/ports").and_then(Value::as_array_mut) {
            for port in ports {
                if port.get("nodePort").and_then(Value::as_i64).unwrap_or(0) != 0 {
                    continue;
                }
                let same = old_ports.iter().find(|p| {
                    p.get("port") == port.get("port") && p.get("protocol") == port.get("protocol")
                });
                if let Some(n) = same.and_then(|p| p.get("nodePort")) {
                    port["nodePort"] = n.clone();
                }
            }
        }
    }
    if needs_health_check_port(old) && needs_health_check_port(new) {
        copy_if_missing(new, old, "healthCheckNodePort");
    }
    if needs_cluster_ip(old) && !needs_cluster_ip(new) {
        for field in ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"] {
            drop_if_unchanged(new, old, field);
        }
    }
    if needs_node_ports(old) && !needs_node_ports(new) {
        let old_ports = items_at(old, "/spec/ports").to_vec();
        if let Some(ports) = new.pointer_mut("/spec/ports").and_then(Value::as_array_mut) {
            for port in ports {
                let same = old_ports.iter().any(|p| {
                    p.get("port") == port.get("port") && p.get("nodePort") == port.get("nodePort")
                });
                if same && let Some(port) = port.as_object_mut() {
                    port.remove("nodePort");
                }
            }
        }
    }
    if needs_health_check_port(old) && !needs_health_check_port(new) {
        drop_if_unchanged(new, old, "healthCheckNodePort");
    }
}

/// Cluster IPs may be added (dual-stack upgrade) or the secondary removed,
/// but an address once set never changes (unless the type leaves or
/// enters ExternalName).
#[must_use]
pub fn validate_cluster_ips(new: &Value, old: &Value) -> Vec<Cause> {
    if !(needs_cluster_ip(old) && needs_cluster_ip(new)) {
        return Vec::new();
    }
    let (now, before) = (cluster_ips(new), cluster_ips(old));
    let shown: Vec<String> = now.iter().map(|s| format!("{s:?}")).collect();
    before
        .iter()
        .enumerate()
        .filter(|(i, ip)| now.get(*i).is_some_and(|n| n != *ip) || (*i == 0 && now.is_empty()))
        .map(|(i, _)| {
            Cause::new(
                "FieldValueInvalid",
                format!("spec.clusterIPs[{i}]"),
                format!(
                    "Invalid value: []string{{{}}}: may not change once set",
                    shown.join(", ")
                ),
            )
        })
        .collect()
}
