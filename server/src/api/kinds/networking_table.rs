//! Table columns of the networking/v1 and policy/v1 kinds, as kubectl
//! prints them.

use serde_json::Value;

use super::checks::{items_at, str_at};
use super::service_table::load_balancer_addresses;
use super::workload_cells::{count, format_selector};
use crate::api::kind::Column;

fn or_none(text: &str) -> Value {
    Value::from(if text.is_empty() { "<none>" } else { text })
}

fn ingress_class(obj: &Value) -> Value {
    or_none(str_at(obj, "/spec/ingressClassName"))
}

/// The rules' hosts; `*` when no rule names one (kubectl shows three and
/// counts the rest).
fn ingress_hosts(obj: &Value) -> Value {
    let rules = items_at(obj, "/spec/rules");
    // Kube lists the hosts of the first three rules and counts every rule
    // past the third, with a host or not.
    let hosts: Vec<&str> = rules
        .iter()
        .take(3)
        .map(|r| str_at(r, "/host"))
        .filter(|h| !h.is_empty())
        .collect();
    Value::from(match (hosts.len(), rules.len()) {
        (0, _) => "*".to_owned(),
        (_, 0..=3) => hosts.join(","),
        (_, n) => format!("{} + {} more...", hosts.join(","), n - 3),
    })
}

/// The load balancers' IPs and host names, sorted, each once.
fn ingress_address(obj: &Value) -> Value {
    Value::from(load_balancer_addresses(obj).join(","))
}

fn ingress_ports(obj: &Value) -> Value {
    Value::from(if items_at(obj, "/spec/tls").is_empty() {
        "80"
    } else {
        "80, 443"
    })
}

/// NAME CLASS HOSTS ADDRESS PORTS AGE.
#[must_use]
pub fn ingress_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::computed(
            "Class",
            "string",
            0,
            ingress_class,
            "The name of the IngressClass resource that should be used",
        ),
        Column::computed(
            "Hosts",
            "string",
            0,
            ingress_hosts,
            "Hosts that incoming requests are matched against before the ingress rule",
        ),
        Column::computed(
            "Address",
            "string",
            0,
            ingress_address,
            "Address is a list containing ingress points for the load-balancer",
        ),
        Column::computed(
            "Ports",
            "string",
            0,
            ingress_ports,
            "Ports of TLS configurations that open",
        ),
        Column::age(),
    ]
}

/// `Kind.apiGroup/name` of the parameters; `<none>` without.
fn ingress_class_parameters(obj: &Value) -> Value {
    let Some(p) = obj.pointer("/spec/parameters").filter(|p| p.is_object()) else {
        return or_none("");
    };
    let group = str_at(p, "/apiGroup");
    let kind = if group.is_empty() {
        str_at(p, "/kind").to_owned()
    } else {
        format!("{}.{group}", str_at(p, "/kind"))
    };
    Value::from(format!("{kind}/{}", str_at(p, "/name")))
}

/// NAME CONTROLLER PARAMETERS AGE.
#[must_use]
pub fn ingress_class_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::new(
            "Controller",
            "string",
            0,
            ".spec.controller",
            "Controller that is responsible for handling this class",
        ),
        Column::computed(
            "Parameters",
            "string",
            0,
            ingress_class_parameters,
            "A reference to a resource with additional parameters",
        ),
        Column::age(),
    ]
}

fn pod_selector(obj: &Value) -> Value {
    format_selector(obj.pointer("/spec/podSelector"))
}

/// NAME POD-SELECTOR AGE.
#[must_use]
pub fn network_policy_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::computed(
            "Pod-Selector",
            "string",
            0,
            pod_selector,
            "Selects the pods to which this NetworkPolicy object applies.",
        ),
        Column::age(),
    ]
}

/// An int-or-string as text; `N/A` when unset.
fn int_or_string(obj: &Value, pointer: &str) -> Value {
    match obj.pointer(pointer) {
        Some(Value::String(s)) => Value::from(s.clone()),
        Some(Value::Number(n)) => Value::from(n.to_string()),
        _ => Value::from("N/A"),
    }
}

fn min_available(obj: &Value) -> Value {
    int_or_string(obj, "/spec/minAvailable")
}

fn max_unavailable(obj: &Value) -> Value {
    int_or_string(obj, "/spec/maxUnavailable")
}

fn disruptions_allowed(obj: &Value) -> Value {
    Value::from(count(obj, "/status/disruptionsAllowed"))
}

/// NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE.
#[must_use]
pub fn pod_disruption_budget_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::computed(
            "Min Available",
            "string",
            0,
            min_available,
            "The minimum number of pods that must be available.",
        ),
        Column::computed(
            "Max Unavailable",
            "string",
            0,
            max_unavailable,
            "The maximum number of pods that may be unavailable.",
        ),
        Column::computed(
            "Allowed Disruptions",
            "integer",
            0,
            disruptions_allowed,
            "Calculated number of pods that may be disrupted at this time.",
        ),
        Column::age(),
    ]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn ingress_cells_read_as_kubectl_prints_them() {
        let ing = json!({"spec": {"rules": [{"host": "a.io"}, {"host": "b.io"}], "tls": [{}]},
            "status": {"loadBalancer": {"ingress": [{"ip": "10.0.0.1"}, {"hostname": "lb.io"}]}}});
        assert_eq!(ingress_class(&ing), "<none>");
        assert_eq!(ingress_hosts(&ing), "a.io,b.io");
        assert_eq!(ingress_address(&ing), "10.0.0.1,lb.io");
        assert_eq!(ingress_ports(&ing), "80, 443");
        assert_eq!(ingress_hosts(&json!({"spec": {}})), "*");
        let many = json!({"spec": {"rules": [{"host": "a.io"}, {}, {"host": "c.io"}, {"host": "d.io"}, {}]},
            "status": {"loadBalancer": {"ingress": [{"ip": "10.0.0.9"}, {"ip": "10.0.0.1"}, {"ip": "10.0.0.9"}]}}});
        assert_eq!(ingress_hosts(&many), "a.io,c.io + 2 more...");
        assert_eq!(ingress_address(&many), "10.0.0.1,10.0.0.9");
    }

    #[test]
    fn budgets_show_unset_bounds_as_not_applicable() {
        let pdb = json!({"spec": {"minAvailable": "50%"}});
        assert_eq!(min_available(&pdb), "50%");
        assert_eq!(max_unavailable(&pdb), "N/A");
        assert_eq!(disruptions_allowed(&pdb), 0);
    }
}
