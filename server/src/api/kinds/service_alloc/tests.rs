//! The allocating Service strategy, driven as the store drives it.

use serde_json::{Value, json};

use super::AllocatingServiceStrategy;
use super::allocator::ServiceAllocator;
use crate::api::error::ApiError;
use crate::api::kind::Strategy;
use crate::config::service_ranges::{Cidr, PortRange, ServiceIpRanges};

fn strategy(range: &str, ports: &str) -> AllocatingServiceStrategy {
    let ranges = ServiceIpRanges::parse(range).unwrap();
    AllocatingServiceStrategy {
        allocator: std::sync::Arc::new(ServiceAllocator::new(
            &ranges.0,
            PortRange::parse(ports).unwrap(),
        )),
    }
}

fn svc(name: &str, spec: Value) -> Value {
    json!({"metadata": {"name": name, "namespace": "default"}, "spec": spec})
}

/// Create as the store does: prepare, claim, keep.
fn create(s: &AllocatingServiceStrategy, mut obj: Value) -> Result<Value, ApiError> {
    s.prepare_for_create(&mut obj);
    if let Some(claim) = s.claim(&mut obj, None)? {
        claim.keep();
    }
    Ok(obj)
}

fn message(e: &ApiError) -> String {
    match e {
        ApiError::Invalid { causes, .. } => causes
            .iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect::<Vec<_>>()
            .join("; "),
        other => other.to_string(),
    }
}

#[test]
fn cluster_ips_and_families_are_allocated_and_defaulted() {
    let s = strategy("10.0.0.0/24", "30000-32767");
    let a = create(&s, svc("a", json!({"ports": [{"port": 80}]}))).unwrap();
    let ip = a["spec"]["clusterIP"].as_str().unwrap();
    let cidr = Cidr::parse("10.0.0.0/24").unwrap();
    assert!(cidr.contains(ip.parse().unwrap()));
    // Dynamic addresses come from above the reserved lower band.
    assert!(ip.rsplit('.').next().unwrap().parse::<u32>().unwrap() > 16);
    assert_eq!(a["spec"]["clusterIPs"], json!([ip]));
    assert_eq!(a["spec"]["ipFamilies"], json!(["IPv4"]));
    assert_eq!(a["spec"]["ipFamilyPolicy"], "SingleStack");
    assert!(a["spec"]["ports"][0].get("nodePort").is_none());
}

#[test]
fn requested_ips_are_honoured_once_and_must_be_in_range() {
    let s = strategy("10.0.0.0/24", "30000-32767");
    let a = create(
        &s,
        svc(
            "a",
            json!({"clusterIP": "10.0.0.10", "ports": [{"port": 80}]}),
        ),
    )
    .unwrap();
    assert_eq!(a["spec"]["clusterIPs"], json!(["10.0.0.10"]));
    let taken = create(
        &s,
        svc(
            "b",
            json!({"clusterIP": "10.0.0.10", "ports": [{"port": 80}]}),
        ),
    )
    .unwrap_err();
    assert_eq!(
        message(&taken),
        "spec.clusterIPs: Invalid value: []string{\"10.0.0.10\"}: failed to allocate IP 10.0.0.10: provided IP is already allocated"
    );
    let outside = create(
        &s,
        svc(
            "c",
            json!({"clusterIPs": ["10.1.0.1"], "ports": [{"port": 80}]}),
        ),
    )
    .unwrap_err();
    assert_eq!(
        message(&outside),
        "spec.clusterIPs: Invalid value: []string{\"10.1.0.1\"}: failed to allocate IP 10.1.0.1: the provided IP (10.1.0.1) is not in the valid range. The range of valid IPs is 10.0.0.0/24"
    );
    // The broadcast address is not handed out.
    assert!(
        create(
            &s,
            svc(
                "d",
                json!({"clusterIP": "10.0.0.255", "ports": [{"port": 80}]})
            )
        )
        .is_err()
    );
}

#[test]
fn a_full_range_is_an_internal_error_and_removal_frees_an_address() {
    let s = strategy("10.0.0.0/29", "30000-32767");
    let made: Vec<Value> = (0..6)
        .map(|i| create(&s, svc(&format!("s{i}"), json!({"ports": [{"port": 80}]}))).unwrap())
        .collect();
    let full = create(&s, svc("x", json!({"ports": [{"port": 80}]}))).unwrap_err();
    assert_eq!(
        full.to_string(),
        "Internal error occurred: failed to allocate a serviceIP: range is full"
    );
    s.removed(&made[2]);
    let again = create(&s, svc("x", json!({"ports": [{"port": 80}]}))).unwrap();
    assert_eq!(again["spec"]["clusterIP"], made[2]["spec"]["clusterIP"]);
}

