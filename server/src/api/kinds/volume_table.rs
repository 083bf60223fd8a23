//! Table columns of PersistentVolume and PersistentVolumeClaim, as kubectl
//! prints them.

use serde_json::Value;

use super::checks::{items_at, str_at};

use crate::api::kind::Column;

fn text(name: &str, path: &str, description: &str) -> Column {
    Column::new(name, "string", 0, path, description)
}

fn computed(name: &str, cell: fn(&Value) -> Value, description: &str) -> Column {
    Column::computed(name, "string", 0, cell, description)
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

/// The phase, or `Terminating` once deletion has begun.
fn phase(obj: &Value) -> Value {
    if obj.pointer("/metadata/deletionTimestamp").is_some() {
        return Value::from("Terminating");
    }
    Value::from(str_at(obj, "/status/phase"))
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

/// A quantity at `pointer` as text; empty when unset.
#[must_use]
pub fn quantity_text(obj: &Value, pointer: &str) -> Value {
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
        computed(
            "Status",
            phase,
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
        computed(
            "Status",
            phase,
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn volumes_read_as_kubectl_prints_them() {
        let pv = json!({"spec": {"accessModes": ["ReadWriteOnce", "ReadOnlyMany"], "claimRef": {"namespace": "d", "name": "c"}}});
        assert_eq!(volume_modes(&pv), "RWO,ROX");
        assert_eq!(claim_ref(&pv), "d/c");
        assert_eq!(attributes_class(&pv), "<unset>");
        assert_eq!(phase(&json!({"status": {"phase": "Bound"}})), "Bound");
        let deleting = json!({"metadata": {"deletionTimestamp": "2026-01-01T00:00:00Z"}, "status": {"phase": "Bound"}});
        assert_eq!(phase(&deleting), "Terminating");
    }
}
