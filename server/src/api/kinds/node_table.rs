//! Computed cells of the node table: readiness, roles and addresses, as
//! Kubernetes' node printer renders them.

use serde_json::Value;

use super::checks::{items_at, object_at, str_at};

/// `Ready` or `NotReady` (any status but True) from the Ready condition,
/// `Unknown` without one, plus `SchedulingDisabled` when cordoned.
#[must_use]
pub fn status(node: &Value) -> Value {
    let ready = items_at(node, "/status/conditions")
        .iter()
        .find(|c| str_at(c, "/type") == "Ready")
        .map(|c| match str_at(c, "/status") {
            "True" => "Ready",
            _ => "NotReady",
        })
        .unwrap_or("Unknown");
    let mut text = ready.to_owned();
    if node.pointer("/spec/unschedulable").and_then(Value::as_bool) == Some(true) {
        text.push_str(",SchedulingDisabled");
    }
    Value::from(text)
}

/// Roles from `node-role.kubernetes.io/<role>` labels and the older
/// `kubernetes.io/role` label, sorted; `<none>` without any.
#[must_use]
pub fn roles(node: &Value) -> Value {
    let mut roles: Vec<String> = Vec::new();
    for (key, value) in object_at(node, "/metadata/labels").into_iter().flatten() {
        if let Some(role) = key.strip_prefix("node-role.kubernetes.io/") {
            if !role.is_empty() {
                roles.push(role.to_owned());
            }
        } else if key == "kubernetes.io/role"
            && let Some(role) = value.as_str().filter(|r| !r.is_empty())
        {
            roles.push(role.to_owned());
        }
    }
    roles.sort();
    roles.dedup();
    Value::from(if roles.is_empty() {
        "<none>".into()
    } else {
        roles.join(",")
    })
}

fn first_address(node: &Value, kind: &str) -> Value {
    let address = items_at(node, "/status/addresses")
        .iter()
        .find(|a| str_at(a, "/type") == kind)
        .map(|a| str_at(a, "/address"))
        .unwrap_or("<none>");
    Value::from(address)
}

#[must_use]
pub fn internal_ip(node: &Value) -> Value {
    first_address(node, "InternalIP")
}

#[must_use]
pub fn external_ip(node: &Value) -> Value {
    first_address(node, "ExternalIP")
}

/// A `status.nodeInfo` field, `<unknown>` when the kubelet has not said.
fn node_info(node: &Value, field: &str) -> Value {
    let pointer = format!("/status/nodeInfo/{field}");
    Value::from(match str_at(node, &pointer) {
        "" => "<unknown>",
        value => value,
    })
}

#[must_use]
pub fn os_image(node: &Value) -> Value {
    node_info(node, "osImage")
}

#[must_use]
pub fn kernel_version(node: &Value) -> Value {
    node_info(node, "kernelVersion")
}

#[must_use]
pub fn container_runtime(node: &Value) -> Value {
    node_info(node, "containerRuntimeVersion")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn status_reads_the_ready_condition() {
        let ready = json!({"status": {"conditions": [{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": "True"}]}});
        assert_eq!(status(&ready), "Ready");
        assert_eq!(
            status(&json!({"status": {"conditions": [{"type": "Ready", "status": "False"}]}})),
            "NotReady"
        );
        assert_eq!(
            status(&json!({"status": {"conditions": [{"type": "Ready", "status": "Unknown"}]}})),
            "NotReady"
        );
        assert_eq!(status(&json!({})), "Unknown");
        assert_eq!(os_image(&json!({})), "<unknown>");
        let cordoned = json!({"spec": {"unschedulable": true}, "status": {"conditions": [{"type": "Ready", "status": "True"}]}});
        assert_eq!(status(&cordoned), "Ready,SchedulingDisabled");
    }

    #[test]
    fn roles_come_from_labels() {
        let node = json!({"metadata": {"labels": {
            "node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/etcd": "true",
            "kubernetes.io/role": "master", "kubernetes.io/hostname": "n1"
        }}});
        assert_eq!(roles(&node), "control-plane,etcd,master");
        assert_eq!(roles(&json!({"metadata": {}})), "<none>");
    }

    #[test]
    fn addresses_pick_the_first_of_their_type() {
        let node = json!({"status": {"addresses": [{"type": "Hostname", "address": "n1"}, {"type": "InternalIP", "address": "10.0.0.1"}]}});
        assert_eq!(internal_ip(&node), "10.0.0.1");
        assert_eq!(external_ip(&node), "<none>");
    }
}
