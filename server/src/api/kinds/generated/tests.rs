//! The generated schemas against the facts kinds and clients rely on.

use super::resource;
use crate::api::schema::{Schema, SchemaType};

const ROOTS: &[&str] = &[
    "io.k8s.api.apps.v1.Deployment",
    "io.k8s.api.apps.v1.ReplicaSet",
    "io.k8s.api.apps.v1.StatefulSet",
    "io.k8s.api.apps.v1.DaemonSet",
    "io.k8s.api.apps.v1.ControllerRevision",
    "io.k8s.api.batch.v1.Job",
    "io.k8s.api.batch.v1.CronJob",
    "io.k8s.api.networking.v1.Ingress",
    "io.k8s.api.networking.v1.IngressClass",
    "io.k8s.api.networking.v1.NetworkPolicy",
    "io.k8s.api.policy.v1.PodDisruptionBudget",
    "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler",
    "io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler",
    "io.k8s.api.discovery.v1.EndpointSlice",
    "io.k8s.api.core.v1.Endpoints",
    "io.k8s.api.core.v1.PersistentVolume",
    "io.k8s.api.core.v1.PersistentVolumeClaim",
    "io.k8s.api.core.v1.ReplicationController",
    "io.k8s.api.core.v1.ResourceQuota",
    "io.k8s.api.core.v1.LimitRange",
    "io.k8s.api.core.v1.PodTemplate",
    "io.k8s.api.storage.v1.StorageClass",
    "io.k8s.api.storage.v1.CSIDriver",
    "io.k8s.api.storage.v1.CSINode",
    "io.k8s.api.storage.v1.VolumeAttachment",
    "io.k8s.api.storage.v1.CSIStorageCapacity",
    "io.k8s.api.scheduling.v1.PriorityClass",
    "io.k8s.api.node.v1.RuntimeClass",
    "io.k8s.api.networking.v1beta1.IPAddress",
    "io.k8s.api.networking.v1beta1.ServiceCIDR",
    "io.k8s.api.storage.v1beta1.VolumeAttributesClass",
    "io.k8s.api.storage.v1alpha1.VolumeAttributesClass",
    "io.k8s.api.certificates.v1alpha1.ClusterTrustBundle",
];

fn at<'a>(schema: &'a Schema, path: &[&str]) -> &'a Schema {
    path.iter().fold(schema, |s, field| {
        s.property(field)
            .or(s.items.as_deref().and_then(|i| i.property(field)))
            .unwrap_or_else(|| panic!("no field {field}"))
    })
}

/// Fields protobuf cannot write: every field but `apiVersion`/`kind` (the
/// envelope's) has a number, unless it is kept free-form.
fn unnumbered(schema: &Schema, path: &str, out: &mut Vec<String>) {
    for (name, field) in &schema.properties {
        let here = format!("{path}.{name}");
        // An embedded object's type fields (StatefulSet's claim templates)
        // are TypeMeta, which no message carries.
        let type_meta = name == "apiVersion" || name == "kind";
        if field.proto.is_none() && !field.preserve_unknown_fields && !type_meta {
            out.push(here.clone());
        }
        let element = field.items.as_deref().unwrap_or(field);
        let element = element.additional_properties.as_deref().unwrap_or(element);
        if !element.preserve_unknown_fields {
            unnumbered(element, &here, out);
        }
    }
}

#[test]
fn every_generated_field_has_a_protobuf_number() {
    for root in ROOTS {
        let schema = resource(root);
        let mut missing = Vec::new();
        for (name, field) in &schema.properties {
            if name != "apiVersion" && name != "kind" && name != "metadata" {
                if field.proto.is_none() {
                    missing.push(name.clone());
                }
                unnumbered(field, name, &mut missing);
            }
        }
        assert_eq!(missing, Vec::<String>::new(), "{root}");
    }
}

#[test]
fn a_deployment_has_kubernetes_shape() {
    let deployment = resource("io.k8s.api.apps.v1.Deployment");
    assert_eq!(deployment.required, ["metadata"]);
    let spec = at(&deployment, &["spec"]);
    assert_eq!(spec.required, ["selector", "template"]);
    assert_eq!(spec.proto, Some(2));
    let surge = at(
        &deployment,
        &["spec", "strategy", "rollingUpdate", "maxSurge"],
    );
    assert!(surge.int_or_string);
    assert_eq!(
        at(&deployment, &["spec", "strategy"])
            .patch_strategy
            .as_deref(),
        Some("retainKeys")
    );
    let containers = at(&deployment, &["spec", "template", "spec", "containers"]);
    assert_eq!(containers.patch_merge_key.as_deref(), Some("name"));
    let created = at(&deployment, &["metadata", "creationTimestamp"]);
    assert_eq!(created.format.as_deref(), Some("date-time"));
    let labels = at(&deployment, &["spec", "selector", "matchLabels"]);
    assert_eq!(
        labels.additional_properties.as_ref().and_then(|v| v.ty),
        Some(SchemaType::String)
    );
    assert!(
        !at(&deployment, &["spec", "strategy"])
            .description
            .is_empty()
    );
}

#[test]
fn a_cron_job_nests_a_job_template() {
    let cron_job = resource("io.k8s.api.batch.v1.CronJob");
    let job_spec = at(&cron_job, &["spec", "jobTemplate", "spec"]);
    assert!(job_spec.property("backoffLimit").is_some());
    let active = at(&cron_job, &["status", "active"]);
    assert_eq!(active.list_type.as_deref(), Some("atomic"));
    assert_eq!(
        at(&cron_job, &["status", "lastScheduleTime"])
            .format
            .as_deref(),
        Some("date-time")
    );
}