#[test]
fn a_claim_dropped_without_commit_gives_everything_back() {
    let s = strategy("10.0.0.0/29", "30000-30001");
    let mut obj = svc(
        "a",
        json!({"type": "NodePort", "clusterIP": "10.0.0.3", "ports": [{"port": 80}]}),
    );
    s.prepare_for_create(&mut obj);
    drop(s.claim(&mut obj, None).unwrap());
    let again = create(
        &s,
        svc(
            "b",
            json!({"type": "NodePort", "clusterIP": "10.0.0.3", "ports": [{"port": 80, "nodePort": obj["spec"]["ports"][0]["nodePort"]}]}),
        ),
    );
    assert!(again.is_ok(), "{:?}", again.err().map(|e| message(&e)));
}

#[test]
fn headless_and_external_name_services_get_no_address() {
    let s = strategy("10.0.0.0/24", "30000-32767");
    let headless = create(
        &s,
        svc(
            "h",
            json!({"clusterIP": "None", "selector": {"app": "x"}, "ports": [{"port": 80}]}),
        ),
    )
    .unwrap();
    assert_eq!(headless["spec"]["clusterIPs"], json!(["None"]));
    assert_eq!(headless["spec"]["ipFamilyPolicy"], "SingleStack");
    let bare = create(
        &s,
        svc("b", json!({"clusterIP": "None", "ports": [{"port": 80}]})),
    )
    .unwrap();
    assert_eq!(bare["spec"]["ipFamilyPolicy"], "RequireDualStack");
    assert_eq!(bare["spec"]["ipFamilies"], json!(["IPv4"]));
    let external = create(
        &s,
        svc(
            "e",
            json!({"type": "ExternalName", "externalName": "db.example.com"}),
        ),
    )
    .unwrap();
    assert!(external["spec"].get("clusterIP").is_none());
    let none_np = create(
        &s,
        svc(
            "n",
            json!({"type": "NodePort", "clusterIP": "None", "ports": [{"port": 80}]}),
        ),
    )
    .unwrap_err();
    assert_eq!(
        message(&none_np),
        "spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for NodePort services"
    );
}

