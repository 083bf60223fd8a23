//! What a Service needs from the pools and how kube writes it in: cluster
//! IPs per IP family (`ipFamilies`/`ipFamilyPolicy` defaulted first), node
//! ports of NodePort and LoadBalancer ports, the health-check node port of
//! a LoadBalancer with `externalTrafficPolicy: Local`; and what a stored
//! Service holds.

use std::collections::HashSet;
use std::net::IpAddr;

use serde_json::{Value, json};

use super::allocator::{Held, Refusal, ServiceAllocator, ServiceClaim};
use super::families::{default_families, family_of};
use crate::api::error::{ApiError, Cause};
use crate::api::kinds::checks::{items_at, str_at};

fn service_type(svc: &Value) -> &str {
    match str_at(svc, "/spec/type") {
        "" => "ClusterIP",
        t => t,
    }
}

/// Every type but ExternalName has cluster IPs.
#[must_use]
pub fn needs_cluster_ip(svc: &Value) -> bool {
    service_type(svc) != "ExternalName"
}

/// NodePort services, and LoadBalancers unless
/// `allocateLoadBalancerNodePorts: false`.
#[must_use]
pub fn needs_node_ports(svc: &Value) -> bool {
    match service_type(svc) {
        "NodePort" => true,
        "LoadBalancer" => svc.pointer("/spec/allocateLoadBalancerNodePorts") != Some(&json!(false)),
        _ => false,
    }
}

/// LoadBalancers that keep traffic on the node it arrives at.
#[must_use]
pub fn needs_health_check_port(svc: &Value) -> bool {
    service_type(svc) == "LoadBalancer" && str_at(svc, "/spec/externalTrafficPolicy") == "Local"
}

/// `spec.clusterIPs` as strings.
#[must_use]
pub fn cluster_ips(svc: &Value) -> Vec<String> {
    items_at(svc, "/spec/clusterIPs")
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

fn port_number(v: &Value) -> Option<u16> {
    v.as_i64()
        .and_then(|n| u16::try_from(n).ok())
        .filter(|n| *n != 0)
}

/// What a stored Service holds.
#[must_use]
pub fn held(svc: &Value) -> HashSet<Held> {
    let mut out = HashSet::new();
    if needs_cluster_ip(svc) {
        out.extend(
            cluster_ips(svc)
                .iter()
                .filter_map(|ip| ip.parse::<IpAddr>().ok())
                .map(Held::Ip),
        );
    }
    for port in items_at(svc, "/spec/ports") {
        if let Some(n) = port.get("nodePort").and_then(port_number) {
            out.insert(Held::Port(n));
        }
    }
    if let Some(n) = svc
        .pointer("/spec/healthCheckNodePort")
        .and_then(port_number)
    {
        out.insert(Held::Port(n));
    }
    out
}

/// `[]string{"a", "b"}`, as Go prints the value of a string list.
fn go_strings(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("{s:?}")).collect();
    format!("[]string{{{}}}", quoted.join(", "))
}

fn invalid(name: &str, causes: Vec<Cause>) -> ApiError {
    ApiError::Invalid {
        kind: "Service".into(),
        group: String::new(),
        name: name.into(),
        causes,
        code: 422,
    }
}

/// Cluster IPs: the requested ones taken (unless the object held them
/// already), the missing ones allocated per family.
fn fill_cluster_ips(
    alloc: &ServiceAllocator,
    claim: &mut ServiceClaim,
    svc: &mut Value,
    before: &HashSet<Held>,
) -> Result<(), ApiError> {
    let name = str_at(svc, "/metadata/name").to_string();
    let requested = cluster_ips(svc);
    if requested.first().is_some_and(|ip| ip == "None") {
        let service_type = service_type(svc).to_string();
        if service_type != "ClusterIP" {
            let detail = format!("may not be set to 'None' for {service_type} services");
            return Err(invalid(
                &name,
                vec![Cause::invalid("spec.clusterIPs[0]", "None", &detail)],
            ));
        }
        default_families(alloc, svc).map_err(|c| invalid(&name, c))?;
        return Ok(());
    }
    let families = default_families(alloc, svc).map_err(|c| invalid(&name, c))?;
    let mut ips = Vec::new();
    for (i, family) in families.iter().enumerate() {
        let range_index = alloc
            .ranges()
            .iter()
            .position(|r| family_of(r.network) == family)
            .expect("families were checked against the cluster's");
        match requested.get(i).filter(|ip| !ip.is_empty()) {
            Some(text) => {
                let Ok(ip) = text.parse::<IpAddr>() else {
                    let cause = Cause::invalid(
                        format!("spec.clusterIPs[{i}]"),
                        text,
                        "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
                    );
                    return Err(invalid(&name, vec![cause]));
                };
                if family_of(ip) != family {
                    let detail =
                        format!("expected an {family} value as indicated by `ipFamilies[{i}]`");
                    let cause = Cause::invalid(format!("spec.clusterIPs[{i}]"), text, &detail);
                    return Err(invalid(&name, vec![cause]));
                }
                if !before.contains(&Held::Ip(ip)) {
                    claim.take(Held::Ip(ip)).map_err(|refusal| {
                        let why = match refusal {
                            Refusal::Allocated => "provided IP is already allocated".to_string(),
                            Refusal::NotInRange(range) => format!(
                                "the provided IP ({ip}) is not in the valid range. The range of valid IPs is {range}"
                            ),
                        };
                        let message = format!(
                            "Invalid value: {}: failed to allocate IP {ip}: {why}",
                            go_strings(&requested)
                        );
                        invalid(&name, vec![Cause::new("FieldValueInvalid", "spec.clusterIPs", message)])
                    })?;
                }
                ips.push(ip.to_string());
            }
            None => {
                let ip = claim.take_next_ip(range_index).ok_or_else(|| {
                    ApiError::Internal("failed to allocate a serviceIP: range is full".into())
                })?;
                ips.push(ip.to_string());
            }
        }
    }
    let spec = svc["spec"].as_object_mut().expect("spec is an object");
    spec.insert("clusterIP".into(), json!(ips[0]));
    spec.insert("clusterIPs".into(), json!(ips));
    Ok(())
}

