//! Table columns of the further core/v1 kinds and of EndpointSlice and
//! HorizontalPodAutoscaler, as kubectl prints them.

use serde_json::Value;

use super::checks::{items_at, str_at};
use super::workload_cells::{containers, count, format_labels, images};
use crate::api::kind::Column;

fn text(name: &str, path: &str, description: &str) -> Column {
    Column::new(name, "string", 0, path, description)
}

fn computed(name: &str, cell: fn(&Value) -> Value, description: &str) -> Column {
    Column::computed(name, "string", 0, cell, description)
}

/// Up to three entries, then how many more.
fn first_three(list: &[String]) -> String {
    match list.len() {
        0 => "<none>".into(),
        1..=3 => list.join(","),
        n => format!("{} + {} more...", list[..3].join(","), n - 3),
    }
}

fn endpoints(obj: &Value) -> Value {
    let mut list = Vec::new();
    for subset in items_at(obj, "/subsets") {
        let ports = items_at(subset, "/ports");
        for address in items_at(subset, "/addresses") {
            let ip = str_at(address, "/ip");
            if ports.is_empty() {
                list.push(ip.to_owned());
            }
            for port in ports {
                list.push(format!("{ip}:{}", count(port, "/port")));
            }
        }
    }
    Value::from(first_three(&list))
}

#[must_use]
pub fn endpoints_columns() -> Vec<Column> {
    vec![
        Column::name(),
        computed(
            "Endpoints",
            endpoints,
            "Endpoints is the list of endpoints in the object",
        ),
        Column::age(),
    ]
}

fn slice_ports(obj: &Value) -> Value {
    let ports = items_at(obj, "/ports");
    if ports.is_empty() {
        return Value::from("<unset>");
    }
    let list: Vec<String> = ports
        .iter()
        .map(|p| {
            p.get("port")
                .and_then(Value::as_i64)
                .map_or("<unset>".into(), |n| n.to_string())
        })
        .collect();
    Value::from(list.join(","))
}

fn slice_endpoints(obj: &Value) -> Value {
    let list: Vec<String> = items_at(obj, "/endpoints")
        .iter()
        .flat_map(|e| items_at(e, "/addresses"))
        .filter_map(|a| a.as_str().map(str::to_owned))
        .collect();
    Value::from(if list.is_empty() {
        "<unset>".into()
    } else {
        first_three(&list)
    })
}

#[must_use]
pub fn endpoint_slice_columns() -> Vec<Column> {
    vec![
        Column::name(),
        text(
            "AddressType",
            ".addressType",
            "The type of address carried by this EndpointSlice.",
        ),
        computed(
            "Ports",
            slice_ports,
            "List of ports exposed by the endpoints.",
        ),
        computed(
            "Endpoints",
            slice_endpoints,
            "Addresses of the endpoints in this slice.",
        ),
        Column::age(),
    ]
}

/// kubectl's short access modes (`RWO,ROX`).
fn modes(obj: &Value, pointer: &str) -> Value {
    let list: Vec<&str> = items_at(obj, pointer)
        .iter()
        .filter_map(Value::as_str)
        .map(|m| match m {
            "ReadWriteOnce" => "RWO",
            "ReadOnlyMany" => "ROX",
            "ReadWriteMany" => "RWX",
            "ReadWriteOncePod" => "RWOP",
            other => other,
        })
        .collect();
    Value::from(list.join(","))
}

fn volume_modes(obj: &Value) -> Value {
    modes(obj, "/spec/accessModes")
}

fn claim_modes(obj: &Value) -> Value {
    modes(obj, "/status/accessModes")
}

fn claim_ref(obj: &Value) -> Value {
    let name = str_at(obj, "/spec/claimRef/name");
    Value::from(if name.is_empty() {
        String::new()
    } else {
        format!("{}/{name}", str_at(obj, "/spec/claimRef/namespace"))
    })
}

