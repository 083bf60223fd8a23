//! Table columns of the further core/v1 kinds and of EndpointSlice, as
//! kubectl prints them.

use serde_json::Value;

use super::checks::{items_at, str_at};
use super::volume_table::quantity_text;
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn endpoints_and_volumes_read_as_kubectl_prints_them() {
        let ep = json!({"subsets": [{"addresses": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}], "ports": [{"port": 80}]}]});
        assert_eq!(endpoints(&ep), "10.0.0.1:80,10.0.0.2:80");
        assert_eq!(endpoints(&json!({})), "<none>");
    }
}
