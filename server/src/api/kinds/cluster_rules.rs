//! Rules of the storage, scheduling, node, discovery and autoscaling kinds
//! a manifest author meets: defaults as Kubernetes sets them, required and
//! fixed fields, and PriorityClass's reserved names and values.

use serde_json::{Value, json};

use super::checks::{default_field, items_at, object_field, str_at};
use crate::api::error::Cause;
use crate::api::object;

/// The largest value a user's PriorityClass may have.
pub const HIGHEST_USER_PRIORITY: i64 = 1_000_000_000;

/// `(name, value, description)` of the classes every cluster has.
pub const SYSTEM_PRIORITY_CLASSES: [(&str, i64, &str); 2] = [
    (
        "system-node-critical",
        2_000_001_000,
        "Used for system critical pods that must not be moved from their current node.",
    ),
    (
        "system-cluster-critical",
        2_000_000_000,
        "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
    ),
];

/// A system class as kube-apiserver creates it at start.
#[must_use]
pub fn system_priority_class(
    api_version: &str,
    name: &str,
    value: i64,
    description: &str,
) -> Value {
    json!({"apiVersion": api_version, "kind": "PriorityClass",
           "metadata": {"name": name}, "value": value, "description": description,
           "preemptionPolicy": "PreemptLowerPriority"})
}

pub fn storage_class_defaults(obj: &mut Value) {
    let map = obj.as_object_mut().expect("objects only");
    default_field(map, "reclaimPolicy", json!("Delete"));
    default_field(map, "volumeBindingMode", json!("Immediate"));
}

#[must_use]
pub fn storage_class_checks(obj: &Value) -> Vec<Cause> {
    if str_at(obj, "/provisioner").is_empty() {
        return vec![Cause::required("provisioner")];
    }
    Vec::new()
}

pub fn csi_driver_defaults(obj: &mut Value) {
    let spec = object_field(obj, "spec");
    default_field(spec, "attachRequired", json!(true));
    default_field(spec, "podInfoOnMount", json!(false));
    default_field(spec, "storageCapacity", json!(false));
    default_field(spec, "requiresRepublish", json!(false));
    default_field(spec, "fsGroupPolicy", json!("ReadWriteOnceWithFSType"));
    default_field(spec, "seLinuxMount", json!(false));
    default_field(spec, "volumeLifecycleModes", json!(["Persistent"]));
}

#[must_use]
pub fn volume_attachment_checks(obj: &Value) -> Vec<Cause> {
    let mut out = Vec::new();
    if str_at(obj, "/spec/attacher").is_empty() {
        out.push(Cause::required("spec.attacher"));
    }
    if str_at(obj, "/spec/nodeName").is_empty() {
        out.push(Cause::required("spec.nodeName"));
    }
    let named = !str_at(obj, "/spec/source/persistentVolumeName").is_empty();
    let inline = obj
        .pointer("/spec/source/inlineVolumeSpec")
        .is_some_and(|v| !v.is_null());
    if named == inline {
        out.push(Cause::new(
            "FieldValueRequired",
            "spec.source",
            "Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName",
        ));
    }
    out
}

pub fn priority_class_defaults(obj: &mut Value) {
    let map = obj.as_object_mut().expect("objects only");
    default_field(map, "preemptionPolicy", json!("PreemptLowerPriority"));
}

/// Values above a billion and `system-` names are the system's own.
#[must_use]
pub fn priority_class_checks(obj: &Value) -> Vec<Cause> {
    let mut out = Vec::new();
    let name = object::name(obj);
    let value = obj.get("value").and_then(Value::as_i64).unwrap_or(0);
    let system = SYSTEM_PRIORITY_CLASSES
        .iter()
        .any(|(n, v, _)| *n == name && *v == value);
    if name.starts_with("system-") && !system {
        out.push(Cause::invalid(
            "metadata.name",
            name,
            "priority class names with 'system-' prefix are reserved for system use only",
        ));
    }
    if value > HIGHEST_USER_PRIORITY && !name.starts_with("system-") {
        out.push(Cause::forbidden(
            "value",
            &format!("maximum allowed value of a user defined priority is {HIGHEST_USER_PRIORITY}"),
        ));
    }
    match obj.get("preemptionPolicy").and_then(Value::as_str) {
        None | Some("PreemptLowerPriority" | "Never") => {}
        Some(other) => out.push(Cause::new(
            "FieldValueNotSupported",
            "preemptionPolicy",
            format!("Unsupported value: {other:?}: supported values: \"Never\", \"PreemptLowerPriority\""),
        )),
    }
    out
}

/// A PriorityClass's value and preemption policy never change.
#[must_use]
pub fn priority_class_update_causes(new: &Value, old: &Value) -> Vec<Cause> {
    let mut out = Vec::new();
    if new.get("value") != old.get("value") {
        out.push(Cause::forbidden(
            "value",
            "may not be changed in an update.",
        ));
    }
    if new.get("preemptionPolicy") != old.get("preemptionPolicy") {
        out.push(Cause::invalid(
            "preemptionPolicy",
            str_at(new, "/preemptionPolicy"),
            "field is immutable",
        ));
    }
    out
}

