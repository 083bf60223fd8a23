//! core/v1 `Node` as data (cluster-scoped): its schema, selectable fields
//! and table columns.
//!
//! `spec` and `status` declare what schedulers and `kubectl` read (pod
//! CIDRs, taints, unschedulable, capacity, conditions, addresses, node
//! info); both carry `x-kubernetes-preserve-unknown-fields`, so fields a
//! kubelet sends that are not modelled here are kept as sent.

use serde_json::Value;

use crate::api::kind::{Column, field_by_path};
use crate::api::schema::Schema;

use super::node_table;
use super::pod_spec::resource_list;

/// Field-selector fields Kubernetes supports for nodes.
pub const FIELD_SELECTORS: &[&str] = &["metadata.name", "spec.unschedulable"];

/// A selectable field's value; `spec.unschedulable` reads `false` when unset.
#[must_use]
pub fn field_value(node: &Value, field: &str) -> Option<String> {
    if field == "spec.unschedulable" {
        let on = node.pointer("/spec/unschedulable").and_then(Value::as_bool) == Some(true);
        return Some(on.to_string());
    }
    field_by_path(node, field)
}

fn taint() -> Schema {
    Schema::object([
        ("key", Schema::string()),
        ("value", Schema::string()),
        (
            "effect",
            Schema::string().one_of(["NoSchedule", "PreferNoSchedule", "NoExecute"]),
        ),
        ("timeAdded", Schema::time()),
    ])
    .required(["key", "effect"])
    .proto_fields([("key", 1), ("value", 2), ("effect", 3), ("timeAdded", 4)])
}

fn spec() -> Schema {
    Schema::object([
        ("podCIDR", Schema::string()),
        (
            "podCIDRs",
            Schema::string_list().set_list().patch_strategy("merge"),
        ),
        ("providerID", Schema::string()),
        ("unschedulable", Schema::boolean()),
        ("taints", Schema::array(taint()).atomic_list()),
        ("configSource", Schema::free_form_object()),
        ("externalID", Schema::string()),
    ])
    .preserve_unknown()
    // configSource (6, NodeConfigSource) is free-form here: unnumbered.
    .proto_fields([
        ("podCIDR", 1),
        ("externalID", 2),
        ("providerID", 3),
        ("unschedulable", 4),
        ("taints", 5),
        ("podCIDRs", 7),
    ])
    .describe("Spec defines the behavior of a node.")
}

fn status() -> Schema {
    let condition = Schema::object([
        ("type", Schema::string()),
        ("status", Schema::string()),
        ("lastHeartbeatTime", Schema::time()),
        ("lastTransitionTime", Schema::time()),
        ("reason", Schema::string()),
        ("message", Schema::string()),
    ])
    .required(["type", "status"])
    .proto_fields([
        ("type", 1),
        ("status", 2),
        ("lastHeartbeatTime", 3),
        ("lastTransitionTime", 4),
        ("reason", 5),
        ("message", 6),
    ]);
    let address = Schema::object([("type", Schema::string()), ("address", Schema::string())])
        .required(["type", "address"])
        .proto_fields([("type", 1), ("address", 2)]);
    let node_info = Schema::object([
        ("machineID", Schema::string()),
        ("systemUUID", Schema::string()),
        ("bootID", Schema::string()),
        ("kernelVersion", Schema::string()),
        ("osImage", Schema::string()),
        ("containerRuntimeVersion", Schema::string()),
        ("kubeletVersion", Schema::string()),
        ("kubeProxyVersion", Schema::string()),
        ("operatingSystem", Schema::string()),
        ("architecture", Schema::string()),
    ])
    .preserve_unknown()
    .proto_fields([
        ("machineID", 1),
        ("systemUUID", 2),
        ("bootID", 3),
        ("kernelVersion", 4),
        ("osImage", 5),
        ("containerRuntimeVersion", 6),
        ("kubeletVersion", 7),
        ("kubeProxyVersion", 8),
        ("operatingSystem", 9),
        ("architecture", 10),
    ]);
    Schema::object([
        ("capacity", resource_list()),
        ("allocatable", resource_list()),
        ("phase", Schema::string()),
        (
            "conditions",
            Schema::array(condition).map_list(["type"]).merge_by("type"),
        ),
        (
            "addresses",
            Schema::array(address).atomic_list().merge_by("type"),
        ),
        ("daemonEndpoints", Schema::free_form_object()),
        ("nodeInfo", node_info),
        (
            "images",
            Schema::array(Schema::free_form_object()).atomic_list(),
        ),
        ("volumesInUse", Schema::string_list().atomic_list()),
        (
            "volumesAttached",
            Schema::array(Schema::free_form_object()).atomic_list(),
        ),
        ("config", Schema::free_form_object()),
        (
            "runtimeHandlers",
            Schema::array(Schema::free_form_object()).atomic_list(),
        ),
        ("features", Schema::free_form_object()),
    ])
    .preserve_unknown()
    // daemonEndpoints (6), images (8), volumesAttached (10), config (11),
    // runtimeHandlers (12) and features (13) are messages this schema
    // leaves free-form: unnumbered.
    .proto_fields([
        ("capacity", 1),
        ("allocatable", 2),
        ("phase", 3),
        ("conditions", 4),
        ("addresses", 5),
        ("nodeInfo", 7),
        ("volumesInUse", 9),
    ])
    .describe("Most recently observed status of the node.")
}