#[test]
fn node_ports_are_allocated_requested_and_shared_across_protocols() {
    let s = strategy("10.0.0.0/24", "30000-32767");
    let a = create(&s, svc("a", json!({"type": "NodePort", "ports": [
        {"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}, {"port": 80, "nodePort": 30080}]}))).unwrap();
    let ports = a["spec"]["ports"].as_array().unwrap();
    let dns = ports[0]["nodePort"].as_i64().unwrap();
    assert!((30000..=32767).contains(&dns));
    assert_eq!(ports[1]["nodePort"], dns);
    assert_eq!(ports[2]["nodePort"], 30080);
    let taken = create(
        &s,
        svc(
            "b",
            json!({"type": "NodePort", "ports": [{"port": 80, "nodePort": 30080}]}),
        ),
    )
    .unwrap_err();
    assert_eq!(
        message(&taken),
        "spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated"
    );
    let outside = create(
        &s,
        svc(
            "c",
            json!({"type": "NodePort", "ports": [{"port": 80, "nodePort": 80}]}),
        ),
    )
    .unwrap_err();
    assert_eq!(
        message(&outside),
        "spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767"
    );
    let lb = create(&s, svc("lb", json!({"type": "LoadBalancer", "externalTrafficPolicy": "Local", "ports": [{"port": 443}]}))).unwrap();
    assert!(lb["spec"]["ports"][0]["nodePort"].as_i64().is_some());
    assert!(lb["spec"]["healthCheckNodePort"].as_i64().is_some());
    assert_eq!(lb["spec"]["allocateLoadBalancerNodePorts"], true);
}

/// Update as the store does.
fn update(s: &AllocatingServiceStrategy, mut new: Value, old: &Value) -> Result<Value, String> {
    s.prepare_for_update(&mut new, old);
    let causes = s.validate_update(&new, old);
    if !causes.is_empty() {
        return Err(causes
            .iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect::<Vec<_>>()
            .join("; "));
    }
    if let Some(claim) = s.claim(&mut new, Some(old)).map_err(|e| message(&e))? {
        claim.keep();
    }
    Ok(new)
}

#[test]
fn updates_keep_allocations_refuse_ip_changes_and_release_on_type_change() {
    let s = strategy("10.0.0.0/29", "30000-30001");
    let a = create(
        &s,
        svc("a", json!({"type": "NodePort", "ports": [{"port": 80}]})),
    )
    .unwrap();
    // A replace that leaves the allocated values out keeps them.
    let kept = update(
        &s,
        svc("a", json!({"type": "NodePort", "ports": [{"port": 80}]})),
        &a,
    )
    .unwrap();
    assert_eq!(kept["spec"]["clusterIP"], a["spec"]["clusterIP"]);
    assert_eq!(
        kept["spec"]["ports"][0]["nodePort"],
        a["spec"]["ports"][0]["nodePort"]
    );
    let mut moved = kept.clone();
    let other = if a["spec"]["clusterIP"] == "10.0.0.6" {
        "10.0.0.5"
    } else {
        "10.0.0.6"
    };
    moved["spec"]["clusterIP"] = json!(other);
    assert_eq!(
        update(&s, moved, &kept).unwrap_err(),
        format!(
            "spec.clusterIPs[0]: Invalid value: []string{{\"{other}\"}}: may not change once set"
        )
    );
    // NodePort → ClusterIP gives the node port back; → ExternalName the address.
    let mut plain = kept.clone();
    plain["spec"]["type"] = json!("ClusterIP");
    let plain = update(&s, plain, &kept).unwrap();
    assert!(plain["spec"]["ports"][0].get("nodePort").is_none());
    let mut external = plain.clone();
    external["spec"]["type"] = json!("ExternalName");
    external["spec"]["externalName"] = json!("db.example.com");
    let external = update(&s, external, &plain).unwrap();
    assert!(external["spec"].get("clusterIP").is_none(), "{external}");
    // Every address and both ports are free again (the last service takes
    // the sixth address).
    for i in 0..5 {
        create(&s, svc(&format!("f{i}"), json!({"ports": [{"port": 80}]}))).unwrap();
    }
    create(
        &s,
        svc(
            "p",
            json!({"type": "NodePort", "ports": [{"port": 80}, {"port": 81}]}),
        ),
    )
    .unwrap();
}

#[test]
fn recovery_marks_what_stored_services_hold() {
    let s = strategy("10.0.0.0/24", "30000-32767");
    let stored = svc(
        "a",
        json!({"type": "NodePort", "clusterIP": "10.0.0.7", "clusterIPs": ["10.0.0.7"], "ports": [{"port": 80, "nodePort": 30007}]}),
    );
    s.recover(&[stored]);
    assert!(
        create(
            &s,
            svc(
                "b",
                json!({"clusterIP": "10.0.0.7", "ports": [{"port": 80}]})
            )
        )
        .is_err()
    );
    assert!(
        create(
            &s,
            svc(
                "c",
                json!({"type": "NodePort", "ports": [{"port": 80, "nodePort": 30007}]})
            )
        )
        .is_err()
    );
}

#[test]
fn dual_stack_policies_get_both_families() {
    let s = strategy("10.0.0.0/24,fd00::/112", "30000-32767");
    let a = create(
        &s,
        svc(
            "a",
            json!({"ipFamilyPolicy": "PreferDualStack", "ports": [{"port": 80}]}),
        ),
    )
    .unwrap();
    assert_eq!(a["spec"]["ipFamilies"], json!(["IPv4", "IPv6"]));
    let ips = a["spec"]["clusterIPs"].as_array().unwrap();
    assert_eq!(ips.len(), 2);
    assert!(ips[1].as_str().unwrap().starts_with("fd00::"));
    let single = strategy("10.0.0.0/24", "30000-32767");
    let refused = create(
        &single,
        svc(
            "r",
            json!({"ipFamilyPolicy": "RequireDualStack", "ports": [{"port": 80}]}),
        ),
    )
    .unwrap_err();
    assert_eq!(
        message(&refused),
        "spec.ipFamilyPolicy: Invalid value: \"RequireDualStack\": this cluster is not configured for dual-stack services"
    );
}

#[test]
fn writes_that_leave_the_spec_alone_allocate_nothing() {
    let s = strategy("10.0.0.0/29", "30000-32767");
    // Stored before allocation existed: no address.
    let mut old = svc("old", json!({"ports": [{"port": 80}]}));
    s.prepare_for_create(&mut old);
    let mut relabelled = old.clone();
    relabelled["metadata"]["labels"] = json!({"a": "b"});
    let mut new = relabelled.clone();
    s.prepare_for_update(&mut new, &old);
    assert!(s.claim(&mut new, Some(&old)).unwrap().is_none());
    assert!(new["spec"].get("clusterIP").is_none());
}
