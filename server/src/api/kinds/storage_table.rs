//! Table columns of the storage, scheduling and node kinds, as kubectl
//! prints them.

use serde_json::Value;

use super::checks::{items_at, str_at};
use crate::api::kind::Column;

/// A StorageClass's name, marked `(default)` as kubectl marks it.
fn class_name(obj: &Value) -> Value {
    name_marked_default(
        obj,
        &[
            "storageclass.kubernetes.io/is-default-class",
            "storageclass.beta.kubernetes.io/is-default-class",
        ],
    )
}

/// The object's name, with ` (default)` when one of `annotations` is `"true"`.
#[must_use]
pub fn name_marked_default(obj: &Value, annotations: &[&str]) -> Value {
    let name = str_at(obj, "/metadata/name");
    let default = annotations.iter().any(|a| {
        obj.pointer("/metadata/annotations")
            .and_then(|m| m.get(*a))
            .and_then(Value::as_str)
            == Some("true")
    });
    Value::from(if default {
        format!("{name} (default)")
    } else {
        name.to_owned()
    })
}

fn flag(obj: &Value, pointer: &str) -> Value {
    Value::from(
        obj.pointer(pointer)
            .and_then(Value::as_bool)
            .unwrap_or(false),
    )
}

fn expansion(obj: &Value) -> Value {
    flag(obj, "/allowVolumeExpansion")
}

#[must_use]
pub fn storage_class_columns() -> Vec<Column> {
    vec![
        Column::name_computed(class_name),
        Column::new(
            "Provisioner",
            "string",
            0,
            ".provisioner",
            "provisioner indicates the type of the provisioner.",
        ),
        Column::new(
            "ReclaimPolicy",
            "string",
            0,
            ".reclaimPolicy",
            "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class.",
        ),
        Column::new(
            "VolumeBindingMode",
            "string",
            0,
            ".volumeBindingMode",
            "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.",
        ),
        Column::computed(
            "AllowVolumeExpansion",
            "string",
            0,
            expansion,
            "allowVolumeExpansion shows whether the storage class allow volume expand.",
        ),
        Column::age(),
    ]
}

/// Token audiences; `<unset>` only when the list is absent.
fn token_requests(obj: &Value) -> Value {
    let Some(requests) = obj.pointer("/spec/tokenRequests").and_then(Value::as_array) else {
        return Value::from("<unset>");
    };
    let audiences: Vec<&str> = requests.iter().map(|t| str_at(t, "/audience")).collect();
    Value::from(audiences.join(","))
}

fn lifecycle_modes(obj: &Value) -> Value {
    let modes: Vec<&str> = items_at(obj, "/spec/volumeLifecycleModes")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    Value::from(if modes.is_empty() {
        "<none>".to_owned()
    } else {
        modes.join(",")
    })
}

macro_rules! flag_cell {
    ($name:ident, $pointer:literal) => {
        fn $name(obj: &Value) -> Value {
            flag(obj, $pointer)
        }
    };
}

flag_cell!(attach_required, "/spec/attachRequired");
flag_cell!(pod_info_on_mount, "/spec/podInfoOnMount");
flag_cell!(storage_capacity, "/spec/storageCapacity");
flag_cell!(requires_republish, "/spec/requiresRepublish");
flag_cell!(attached, "/status/attached");
flag_cell!(global_default, "/globalDefault");

fn boolean(name: &str, cell: fn(&Value) -> Value, description: &str) -> Column {
    Column::computed(name, "boolean", 0, cell, description)
}

#[must_use]
pub fn csi_driver_columns() -> Vec<Column> {
    vec![
        Column::name(),
        boolean(
            "AttachRequired",
            attach_required,
            "Indicates this CSI volume driver requires an attach operation.",
        ),
        boolean(
            "PodInfoOnMount",
            pod_info_on_mount,
            "Indicates this CSI volume driver requires additional pod information during mount operations.",
        ),
        boolean(
            "StorageCapacity",
            storage_capacity,
            "Indicates that the CSI volume driver wants pod scheduling to consider the storage capacity.",
        ),
        Column::computed(
            "TokenRequests",
            "string",
            0,
            token_requests,
            "Indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication.",
        ),
        boolean(
            "RequiresRepublish",
            requires_republish,
            "Indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume.",
        ),
        Column::computed(
            "Modes",
            "string",
            0,
            lifecycle_modes,
            "Defines the kinds of volumes this CSI volume driver supports.",
        ),
        Column::age(),
    ]
}

fn drivers(obj: &Value) -> Value {
    Value::from(items_at(obj, "/spec/drivers").len())
}

#[must_use]
pub fn csi_node_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::computed(
            "Drivers",
            "integer",
            0,
            drivers,
            "Drivers indicates the number of CSI drivers registered on the node",
        ),
        Column::age(),
    ]
}

#[must_use]
pub fn volume_attachment_columns() -> Vec<Column> {
    vec![
        Column::name(),
        // kube's printer formats this column as a name too.
        Column {
            format: "name".into(),
            ..Column::new(
                "Attacher",
                "string",
                0,
                ".spec.attacher",
                "Attacher indicates the name of the volume driver that MUST handle this request.",
            )
        },
        Column::new(
            "PV",
            "string",
            0,
            ".spec.source.persistentVolumeName",
            "Name of the persistent volume to attach.",
        ),
        Column::new(
            "Node",
            "string",
            0,
            ".spec.nodeName",
            "The node that the volume should be attached to.",
        ),
        boolean(
            "Attached",
            attached,
            "Indicates the volume is successfully attached.",
        ),
        Column::age(),
    ]
}

fn capacity(obj: &Value) -> Value {
    match obj.get("capacity") {
        Some(Value::String(s)) => Value::from(s.clone()),
        Some(Value::Number(n)) => Value::from(n.to_string()),
        _ => Value::from("<unset>"),
    }
}

#[must_use]
pub fn storage_capacity_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::new(
            "StorageClassName",
            "string",
            0,
            ".storageClassName",
            "The name of the StorageClass that the reported capacity applies to.",
        ),
        Column::computed(
            "Capacity",
            "string",
            0,
            capacity,
            "Capacity is the value reported by the CSI driver in its GetCapacityResponse.",
        ),
    ]
}

#[must_use]
pub fn priority_class_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::new(
            "Value",
            "integer",
            0,
            ".value",
            "The value of this priority class.",
        ),
        boolean(
            "Global-Default",
            global_default,
            "globalDefault specifies whether this PriorityClass should be considered as the default priority.",
        ),
        Column::age(),
        Column::new(
            "PreemptionPolicy",
            "string",
            0,
            ".preemptionPolicy",
            "preemptionPolicy is the Policy for preempting pods with lower priority.",
        ),
    ]
}

#[must_use]
pub fn runtime_class_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::new(
            "Handler",
            "string",
            0,
            ".handler",
            "Handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class.",
        ),
        Column::age(),
    ]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_default_storage_class_is_marked() {
        let sc = json!({"metadata": {"name": "fast", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}}});
        assert_eq!(class_name(&sc), "fast (default)");
        assert_eq!(expansion(&sc), false);
        assert_eq!(
            lifecycle_modes(&json!({"spec": {"volumeLifecycleModes": ["Persistent"]}})),
            "Persistent"
        );
    }
}