/// The schema of a core/v1 Node.
#[must_use]
pub fn schema() -> Schema {
    Schema::resource([("spec", spec()), ("status", status())])
        .proto_fields([("metadata", 1), ("spec", 2), ("status", 3)])
        .describe("Node is a worker node in Kubernetes.")
}

/// `kubectl get nodes` columns.
#[must_use]
pub fn columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::computed(
            "Status",
            "string",
            0,
            node_table::status,
            "The status of the node",
        ),
        Column::computed(
            "Roles",
            "string",
            0,
            node_table::roles,
            "The roles of the node",
        ),
        Column::age(),
        Column::new(
            "Version",
            "string",
            0,
            ".status.nodeInfo.kubeletVersion",
            "Kubelet Version reported by the node.",
        ),
        Column::computed(
            "Internal-IP",
            "string",
            1,
            node_table::internal_ip,
            "List of internal IPs for the node.",
        ),
        Column::computed(
            "External-IP",
            "string",
            1,
            node_table::external_ip,
            "List of external IPs for the node.",
        ),
        Column::computed(
            "OS-Image",
            "string",
            1,
            node_table::os_image,
            "OS Image reported by the node.",
        ),
        Column::computed(
            "Kernel-Version",
            "string",
            1,
            node_table::kernel_version,
            "Kernel Version reported by the node.",
        ),
        Column::computed(
            "Container-Runtime",
            "string",
            1,
            node_table::container_runtime,
            "Container Runtime Version reported by the node.",
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

    /// A node as a kubelet registers and reports it.
    fn worker() -> Value {
        json!({
            "kind": "Node", "apiVersion": "v1",
            "metadata": {"name": "worker-1", "labels": {"kubernetes.io/hostname": "worker-1", "node-role.kubernetes.io/worker": ""}},
            "spec": {"podCIDR": "10.244.1.0/24", "podCIDRs": ["10.244.1.0/24"], "providerID": "kind://docker/kind/worker-1",
                     "taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]},
            "status": {
                "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                "allocatable": {"cpu": "7800m", "memory": "31Gi", "pods": "110"},
                "conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": "2024-05-01T10:00:00Z",
                                "lastTransitionTime": "2024-05-01T09:00:00Z", "reason": "KubeletReady", "message": "kubelet is posting ready status"}],
                "addresses": [{"type": "InternalIP", "address": "172.18.0.3"}, {"type": "Hostname", "address": "worker-1"}],
                "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
                "nodeInfo": {"machineID": "m", "systemUUID": "s", "bootID": "b", "kernelVersion": "6.1.0", "osImage": "Debian GNU/Linux 12",
                             "containerRuntimeVersion": "containerd://1.7.13", "kubeletVersion": "v1.32.0", "kubeProxyVersion": "",
                             "operatingSystem": "linux", "architecture": "amd64"},
                "images": [{"names": ["registry.k8s.io/pause:3.10"], "sizeBytes": 320368}]
            }
        })
    }

    #[test]
    fn unschedulable_reads_false_when_unset() {
        assert_eq!(
            field_value(&worker(), "spec.unschedulable").as_deref(),
            Some("false")
        );
        let cordoned = json!({"spec": {"unschedulable": true}});
        assert_eq!(
            field_value(&cordoned, "spec.unschedulable").as_deref(),
            Some("true")
        );
        assert_eq!(
            field_value(&worker(), "metadata.name").as_deref(),
            Some("worker-1")
        );
    }

    #[test]
    fn a_kubelet_registered_node_is_valid_and_fully_known() {
        assert_eq!(errors(&worker()), Vec::<String>::new());
        assert!(unknown_fields(&schema(), &worker()).is_empty());
    }

    #[test]
    fn taints_and_conditions_are_checked() {
        let mut node = worker();
        node["spec"]["taints"] = json!([{"key": "a", "effect": "Sometimes"}, {"value": "x"}]);
        node["spec"]["unschedulable"] = json!("true");
        node["status"]["conditions"][0] = json!({"type": "Ready"});
        assert_eq!(
            errors(&node),
            [
                "spec.taints[0].effect: Unsupported value: \"Sometimes\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
                "spec.taints[1].key: Required value",
                "spec.taints[1].effect: Required value",
                "spec.unschedulable: Invalid value: \"string\": spec.unschedulable in body must be of type boolean: \"string\"",
                "status.conditions[0].status: Required value",
            ]
        );
    }

    #[test]
    fn unmodelled_status_fields_are_kept() {
        let mut node = worker();
        node["status"]["newKubeletField"] = json!({"a": 1});
        node["status"]["nodeInfo"]["swap"] = json!({"capacity": 0});
        prune(&schema(), &mut node);
        assert_eq!(node["status"]["newKubeletField"], json!({"a": 1}));
        assert_eq!(node["status"]["nodeInfo"]["swap"], json!({"capacity": 0}));
    }
}