fn port_refusal(
    alloc: &ServiceAllocator,
    name: &str,
    field: String,
    port: u16,
    refusal: Refusal,
) -> ApiError {
    let why = match refusal {
        Refusal::Allocated => "provided port is already allocated".to_string(),
        Refusal::NotInRange(_) => format!(
            "provided port is not in the valid range. The range of valid ports is {}",
            alloc.port_range()
        ),
    };
    invalid(
        name,
        vec![Cause::new(
            "FieldValueInvalid",
            field,
            format!("Invalid value: {port}: {why}"),
        )],
    )
}

/// Node ports: requested ones taken, zero ones allocated; one number may
/// serve the same port over several protocols, as in kube.
fn fill_node_ports(
    alloc: &ServiceAllocator,
    claim: &mut ServiceClaim,
    svc: &mut Value,
    before: &HashSet<Held>,
) -> Result<(), ApiError> {
    let name = str_at(svc, "/metadata/name").to_string();
    let mut used: Vec<(u16, String, i64)> = Vec::new();
    let Some(ports) = svc.pointer_mut("/spec/ports").and_then(Value::as_array_mut) else {
        return Ok(());
    };
    for (i, port) in ports.iter_mut().enumerate() {
        let protocol = port
            .get("protocol")
            .and_then(Value::as_str)
            .unwrap_or("TCP")
            .to_string();
        let number = port.get("port").and_then(Value::as_i64).unwrap_or_default();
        let field = format!("spec.ports[{i}].nodePort");
        let node_port = match port.get("nodePort").and_then(port_number) {
            Some(n) => {
                if used
                    .iter()
                    .any(|(p, proto, _)| *p == n && *proto == protocol)
                {
                    let cause = Cause::new(
                        "FieldValueDuplicate",
                        field,
                        format!("Duplicate value: {n}"),
                    );
                    return Err(invalid(&name, vec![cause]));
                }
                let shared = used.iter().any(|(p, _, _)| *p == n);
                if !shared && !before.contains(&Held::Port(n)) {
                    claim
                        .take(Held::Port(n))
                        .map_err(|r| port_refusal(alloc, &name, field, n, r))?;
                }
                n
            }
            None => match used
                .iter()
                .find(|(_, proto, p)| *p == number && *proto != protocol)
            {
                Some((n, _, _)) => *n,
                None => claim.take_next_port().ok_or_else(|| {
                    ApiError::Internal("failed to allocate a nodePort: range is full".into())
                })?,
            },
        };
        port["nodePort"] = json!(node_port);
        used.push((node_port, protocol, number));
    }
    Ok(())
}

fn fill_health_check_port(
    alloc: &ServiceAllocator,
    claim: &mut ServiceClaim,
    svc: &mut Value,
    before: &HashSet<Held>,
) -> Result<(), ApiError> {
    let name = str_at(svc, "/metadata/name").to_string();
    let port = match svc
        .pointer("/spec/healthCheckNodePort")
        .and_then(port_number)
    {
        Some(n) => {
            if !before.contains(&Held::Port(n)) && !held_ports(svc).contains(&n) {
                claim.take(Held::Port(n)).map_err(|r| {
                    port_refusal(alloc, &name, "spec.healthCheckNodePort".into(), n, r)
                })?;
            }
            n
        }
        None => claim.take_next_port().ok_or_else(|| {
            ApiError::Internal("failed to allocate a nodePort: range is full".into())
        })?,
    };
    svc["spec"]["healthCheckNodePort"] = json!(port);
    Ok(())
}

fn held_ports(svc: &Value) -> Vec<u16> {
    items_at(svc, "/spec/ports")
        .iter()
        .filter_map(|p| p.get("nodePort").and_then(port_number))
        .collect()
}

/// Fills in what `svc` needs; `before` is what the stored object held
/// (empty on create). What it held and holds no longer is released once
/// the claim is kept.
pub fn fill(
    alloc: &ServiceAllocator,
    svc: &mut Value,
    before: &HashSet<Held>,
) -> Result<ServiceClaim, ApiError> {
    let mut claim = alloc.claim();
    if svc.get("spec").and_then(Value::as_object).is_none() {
        return Ok(claim);
    }
    if needs_cluster_ip(svc) {
        fill_cluster_ips(alloc, &mut claim, svc, before)?;
    }
    if needs_node_ports(svc) {
        fill_node_ports(alloc, &mut claim, svc, before)?;
    }
    if needs_health_check_port(svc) {
        fill_health_check_port(alloc, &mut claim, svc, before)?;
    }
    let now = held(svc);
    claim.release_when_kept(before.iter().filter(|h| !now.contains(h)).copied());
    Ok(claim)
}
