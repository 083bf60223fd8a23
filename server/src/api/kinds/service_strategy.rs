//! Service rules: Kubernetes' defaults (type `ClusterIP`, session affinity
//! `None`, port protocol `TCP`, target port = port, traffic policies), an
//! empty status on create and the stored status kept on updates (it
//! changes through `/status`), and ports required unless `ExternalName`.

use serde_json::{Value, json};

use super::checks::{causes, default_field, items_at, object_field, str_at};
use crate::api::error::Cause;
use crate::api::kind::Strategy;
use crate::api::schema::FieldError;

pub struct ServiceStrategy;

/// Fills in the defaults Kubernetes gives a service's spec.
fn apply_defaults(svc: &mut Value) {
    let spec = object_field(svc, "spec");
    default_field(spec, "type", json!("ClusterIP"));
    default_field(spec, "sessionAffinity", json!("None"));
    let service_type = spec
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if service_type != "ExternalName" {
        default_field(spec, "internalTrafficPolicy", json!("Cluster"));
    }
    if service_type == "NodePort" || service_type == "LoadBalancer" {
        default_field(spec, "externalTrafficPolicy", json!("Cluster"));
    }
    if service_type == "LoadBalancer" {
        default_field(spec, "allocateLoadBalancerNodePorts", json!(true));
    }
    if spec.get("sessionAffinity").and_then(Value::as_str) == Some("ClientIP") {
        default_field(
            spec,
            "sessionAffinityConfig",
            json!({"clientIP": {"timeoutSeconds": 10800}}),
        );
    }
    if let Some(ports) = spec.get_mut("ports").and_then(Value::as_array_mut) {
        for port in ports.iter_mut().filter_map(Value::as_object_mut) {
            default_field(port, "protocol", json!("TCP"));
            let unset = port
                .get("targetPort")
                .is_none_or(|t| t.is_null() || t.as_i64() == Some(0) || t.as_str() == Some(""));
            if unset && let Some(number) = port.get("port").cloned() {
                port.insert("targetPort".into(), number);
            }
        }
    }
}

impl Strategy for ServiceStrategy {
    fn prepare_for_create(&self, obj: &mut Value) {
        apply_defaults(obj);
        obj["status"] = json!({"loadBalancer": {}});
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        apply_defaults(new);
        new["status"] = old.get("status").cloned().unwrap_or_else(|| json!({}));
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        let mut errors = Vec::new();
        if str_at(obj, "/spec/type") != "ExternalName" && items_at(obj, "/spec/ports").is_empty() {
            errors.push(FieldError::required("spec.ports", ""));
        }
        let mut causes = causes(&errors);
        if matches!(str_at(obj, "/spec/type"), "ClusterIP" | "") {
            for (i, port) in items_at(obj, "/spec/ports").iter().enumerate() {
                if port
                    .get("nodePort")
                    .and_then(Value::as_i64)
                    .is_some_and(|n| n != 0)
                {
                    causes.push(Cause::forbidden(
                        format!("spec.ports[{i}].nodePort"),
                        "may not be used when `type` is 'ClusterIP'",
                    ));
                }
            }
        }
        causes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_applies_defaults_and_clears_status() {
        let mut svc = json!({
            "metadata": {"name": "web"},
            "spec": {"ports": [{"port": 80}, {"port": 53, "protocol": "UDP", "targetPort": "dns"}], "selector": {"app": "web"}},
            "status": {"loadBalancer": {"ingress": [{"ip": "9.9.9.9"}]}}
        });
        ServiceStrategy.prepare_for_create(&mut svc);
        assert_eq!(
            svc,
            json!({
                "metadata": {"name": "web"},
                "spec": {
                    "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80},
                              {"port": 53, "protocol": "UDP", "targetPort": "dns"}],
                    "selector": {"app": "web"},
                    "type": "ClusterIP", "sessionAffinity": "None", "internalTrafficPolicy": "Cluster"
                },
                "status": {"loadBalancer": {}}
            })
        );
    }

    #[test]
    fn node_ports_and_client_ip_affinity_get_their_defaults() {
        let mut svc = json!({"spec": {"type": "NodePort", "sessionAffinity": "ClientIP", "ports": [{"port": 1, "targetPort": 0}]}});
        ServiceStrategy.prepare_for_create(&mut svc);
        assert_eq!(svc["spec"]["externalTrafficPolicy"], "Cluster");
        assert_eq!(
            svc["spec"]["sessionAffinityConfig"]["clientIP"]["timeoutSeconds"],
            10800
        );
        assert_eq!(svc["spec"]["ports"][0]["targetPort"], 1);
    }

    #[test]
    fn updates_keep_the_stored_status() {
        let old = json!({"spec": {"ports": [{"port": 80}]}, "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}});
        let mut new = json!({"spec": {"ports": [{"port": 81}]}, "status": {}});
        ServiceStrategy.prepare_for_update(&mut new, &old);
        assert_eq!(new["status"], old["status"]);
        assert_eq!(new["spec"]["ports"][0]["targetPort"], 81);
    }

    #[test]
    fn ports_are_required_unless_external_name() {
        let lines = |obj: Value| -> Vec<String> {
            ServiceStrategy
                .validate(&obj)
                .iter()
                .map(|c| format!("{}: {}", c.field, c.message))
                .collect()
        };
        assert_eq!(
            lines(json!({"spec": {"type": "ClusterIP"}})),
            ["spec.ports: Required value"]
        );
        assert!(
            lines(json!({"spec": {"type": "ExternalName", "externalName": "x.example"}}))
                .is_empty()
        );
        assert!(lines(json!({"spec": {"type": "ClusterIP", "ports": [{"port": 1}]}})).is_empty());
    }
}
