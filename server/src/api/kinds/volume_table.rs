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

/// kubectl's short access modes, each once in kube's fixed order
/// (`RWO,ROX,RWX,RWOP`), unknown ones left out.
fn modes(obj: &Value, pointer: &str) -> Value {
    let given: Vec<&str> = items_at(obj, pointer)
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let list: Vec<&str> = [
        ("ReadWriteOnce", "RWO"),
        ("ReadOnlyMany", "ROX"),
        ("ReadWriteMany", "RWX"),
        ("ReadWriteOncePod", "RWOP"),
    ]
    .iter()
    .filter(|(mode, _)| given.contains(mode))
    .map(|(_, short)| *short)
    .collect();
    Value::from(list.join(","))
}

/// The class: the old beta annotation first, as kube's helper reads it.
fn storage_class(obj: &Value) -> Value {
    let annotated = obj
        .pointer("/metadata/annotations/volume.beta.kubernetes.io~1storage-class")
        .and_then(Value::as_str);
    Value::from(annotated.unwrap_or_else(|| str_at(obj, "/spec/storageClassName")))
}

/// A claim's capacity and modes show once it names its volume.
fn bound(obj: &Value) -> bool {
    !str_at(obj, "/spec/volumeName").is_empty()
}

fn volume_modes(obj: &Value) -> Value {
    modes(obj, "/spec/accessModes")
}

fn claim_modes(obj: &Value) -> Value {
    if !bound(obj) {
        return Value::from("");
    }
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
    if !bound(obj) {
        return Value::from("");
    }
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
        computed(
            "StorageClass",
            storage_class,
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
        computed(
            "StorageClass",
            storage_class,
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
        let shuffled =
            json!({"spec": {"accessModes": ["ReadWriteMany", "ReadWriteOnce", "ReadWriteMany"]}});
        assert_eq!(volume_modes(&shuffled), "RWO,RWX");
        let claim = json!({"metadata": {"annotations": {"volume.beta.kubernetes.io/storage-class": "old"}},
            "spec": {"storageClassName": "new"}, "status": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"]}});
        assert_eq!(storage_class(&claim), "old");
        assert_eq!(
            claim_capacity(&claim),
            "",
            "unbound claims show no capacity"
        );
        let mut bound_claim = claim.clone();
        bound_claim["spec"]["volumeName"] = json!("pv1");
        assert_eq!(claim_capacity(&bound_claim), "1Gi");
        assert_eq!(claim_modes(&bound_claim), "RWO");
        assert_eq!(claim_ref(&pv), "d/c");
        assert_eq!(attributes_class(&pv), "<unset>");
        assert_eq!(phase(&json!({"status": {"phase": "Bound"}})), "Bound");
        let deleting = json!({"metadata": {"deletionTimestamp": "2026-01-01T00:00:00Z"}, "status": {"phase": "Bound"}});
        assert_eq!(phase(&deleting), "Terminating");
    }
}