fn attributes_class(obj: &Value) -> Value {
    let name = str_at(obj, "/spec/volumeAttributesClassName");
    Value::from(if name.is_empty() { "<unset>" } else { name })
}

fn quantity_text(obj: &Value, pointer: &str) -> Value {
    match obj.pointer(pointer) {
        Some(Value::String(s)) => Value::from(s.clone()),
        Some(Value::Number(n)) => Value::from(n.to_string()),
        _ => Value::from(""),
    }
}

fn volume_capacity(obj: &Value) -> Value {
    quantity_text(obj, "/spec/capacity/storage")
}

fn claim_capacity(obj: &Value) -> Value {
    quantity_text(obj, "/status/capacity/storage")
}

fn volume_mode(obj: &Value) -> Value {
    Value::from(match str_at(obj, "/spec/volumeMode") {
        "" => "<unset>",
        mode => mode,
    })
}

#[must_use]
pub fn persistent_volume_columns() -> Vec<Column> {
    vec![
        Column::name(),
        computed(
            "Capacity",
            volume_capacity,
            "capacity is the description of the persistent volume's resources and capacity.",
        ),
        computed(
            "Access Modes",
            volume_modes,
            "accessModes contains all ways the volume can be mounted.",
        ),
        text(
            "Reclaim Policy",
            ".spec.persistentVolumeReclaimPolicy",
            "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.",
        ),
        text(
            "Status",
            ".status.phase",
            "phase indicates if a volume is available, bound to a claim, or released by a claim.",
        ),
        computed(
            "Claim",
            claim_ref,
            "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.",
        ),
        text(
            "StorageClass",
            ".spec.storageClassName",
            "storageClassName is the name of StorageClass to which this persistent volume belongs.",
        ),
        computed(
            "VolumeAttributesClass",
            attributes_class,
            "Name of VolumeAttributesClass to which this persistent volume belongs.",
        ),
        text(
            "Reason",
            ".status.reason",
            "reason is a brief CamelCase string that describes any failure.",
        ),
        Column::age(),
        Column::computed(
            "VolumeMode",
            "string",
            1,
            volume_mode,
            "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.",
        ),
    ]
}

#[must_use]
pub fn persistent_volume_claim_columns() -> Vec<Column> {
    vec![
        Column::name(),
        text(
            "Status",
            ".status.phase",
            "phase represents the current phase of PersistentVolumeClaim.",
        ),
        text(
            "Volume",
            ".spec.volumeName",
            "volumeName is the binding reference to the PersistentVolume backing this claim.",
        ),
        computed(
            "Capacity",
            claim_capacity,
            "capacity represents the actual resources of the underlying volume.",
        ),
        computed(
            "Access Modes",
            claim_modes,
            "accessModes contains the actual access modes the volume backing the PVC has.",
        ),
        text(
            "StorageClass",
            ".spec.storageClassName",
            "storageClassName is the name of the StorageClass required by the claim.",
        ),
        computed(
            "VolumeAttributesClass",
            attributes_class,
            "volumeAttributesClassName may be used to set the VolumeAttributesClass used by this claim.",
        ),
        Column::age(),
        Column::computed(
            "VolumeMode",
            "string",
            1,
            volume_mode,
            "volumeMode defines what type of volume is required by the claim.",
        ),
    ]
}

fn rc_containers(obj: &Value) -> Value {
    containers(obj, "/spec/template")
}

fn rc_images(obj: &Value) -> Value {
    images(obj, "/spec/template")
}

fn rc_selector(obj: &Value) -> Value {
    Value::from(format_labels(
        obj.pointer("/spec/selector").and_then(Value::as_object),
    ))
}

fn desired(obj: &Value) -> Value {
    Value::from(count(obj, "/spec/replicas"))
}

fn current(obj: &Value) -> Value {
    Value::from(count(obj, "/status/replicas"))
}

fn ready(obj: &Value) -> Value {
    Value::from(count(obj, "/status/readyReplicas"))
}