/// A RuntimeClass's handler is a DNS label.
#[must_use]
pub fn runtime_class_checks(obj: &Value) -> Vec<Cause> {
    let handler = str_at(obj, "/handler");
    if handler.is_empty() {
        return vec![Cause::required("handler")];
    }
    if let Some(problem) =
        crate::api::meta::name_problem(handler, crate::api::kind::NameRule::Label)
    {
        return vec![Cause::invalid("handler", handler, &problem)];
    }
    Vec::new()
}

/// An EndpointSlice's address type is one Kubernetes knows; each endpoint
/// has 1 to 100 addresses.
#[must_use]
pub fn endpoint_slice_checks(obj: &Value) -> Vec<Cause> {
    let mut out = Vec::new();
    match obj.get("addressType").and_then(Value::as_str) {
        None | Some("") => out.push(Cause::required("addressType")),
        Some("IPv4" | "IPv6" | "FQDN") => {}
        Some(other) => out.push(Cause::new(
            "FieldValueNotSupported",
            "addressType",
            format!("Unsupported value: {other:?}: supported values: \"FQDN\", \"IPv4\", \"IPv6\""),
        )),
    }
    for (i, endpoint) in items_at(obj, "/endpoints").iter().enumerate() {
        let count = items_at(endpoint, "/addresses").len();
        let field = format!("endpoints[{i}].addresses");
        if count == 0 {
            out.push(Cause::new(
                "FieldValueRequired",
                field,
                "Required value: must contain at least 1 address",
            ));
        } else if count > 100 {
            out.push(Cause::new(
                "FieldValueTooMany",
                field,
                format!("Too many: {count}: must have at most 100 items"),
            ));
        }
    }
    out
}

/// `minReplicas` 1, and CPU at 80% when no metric is named (autoscaling/v2
/// defaults).
pub fn autoscaler_defaults(obj: &mut Value) {
    let spec = object_field(obj, "spec");
    default_field(spec, "minReplicas", json!(1));
    if spec
        .get("metrics")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
    {
        spec.insert(
            "metrics".into(),
            json!([{"type": "Resource", "resource": {"name": "cpu",
                   "target": {"type": "Utilization", "averageUtilization": 80}}}]),
        );
    }
}

/// A target to scale, and bounds in order.
#[must_use]
pub fn autoscaler_checks(obj: &Value) -> Vec<Cause> {
    let mut out = Vec::new();
    for field in ["kind", "name"] {
        if str_at(obj, &format!("/spec/scaleTargetRef/{field}")).is_empty() {
            out.push(Cause::required(format!("spec.scaleTargetRef.{field}")));
        }
    }
    let min = obj
        .pointer("/spec/minReplicas")
        .and_then(Value::as_i64)
        .unwrap_or(1);
    let max = obj
        .pointer("/spec/maxReplicas")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    if min < 1 {
        out.push(Cause::new(
            "FieldValueInvalid",
            "spec.minReplicas",
            format!("Invalid value: {min}: must be greater than or equal to 1"),
        ));
    }
    if max < min {
        out.push(Cause::new(
            "FieldValueInvalid",
            "spec.maxReplicas",
            format!("Invalid value: {max}: must be greater than or equal to `minReplicas`"),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::cause_lines;
    use super::*;

    #[test]
    fn priority_classes_reserve_system_names_and_values() {
        let ok = json!({"metadata": {"name": "high"}, "value": 1000});
        assert!(priority_class_checks(&ok).is_empty());
        let system = system_priority_class(
            "scheduling.example/v1",
            "system-node-critical",
            2_000_001_000,
            "d",
        );
        assert!(priority_class_checks(&system).is_empty());
        assert_eq!(
            cause_lines(&priority_class_checks(
                &json!({"metadata": {"name": "big"}, "value": 2_000_000_000})
            )),
            ["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]
        );
        assert_eq!(
            priority_class_checks(&json!({"metadata": {"name": "system-x"}, "value": 1})).len(),
            1
        );
        assert_eq!(
            cause_lines(&priority_class_update_causes(
                &json!({"value": 2}),
                &json!({"value": 1})
            )),
            ["value: Forbidden: may not be changed in an update."]
        );
    }

    #[test]
    fn an_autoscaler_defaults_to_cpu_and_keeps_its_bounds_in_order() {
        let mut hpa = json!({"spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 3}});
        autoscaler_defaults(&mut hpa);
        assert_eq!(hpa["spec"]["minReplicas"], 1);
        assert_eq!(
            hpa["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
            80
        );
        assert!(autoscaler_checks(&hpa).is_empty());
        hpa["spec"]["maxReplicas"] = json!(0);
        assert_eq!(
            cause_lines(&autoscaler_checks(&hpa)),
            ["spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`"]
        );
    }

    #[test]
    fn an_endpoint_slice_names_a_known_address_type() {
        assert!(
            endpoint_slice_checks(
                &json!({"addressType": "IPv4", "endpoints": [{"addresses": ["10.0.0.1"]}]})
            )
            .is_empty()
        );
        assert_eq!(
            endpoint_slice_checks(&json!({"addressType": "IPv5"})).len(),
            1
        );
        assert_eq!(
            endpoint_slice_checks(
                &json!({"addressType": "IPv4", "endpoints": [{"addresses": []}]})
            )
            .len(),
            1
        );
    }
}
