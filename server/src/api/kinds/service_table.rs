//! Computed cells of the service table: external addresses, ports and
//! selector, as Kubernetes' service printer renders them.

use serde_json::Value;

use super::checks::{items_at, object_at, str_at};

fn strings(list: &[Value]) -> Vec<String> {
    list.iter()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// `status.loadBalancer.ingress` as kube's printer lists it: each entry's IP
/// or else host name, sorted, each once.
#[must_use]
pub fn load_balancer_addresses(obj: &Value) -> Vec<String> {
    let set: std::collections::BTreeSet<&str> = items_at(obj, "/status/loadBalancer/ingress")
        .iter()
        .map(|i| match str_at(i, "/ip") {
            "" => str_at(i, "/hostname"),
            ip => ip,
        })
        .filter(|a| !a.is_empty())
        .collect();
    set.into_iter().map(str::to_owned).collect()
}

/// Load-balancer ingress IPs and host names, then `spec.externalIPs`;
/// `<pending>` for a load balancer without any, `<none>` for other types.
#[must_use]
pub fn external_ip(svc: &Value) -> Value {
    let external = strings(items_at(svc, "/spec/externalIPs"));
    let text = match str_at(svc, "/spec/type") {
        "ExternalName" => str_at(svc, "/spec/externalName").to_owned(),
        "LoadBalancer" => {
            let mut all = load_balancer_addresses(svc);
            all.extend(external);
            if all.is_empty() {
                "<pending>".into()
            } else {
                all.join(",")
            }
        }
        _ if external.is_empty() => "<none>".into(),
        _ => external.join(","),
    };
    Value::from(text)
}

/// The first of `spec.clusterIPs`, `<none>` without one (ExternalName).
#[must_use]
pub fn cluster_ip(svc: &Value) -> Value {
    items_at(svc, "/spec/clusterIPs")
        .first()
        .and_then(Value::as_str)
        .map_or_else(|| Value::from("<none>"), Value::from)
}

/// `80/TCP,443:30443/TCP`, or `<none>`.
#[must_use]
pub fn ports(svc: &Value) -> Value {
    let parts: Vec<String> = items_at(svc, "/spec/ports")
        .iter()
        .map(|p| {
            let port = p.get("port").and_then(Value::as_i64).unwrap_or(0);
            let protocol = str_at(p, "/protocol");
            let protocol = if protocol.is_empty() { "TCP" } else { protocol };
            match p
                .get("nodePort")
                .and_then(Value::as_i64)
                .filter(|n| *n != 0)
            {
                Some(node_port) => format!("{port}:{node_port}/{protocol}"),
                None => format!("{port}/{protocol}"),
            }
        })
        .collect();
    Value::from(if parts.is_empty() {
        "<none>".into()
    } else {
        parts.join(",")
    })
}

/// `key=value` pairs sorted by key, or `<none>`.
#[must_use]
pub fn selector(svc: &Value) -> Value {
    let mut pairs: Vec<String> = object_at(svc, "/spec/selector")
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    pairs.sort();
    Value::from(if pairs.is_empty() {
        "<none>".into()
    } else {
        pairs.join(",")
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_cluster_ip_is_the_first_of_the_list() {
        let svc = json!({"spec": {"clusterIP": "10.0.0.1", "clusterIPs": ["10.0.0.1", "fd00::1"]}});
        assert_eq!(cluster_ip(&svc), "10.0.0.1");
        assert_eq!(
            cluster_ip(&json!({"spec": {"type": "ExternalName"}})),
            "<none>"
        );
    }

    #[test]
    fn external_addresses_depend_on_the_type() {
        assert_eq!(
            external_ip(&json!({"spec": {"type": "ClusterIP"}})),
            "<none>"
        );
        assert_eq!(
            external_ip(&json!({"spec": {"type": "NodePort", "externalIPs": ["1.1.1.1"]}})),
            "1.1.1.1"
        );
        assert_eq!(
            external_ip(&json!({"spec": {"type": "LoadBalancer"}})),
            "<pending>"
        );
        let lb = json!({"spec": {"type": "LoadBalancer", "externalIPs": ["1.1.1.1"]},
                        "status": {"loadBalancer": {"ingress": [{"ip": "2.2.2.2"}, {"hostname": "lb.example"}]}}});
        assert_eq!(external_ip(&lb), "2.2.2.2,lb.example,1.1.1.1");
        assert_eq!(
            external_ip(&json!({"spec": {"type": "ExternalName", "externalName": "db.example"}})),
            "db.example"
        );
    }

    #[test]
    fn ports_and_selector_render_compactly() {
        let svc = json!({"spec": {
            "ports": [{"port": 80, "protocol": "TCP"}, {"port": 443, "nodePort": 30443, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}],
            "selector": {"tier": "web", "app": "shop"}
        }});
        assert_eq!(ports(&svc), "80/TCP,443:30443/TCP,53/UDP");
        assert_eq!(selector(&svc), "app=shop,tier=web");
        assert_eq!(ports(&json!({"spec": {}})), "<none>");
        assert_eq!(selector(&json!({"spec": {}})), "<none>");
    }
}