#[must_use]
pub fn replication_controller_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::computed("Desired", "integer", 0, desired, "Number of desired pods."),
        Column::computed(
            "Current",
            "integer",
            0,
            current,
            "Replicas is the most recently observed number of replicas.",
        ),
        Column::computed(
            "Ready",
            "integer",
            0,
            ready,
            "The number of ready replicas for this replication controller.",
        ),
        Column::age(),
        Column::computed(
            "Containers",
            "string",
            1,
            rc_containers,
            "Names of each container in the template.",
        ),
        Column::computed(
            "Images",
            "string",
            1,
            rc_images,
            "Images referenced by each container in the template.",
        ),
        Column::computed(
            "Selector",
            "string",
            1,
            rc_selector,
            "Selector is a label query over pods that should match the Replicas count.",
        ),
    ]
}

/// `resource: used/hard` pairs of a quota, requests or limits.
fn quota_usage(obj: &Value, limits: bool) -> Value {
    let Some(hard) = obj.pointer("/status/hard").and_then(Value::as_object) else {
        return Value::from("");
    };
    let mut keys: Vec<&String> = hard
        .keys()
        .filter(|k| k.starts_with("limits.") == limits)
        .collect();
    keys.sort();
    let list: Vec<String> = keys
        .iter()
        .map(|k| {
            let used = quantity_text(obj, &format!("/status/used/{k}"));
            let hard = quantity_text(obj, &format!("/status/hard/{k}"));
            format!(
                "{k}: {}/{}",
                used.as_str().unwrap_or_default(),
                hard.as_str().unwrap_or_default()
            )
        })
        .collect();
    Value::from(list.join(", "))
}

fn quota_requests(obj: &Value) -> Value {
    quota_usage(obj, false)
}

fn quota_limits(obj: &Value) -> Value {
    quota_usage(obj, true)
}

#[must_use]
pub fn resource_quota_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::age(),
        computed(
            "Request",
            quota_requests,
            "Request represents a minimum amount of cpu/memory that a container may consume.",
        ),
        computed(
            "Limit",
            quota_limits,
            "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.",
        ),
    ]
}

fn template_containers(obj: &Value) -> Value {
    containers(obj, "/template")
}

fn template_images(obj: &Value) -> Value {
    images(obj, "/template")
}

fn template_labels(obj: &Value) -> Value {
    Value::from(format_labels(
        obj.pointer("/template/metadata/labels")
            .and_then(Value::as_object),
    ))
}

#[must_use]
pub fn pod_template_columns() -> Vec<Column> {
    vec![
        Column::name(),
        computed(
            "Containers",
            template_containers,
            "Names of each container in the template.",
        ),
        computed(
            "Images",
            template_images,
            "Images referenced by each container in the template.",
        ),
        computed(
            "Pod Labels",
            template_labels,
            "The labels for the pod template.",
        ),
    ]
}

fn reference(obj: &Value) -> Value {
    Value::from(format!(
        "{}/{}",
        str_at(obj, "/spec/scaleTargetRef/kind"),
        str_at(obj, "/spec/scaleTargetRef/name")
    ))
}

