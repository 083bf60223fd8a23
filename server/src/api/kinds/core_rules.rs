//! Rules of the further core/v1 kinds a manifest author meets:
//! PersistentVolume and PersistentVolumeClaim (defaults, a volume source,
//! access modes and size), ReplicationController (defaults from its
//! template, a selector that selects it) and ResourceQuota.

use serde_json::{Value, json};

use super::checks::{default_field, items_at, object_field};
use super::label_selector::go_string_map;
use crate::api::error::Cause;

const ACCESS_MODES: &str =
    "\"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\"";

/// The volume sources a PersistentVolume may name (one of them).
const PV_SOURCES: [&str; 22] = [
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "hostPath",
    "glusterfs",
    "nfs",
    "rbd",
    "iscsi",
    "cinder",
    "cephfs",
    "fc",
    "flocker",
    "flexVolume",
    "azureFile",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "portworxVolume",
    "scaleIO",
    "local",
    "storageos",
    "csi",
];

/// A new volume is `Pending`, kept by default (`Retain`), a filesystem.
pub fn volume_defaults(obj: &mut Value) {
    let spec = object_field(obj, "spec");
    default_field(spec, "persistentVolumeReclaimPolicy", json!("Retain"));
    default_field(spec, "volumeMode", json!("Filesystem"));
    let status = object_field(obj, "status");
    default_field(status, "phase", json!("Pending"));
}

fn access_mode_causes(obj: &Value, field: &str, out: &mut Vec<Cause>) {
    let modes = items_at(obj, "/spec/accessModes");
    if modes.is_empty() {
        out.push(Cause::new(
            "FieldValueRequired",
            field,
            "Required value: at least 1 access mode is required",
        ));
    }
    for mode in modes {
        let mode = mode.as_str().unwrap_or_default();
        if !ACCESS_MODES.contains(&format!("\"{mode}\"")) {
            out.push(Cause::new(
                "FieldValueNotSupported",
                field,
                format!("Unsupported value: {mode:?}: supported values: {ACCESS_MODES}"),
            ));
        }
    }
}

/// A volume has a size, access modes and exactly one source.
#[must_use]
pub fn volume_checks(obj: &Value) -> Vec<Cause> {
    let mut out = Vec::new();
    access_mode_causes(obj, "spec.accessModes", &mut out);
    if obj.pointer("/spec/capacity/storage").is_none() {
        out.push(Cause::required("spec.capacity"));
    }
    let sources = PV_SOURCES
        .iter()
        .filter(|s| {
            obj.pointer(&format!("/spec/{s}"))
                .is_some_and(|v| !v.is_null())
        })
        .count();
    match sources {
        0 => out.push(Cause::new(
            "FieldValueRequired",
            "spec",
            "Required value: must specify a volume type",
        )),
        1 => {}
        _ => out.push(Cause::forbidden(
            "spec",
            "may not specify more than 1 volume type",
        )),
    }
    out
}

/// A new claim is `Pending` and a filesystem.
pub fn claim_defaults(obj: &mut Value) {
    let spec = object_field(obj, "spec");
    default_field(spec, "volumeMode", json!("Filesystem"));
    let status = object_field(obj, "status");
    default_field(status, "phase", json!("Pending"));
}

/// A claim asks for access modes and a size.
#[must_use]
pub fn claim_checks(obj: &Value) -> Vec<Cause> {
    let mut out = Vec::new();
    access_mode_causes(obj, "spec.accessModes", &mut out);
    if obj.pointer("/spec/resources/requests/storage").is_none() {
        out.push(Cause::required("spec.resources[storage]"));
    }
    out
}

/// One replica; selector and labels from the template's labels when unset.
pub fn replication_controller_defaults(obj: &mut Value) {
    let template_labels = obj
        .pointer("/spec/template/metadata/labels")
        .filter(|l| l.as_object().is_some_and(|m| !m.is_empty()))
        .cloned();
    let spec = object_field(obj, "spec");
    default_field(spec, "replicas", json!(1));
    if let Some(labels) = template_labels {
        if spec
            .get("selector")
            .and_then(Value::as_object)
            .is_none_or(|m| m.is_empty())
        {
            spec.insert("selector".into(), labels.clone());
        }
        let meta = object_field(obj, "metadata");
        if meta
            .get("labels")
            .and_then(Value::as_object)
            .is_none_or(|m| m.is_empty())
        {
            meta.insert("labels".into(), labels);
        }
    }
}

/// A non-empty selector that selects the template.
#[must_use]
pub fn replication_controller_checks(obj: &Value) -> Vec<Cause> {
    let selector = obj.pointer("/spec/selector").and_then(Value::as_object);
    if selector.is_none_or(|s| s.is_empty()) {
        return vec![Cause::required("spec.selector")];
    }
    let labels = obj
        .pointer("/spec/template/metadata/labels")
        .and_then(Value::as_object);
    let selected = selector
        .into_iter()
        .flatten()
        .all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v));
    if obj.pointer("/spec/template").is_some_and(|t| !t.is_null()) && !selected {
        return vec![Cause::new(
            "FieldValueInvalid",
            "spec.template.metadata.labels",
            format!(
                "Invalid value: {}: `selector` does not match template `labels`",
                go_string_map(labels)
            ),
        )];
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::super::cause_lines;
    use super::*;

    #[test]
    fn a_volume_needs_one_source_a_size_and_modes() {
        let ok = json!({"spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/d"}}});
        assert!(volume_checks(&ok).is_empty());
        assert_eq!(
            cause_lines(&volume_checks(&json!({"spec": {}}))),
            [
                "spec.accessModes: Required value: at least 1 access mode is required",
                "spec.capacity: Required value",
                "spec: Required value: must specify a volume type",
            ]
        );
        let mut pv = ok.clone();
        volume_defaults(&mut pv);
        assert_eq!(pv["status"]["phase"], "Pending");
        assert_eq!(pv["spec"]["persistentVolumeReclaimPolicy"], "Retain");
    }

    #[test]
    fn a_claim_names_its_size() {
        let ok = json!({"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}});
        assert!(claim_checks(&ok).is_empty());
        assert_eq!(
            cause_lines(&claim_checks(
                &json!({"spec": {"accessModes": ["Sometimes"]}})
            )),
            [
                "spec.accessModes: Unsupported value: \"Sometimes\": supported values: \"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\"",
                "spec.resources[storage]: Required value",
            ]
        );
    }

    #[test]
    fn a_replication_controller_takes_its_selector_from_the_template() {
        let mut rc = json!({"metadata": {"name": "r"}, "spec": {"template": {"metadata": {"labels": {"app": "x"}}}}});
        replication_controller_defaults(&mut rc);
        assert_eq!(rc["spec"]["selector"], json!({"app": "x"}));
        assert_eq!(rc["metadata"]["labels"], json!({"app": "x"}));
        assert_eq!(rc["spec"]["replicas"], 1);
        assert!(replication_controller_checks(&rc).is_empty());
        rc["spec"]["selector"] = json!({"app": "y"});
        assert_eq!(replication_controller_checks(&rc).len(), 1);
    }
}
