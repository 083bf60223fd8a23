//! core/v1 `Service` as data: its schema and table columns.
//!
//! `spec` and `status` declare the fields clients commonly send and read
//! (ports, selector, type, cluster IPs, affinity, IP families, load
//! balancer status); both carry `x-kubernetes-preserve-unknown-fields`, so
//! fields not modelled here are kept as sent.

use crate::api::kind::Column;
use crate::api::schema::Schema;

use super::service_table;

fn service_port() -> Schema {
    Schema::object([
        ("name", Schema::string()),
        ("protocol", Schema::string().one_of(["TCP", "UDP", "SCTP"])),
        ("appProtocol", Schema::string()),
        ("port", Schema::integer_i32()),
        ("targetPort", Schema::int_or_string()),
        ("nodePort", Schema::integer_i32()),
    ])
    .required(["port"])
    .proto_fields([
        ("name", 1),
        ("protocol", 2),
        ("port", 3),
        ("targetPort", 4),
        ("nodePort", 5),
        ("appProtocol", 6),
    ])
}

fn spec() -> Schema {
    Schema::object([
        (
            "ports",
            Schema::array(service_port())
                .map_list(["port", "protocol"])
                .merge_by("port"),
        ),
        ("selector", Schema::string_map().atomic_map()),
        ("clusterIP", Schema::string()),
        ("clusterIPs", Schema::string_list().atomic_list()),
        (
            "type",
            Schema::string().one_of(["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"]),
        ),
        ("externalIPs", Schema::string_list().atomic_list()),
        (
            "sessionAffinity",
            Schema::string().one_of(["ClientIP", "None"]),
        ),
        ("loadBalancerIP", Schema::string()),
        (
            "loadBalancerSourceRanges",
            Schema::string_list().atomic_list(),
        ),
        ("externalName", Schema::string()),
        (
            "externalTrafficPolicy",
            Schema::string().one_of(["Cluster", "Local"]),
        ),
        ("healthCheckNodePort", Schema::integer_i32()),
        ("publishNotReadyAddresses", Schema::boolean()),
        ("sessionAffinityConfig", Schema::free_form_object()),
        ("ipFamilies", Schema::string_list().atomic_list()),
        (
            "ipFamilyPolicy",
            Schema::string().one_of(["SingleStack", "PreferDualStack", "RequireDualStack"]),
        ),
        ("allocateLoadBalancerNodePorts", Schema::boolean()),
        ("loadBalancerClass", Schema::string()),
        (
            "internalTrafficPolicy",
            Schema::string().one_of(["Cluster", "Local"]),
        ),
        ("trafficDistribution", Schema::string()),
    ])
    .preserve_unknown()
    // sessionAffinityConfig (14) is a message this schema leaves free-form:
    // unnumbered, so protobuf is not used for services that set it.
    .proto_fields([
        ("ports", 1),
        ("selector", 2),
        ("clusterIP", 3),
        ("type", 4),
        ("externalIPs", 5),
        ("sessionAffinity", 7),
        ("loadBalancerIP", 8),
        ("loadBalancerSourceRanges", 9),
        ("externalName", 10),
        ("externalTrafficPolicy", 11),
        ("healthCheckNodePort", 12),
        ("publishNotReadyAddresses", 13),
        ("ipFamilyPolicy", 17),
        ("clusterIPs", 18),
        ("ipFamilies", 19),
        ("allocateLoadBalancerNodePorts", 20),
        ("loadBalancerClass", 21),
        ("internalTrafficPolicy", 22),
        ("trafficDistribution", 23),
    ])
    .describe("Spec defines the behavior of a service.")
}

fn status() -> Schema {
    let ingress = Schema::object([
        ("ip", Schema::string()),
        ("hostname", Schema::string()),
        ("ipMode", Schema::string()),
        (
            "ports",
            Schema::array(Schema::free_form_object()).atomic_list(),
        ),
    ])
    // ports (4, PortStatus) is free-form here: unnumbered.
    .proto_fields([("ip", 1), ("hostname", 2), ("ipMode", 3)]);
    let condition = Schema::object([
        ("type", Schema::string()),
        ("status", Schema::string()),
        ("observedGeneration", Schema::integer_i64()),
        ("lastTransitionTime", Schema::time()),
        ("reason", Schema::string()),
        ("message", Schema::string()),
    ])
    .required(["type", "status"])
    .proto_fields([
        ("type", 1),
        ("status", 2),
        ("observedGeneration", 3),
        ("lastTransitionTime", 4),
        ("reason", 5),
        ("message", 6),
    ]);
    Schema::object([
        (
            "loadBalancer",
            Schema::object([("ingress", Schema::array(ingress).atomic_list())])
                .proto_fields([("ingress", 1)]),
        ),
        (
            "conditions",
            Schema::array(condition).map_list(["type"]).merge_by("type"),
        ),
    ])
    .preserve_unknown()
    .proto_fields([("loadBalancer", 1), ("conditions", 2)])
    .describe("Most recently observed status of the service.")
}

