//! `ipFamilyPolicy` and `ipFamilies` of a Service with cluster IPs, as
//! kube defaults and checks them against the cluster's service ranges.

use std::net::IpAddr;

use serde_json::{Value, json};

use super::allocator::ServiceAllocator;
use super::fill::cluster_ips;
use crate::api::error::Cause;

/// `IPv4` or `IPv6`.
#[must_use]
pub fn family_of(ip: IpAddr) -> &'static str {
    if ip.is_ipv4() { "IPv4" } else { "IPv6" }
}

/// Defaults `ipFamilyPolicy` and `ipFamilies` as kube does for a Service
/// with cluster IPs; refuses families the cluster does not serve.
pub fn default_families(
    alloc: &ServiceAllocator,
    svc: &mut Value,
) -> Result<Vec<String>, Vec<Cause>> {
    let cluster: Vec<&str> = alloc
        .ranges()
        .iter()
        .map(|r| family_of(r.network))
        .collect();
    let headless = cluster_ips(svc).first().is_some_and(|ip| ip == "None");
    let selectorless = svc
        .pointer("/spec/selector")
        .and_then(Value::as_object)
        .is_none_or(serde_json::Map::is_empty);
    let spec = svc["spec"].as_object_mut().expect("spec is an object");
    if spec.get("ipFamilyPolicy").and_then(Value::as_str).is_none() {
        let policy = if headless && selectorless {
            "RequireDualStack"
        } else {
            "SingleStack"
        };
        spec.insert("ipFamilyPolicy".into(), json!(policy));
    }
    let policy = spec["ipFamilyPolicy"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let mut families: Vec<String> = spec
        .get("ipFamilies")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let mut errors = Vec::new();
    if families.is_empty() {
        families = cluster_ips(svc)
            .iter()
            .filter_map(|ip| ip.parse::<IpAddr>().ok())
            .map(|ip| family_of(ip).to_string())
            .collect();
        if families.is_empty() {
            families.push(cluster[0].to_string());
        }
    }
    for (i, f) in families.iter().enumerate() {
        if !cluster.contains(&f.as_str()) {
            errors.push(Cause::invalid(
                format!("spec.ipFamilies[{i}]"),
                f,
                "not configured on this cluster",
            ));
        }
    }
    if policy != "SingleStack" && families.len() == 1 && cluster.len() == 2 {
        let other = cluster
            .iter()
            .find(|f| **f != families[0])
            .expect("two families");
        families.push((*other).to_string());
    }
    let dual_required = policy == "RequireDualStack" && !(headless && selectorless);
    if dual_required && cluster.len() < 2 {
        errors.push(Cause::invalid(
            "spec.ipFamilyPolicy",
            &policy,
            "this cluster is not configured for dual-stack services",
        ));
    }
    if headless && selectorless {
        families.truncate(cluster.len());
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let spec = svc["spec"].as_object_mut().expect("spec is an object");
    spec.insert("ipFamilies".into(), json!(families));
    Ok(families)
}
