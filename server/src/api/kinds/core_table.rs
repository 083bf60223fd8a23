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
/// The first three of `list`, then ` + N more...`; `empty` for none.
fn first_three(list: &[String], empty: &str) -> String {
    match list.len() {
        0 => empty.into(),
        1..=3 => list.join(","),
        n => format!("{} + {} more...", list[..3].join(","), n - 3),
    }
}

/// Go's `net.JoinHostPort`: IPv6 addresses in brackets.
fn host_port(ip: &str, port: i64) -> String {
    if ip.contains(':') {
        format!("[{ip}]:{port}")
    } else {
        format!("{ip}:{port}")
    }
}

/// Each port's addresses in turn, as kube's printer lists them.
fn endpoints(obj: &Value) -> Value {
    let subsets = items_at(obj, "/subsets");
    if subsets.is_empty() {
        return Value::from("<none>");
    }
    let mut list = Vec::new();
    for subset in subsets {
        let addresses = items_at(subset, "/addresses");
        let ports = items_at(subset, "/ports");
        if ports.is_empty() {
            list.extend(addresses.iter().map(|a| str_at(a, "/ip").to_owned()));
        }
        for port in ports {
            let number = count(port, "/port");
            list.extend(
                addresses
                    .iter()
                    .map(|a| host_port(str_at(a, "/ip"), number)),
            );
        }
    }
    Value::from(first_three(&list, ""))
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

/// Port numbers, a name where the number is unset, else `*`.
fn slice_ports(obj: &Value) -> Value {
    let list: Vec<String> = items_at(obj, "/ports")
        .iter()
        .map(|p| {
            match (
                p.get("port").and_then(Value::as_i64),
                p.get("name").and_then(Value::as_str),
            ) {
                (Some(n), _) => n.to_string(),
                (None, Some(name)) => name.to_owned(),
                (None, None) => "*".to_owned(),
            }
        })
        .collect();
    Value::from(first_three(&list, "<unset>"))
}

fn slice_endpoints(obj: &Value) -> Value {
    let list: Vec<String> = items_at(obj, "/endpoints")
        .iter()
        .flat_map(|e| items_at(e, "/addresses"))
        .filter_map(|a| a.as_str().map(str::to_owned))
        .collect();
    Value::from(first_three(&list, "<unset>"))
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
        let by_port = json!({"subsets": [{"addresses": [{"ip": "fd00::1"}, {"ip": "10.0.0.2"}],
            "ports": [{"port": 80}, {"port": 443}]}]});
        assert_eq!(
            endpoints(&by_port),
            "[fd00::1]:80,10.0.0.2:80,[fd00::1]:443 + 1 more..."
        );
        assert_eq!(endpoints(&json!({"subsets": [{}]})), "");
    }

    #[test]
    fn slice_ports_fall_back_to_names_then_a_star() {
        let slice = json!({"ports": [{"port": 80}, {"name": "http"}, {}, {"port": 9}]});
        assert_eq!(slice_ports(&slice), "80,http,* + 1 more...");
        assert_eq!(slice_ports(&json!({})), "<unset>");
    }
}