/// One metric as `current/target` (resources named: `cpu: 5%/80%`).
fn metric(spec: &Value, status: Option<&Value>) -> String {
    let kind = str_at(spec, "/type");
    let field = match kind {
        "Resource" => "resource",
        "ContainerResource" => "containerResource",
        "Pods" => "pods",
        "Object" => "object",
        _ => "external",
    };
    let target = spec
        .get(field)
        .and_then(|s| s.get("target"))
        .unwrap_or(&Value::Null);
    let current = status
        .and_then(|s| s.get(field))
        .and_then(|s| s.get("current"));
    let pair = match target.get("averageUtilization").and_then(Value::as_i64) {
        Some(percent) => {
            let now = current
                .and_then(|c| c.get("averageUtilization"))
                .and_then(Value::as_i64)
                .map_or("<unknown>".into(), |p| format!("{p}%"));
            format!("{now}/{percent}%")
        }
        None => {
            let key = if target.get("averageValue").is_some() {
                "averageValue"
            } else {
                "value"
            };
            let now = current
                .and_then(|c| c.get(key))
                .map_or("<unknown>".into(), |v| {
                    quantity_text(v, "").as_str().unwrap_or_default().to_owned()
                });
            let goal = target.get(key).map_or(String::new(), |v| {
                quantity_text(v, "").as_str().unwrap_or_default().to_owned()
            });
            format!("{now}/{goal}")
        }
    };
    match kind {
        "Resource" | "ContainerResource" => {
            format!("{}: {pair}", str_at(spec, &format!("/{field}/name")))
        }
        _ => pair,
    }
}

/// The Targets cell of an autoscaling/v2 object.
#[must_use]
pub fn targets(obj: &Value) -> Value {
    let specs = items_at(obj, "/spec/metrics");
    let statuses = items_at(obj, "/status/currentMetrics");
    if specs.is_empty() {
        return Value::from("<none>");
    }
    let list: Vec<String> = specs
        .iter()
        .take(2)
        .enumerate()
        .map(|(i, s)| metric(s, statuses.get(i)))
        .collect();
    let mut text = list.join(", ");
    if specs.len() > 2 {
        text.push_str(&format!(" + {} more...", specs.len() - 2));
    }
    Value::from(text)
}

fn min_pods(obj: &Value) -> Value {
    obj.pointer("/spec/minReplicas")
        .and_then(Value::as_i64)
        .map_or(Value::from("<unset>"), |n| Value::from(n.to_string()))
}

fn max_pods(obj: &Value) -> Value {
    Value::from(count(obj, "/spec/maxReplicas"))
}

fn replicas(obj: &Value) -> Value {
    Value::from(count(obj, "/status/currentReplicas"))
}

#[must_use]
pub fn autoscaler_columns() -> Vec<Column> {
    vec![
        Column::name(),
        computed(
            "Reference",
            reference,
            "reference to scaled resource; horizontal pod autoscaler will learn the current resource consumption and will set the desired number of pods by using its Scale subresource.",
        ),
        computed(
            "Targets",
            targets,
            "metrics contains the specifications for which to use to calculate the desired replica count.",
        ),
        computed(
            "MinPods",
            min_pods,
            "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.",
        ),
        Column::computed(
            "MaxPods",
            "integer",
            0,
            max_pods,
            "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.",
        ),
        Column::computed(
            "Replicas",
            "integer",
            0,
            replicas,
            "currentReplicas is current number of replicas of pods managed by this autoscaler.",
        ),
        Column::age(),
    ]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn autoscaler_targets_read_as_kubectl_prints_them() {
        let hpa = json!({"spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5, "metrics": [
            {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]}});
        assert_eq!(targets(&hpa), "cpu: <unknown>/80%");
        assert_eq!(reference(&hpa), "Deployment/web");
        assert_eq!(min_pods(&hpa), "<unset>");
        let mut measured = hpa.clone();
        measured["status"] = json!({"currentMetrics": [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 12}}}]});
        assert_eq!(targets(&measured), "cpu: 12%/80%");
    }

    #[test]
    fn endpoints_and_volumes_read_as_kubectl_prints_them() {
        let ep = json!({"subsets": [{"addresses": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}], "ports": [{"port": 80}]}]});
        assert_eq!(endpoints(&ep), "10.0.0.1:80,10.0.0.2:80");
        assert_eq!(endpoints(&json!({})), "<none>");
        let pv = json!({"spec": {"accessModes": ["ReadWriteOnce", "ReadOnlyMany"], "claimRef": {"namespace": "d", "name": "c"}}});
        assert_eq!(volume_modes(&pv), "RWO,ROX");
        assert_eq!(claim_ref(&pv), "d/c");
    }
}