/// The schema of a core/v1 Service.
#[must_use]
pub fn schema() -> Schema {
    Schema::resource([("spec", spec()), ("status", status())])
        .proto_fields([("metadata", 1), ("spec", 2), ("status", 3)])
        .describe("Service is a named abstraction of software service.")
}

/// `kubectl get services` columns.
#[must_use]
pub fn columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::new(
            "Type",
            "string",
            0,
            ".spec.type",
            "The type of the service (ClusterIP, NodePort, LoadBalancer, ExternalName).",
        ),
        Column::computed(
            "Cluster-IP",
            "string",
            0,
            service_table::cluster_ip,
            "The IP address of the service inside the cluster.",
        ),
        Column::computed(
            "External-IP",
            "string",
            0,
            service_table::external_ip,
            "The addresses the service is reachable at from outside the cluster.",
        ),
        Column::computed(
            "Port(s)",
            "string",
            0,
            service_table::ports,
            "The ports the service exposes.",
        ),
        Column::age(),
        Column::computed(
            "Selector",
            "string",
            1,
            service_table::selector,
            "The labels of the pods the service routes to.",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::api::schema::{prune, unknown_fields};

    fn errors(obj: &Value) -> Vec<String> {
        crate::api::kinds::schema_errors(&schema(), obj)
    }

    /// `kubectl create service nodeport web --tcp=80:8080 -o json`, as stored.
    fn web() -> Value {
        json!({
            "kind": "Service", "apiVersion": "v1",
            "metadata": {"name": "web", "labels": {"app": "web"}},
            "spec": {
                "ports": [{"name": "80-8080", "protocol": "TCP", "port": 80, "targetPort": 8080, "nodePort": 30080}],
                "selector": {"app": "web"}, "type": "NodePort",
                "clusterIP": "10.96.0.12", "clusterIPs": ["10.96.0.12"],
                "sessionAffinity": "None", "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
                "externalTrafficPolicy": "Cluster", "internalTrafficPolicy": "Cluster"
            },
            "status": {"loadBalancer": {}}
        })
    }

    #[test]
    fn a_realistic_service_is_valid_and_fully_known() {
        assert_eq!(errors(&web()), Vec::<String>::new());
        assert!(unknown_fields(&schema(), &web()).is_empty());
        let lb = json!({"metadata": {"name": "lb"}, "spec": {"type": "LoadBalancer", "ports": [{"port": 443, "targetPort": "https"}]},
                        "status": {"loadBalancer": {"ingress": [{"ip": "203.0.113.7", "ipMode": "VIP"}]}}});
        assert_eq!(errors(&lb), Vec::<String>::new());
    }

    #[test]
    fn wrong_types_and_missing_ports_are_named_by_path() {
        let mut svc = web();
        svc["spec"]["ports"][0] = json!({"protocol": "HTTP", "targetPort": 1.5});
        svc["spec"]["type"] = json!("Internal");
        svc["spec"]["selector"] = json!(["app"]);
        assert_eq!(
            errors(&svc),
            [
                "spec.ports[0].port: Required value",
                "spec.ports[0].protocol: Unsupported value: \"HTTP\": supported values: \"TCP\", \"UDP\", \"SCTP\"",
                "spec.ports[0].targetPort: Invalid value: \"number\": spec.ports[0].targetPort in body must be of type integer or string: \"number\"",
                "spec.selector: Invalid value: \"array\": spec.selector in body must be of type object: \"array\"",
                "spec.type: Unsupported value: \"Internal\": supported values: \"ClusterIP\", \"NodePort\", \"LoadBalancer\", \"ExternalName\"",
            ]
        );
    }

    #[test]
    fn unmodelled_spec_fields_are_kept() {
        let mut svc = web();
        svc["spec"]["futureField"] = json!("x");
        svc["status"]["futureStatus"] = json!(1);
        assert!(unknown_fields(&schema(), &svc).is_empty());
        prune(&schema(), &mut svc);
        assert_eq!(svc["spec"]["futureField"], "x");
        assert_eq!(svc["status"]["futureStatus"], 1);
    }
}
