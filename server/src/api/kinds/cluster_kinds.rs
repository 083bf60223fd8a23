//! The further built-in kinds as data: core/v1 Endpoints, PersistentVolume,
//! PersistentVolumeClaim, ReplicationController, ResourceQuota, LimitRange
//! and PodTemplate; `autoscaling/v2` HorizontalPodAutoscaler;
//! `discovery.{domain}/v1` EndpointSlice; `storage.{domain}/v1`,
//! `scheduling.{domain}/v1` and `node.{domain}/v1` kinds.

use std::sync::Arc;

use super::builtin_entry::{Entry, plain, register, status_of, with_status};
use super::cluster_rules as rules;
use super::generated::resource;
use super::kind_rules::KindRules;
use super::{
    autoscaler_table, autoscaling_v1, core_rules, core_table, storage_table, volume_table,
};
use crate::api::kind::{Column, KindSpec, ScalePaths, StorageBinding, Subresources};
use crate::api::registry::Registry;
use crate::config::Config;

fn core_entries() -> Vec<Entry> {
    vec![
        Entry {
            short_names: &["ep"],
            ..plain(
                "",
                "Endpoints",
                "endpoints",
                true,
                core_table::endpoints_columns(),
            )
        },
        Entry {
            short_names: &["pv"],
            strategy: KindRules {
                defaults: core_rules::volume_defaults,
                checks: core_rules::volume_checks,
                ..KindRules::default()
            },
            subresources: with_status(),
            ..plain(
                "",
                "PersistentVolume",
                "persistentvolumes",
                false,
                volume_table::persistent_volume_columns(),
            )
        },
        Entry {
            short_names: &["pvc"],
            strategy: KindRules {
                defaults: core_rules::claim_defaults,
                checks: core_rules::claim_checks,
                ..KindRules::default()
            },
            subresources: with_status(),
            ..plain(
                "",
                "PersistentVolumeClaim",
                "persistentvolumeclaims",
                true,
                volume_table::persistent_volume_claim_columns(),
            )
        },
        Entry {
            short_names: &["rc"],
            all: true,
            strategy: KindRules {
                defaults: core_rules::replication_controller_defaults,
                checks: core_rules::replication_controller_checks,
                ..KindRules::default()
            },
            subresources: Subresources {
                scale: Some(ScalePaths {
                    spec_replicas: ".spec.replicas".into(),
                    status_replicas: ".status.replicas".into(),
                    label_selector: Some(".spec.selector".into()),
                }),
                ..with_status()
            },
            fields: &["status.replicas"],
            ..plain(
                "",
                "ReplicationController",
                "replicationcontrollers",
                true,
                core_table::replication_controller_columns(),
            )
        },
        Entry {
            short_names: &["quota"],
            subresources: with_status(),
            ..plain(
                "",
                "ResourceQuota",
                "resourcequotas",
                true,
                core_table::resource_quota_columns(),
            )
        },
        Entry {
            short_names: &["limits"],
            strategy: KindRules {
                defaults: super::limit_range::defaults,
                checks: super::limit_range::checks,
                ..KindRules::default()
            },
            ..plain("", "LimitRange", "limitranges", true, Column::defaults())
        },
        plain(
            "",
            "PodTemplate",
            "podtemplates",
            true,
            core_table::pod_template_columns(),
        ),
        Entry {
            version: "v2",
            short_names: &["hpa"],
            all: true,
            strategy: KindRules {
                defaults: rules::autoscaler_defaults,
                checks: rules::autoscaler_checks,
                ..KindRules::default()
            },
            subresources: with_status(),
            ..plain(
                "autoscaling",
                "HorizontalPodAutoscaler",
                "horizontalpodautoscalers",
                true,
                autoscaler_table::autoscaler_columns(),
            )
        },
    ]
}

fn cluster_entries(domain: &str) -> Vec<Entry> {
    let storage = format!("storage.{domain}");
    vec![
        Entry {
            strategy: KindRules {
                checks: rules::endpoint_slice_checks,
                immutable: &["addressType"],
                ..KindRules::default()
            },
            ..plain(
                &format!("discovery.{domain}"),
                "EndpointSlice",
                "endpointslices",
                true,
                core_table::endpoint_slice_columns(),
            )
        },
        Entry {
            short_names: &["sc"],
            strategy: KindRules {
                defaults: rules::storage_class_defaults,
                checks: rules::storage_class_checks,
                immutable: &["provisioner", "reclaimPolicy", "volumeBindingMode"],
                ..KindRules::default()
            },
            ..plain(
                &storage,
                "StorageClass",
                "storageclasses",
                false,
                storage_table::storage_class_columns(),
            )
        },
        Entry {
            strategy: KindRules {
                defaults: rules::csi_driver_defaults,
                immutable: &[
                    "spec.attachRequired",
                    "spec.podInfoOnMount",
                    "spec.volumeLifecycleModes",
                ],
                ..KindRules::default()
            },
            ..plain(
                &storage,
                "CSIDriver",
                "csidrivers",
                false,
                storage_table::csi_driver_columns(),
            )
        },
        plain(
            &storage,
            "CSINode",
            "csinodes",
            false,
            storage_table::csi_node_columns(),
        ),
        Entry {
            strategy: KindRules {
                checks: rules::volume_attachment_checks,
                immutable: &["spec"],
                ..KindRules::default()
            },
            subresources: with_status(),
            ..plain(
                &storage,
                "VolumeAttachment",
                "volumeattachments",
                false,
                storage_table::volume_attachment_columns(),
            )
        },
        Entry {
            strategy: KindRules {
                immutable: &["storageClassName"],
                ..KindRules::default()
            },
            ..plain(
                &storage,
                "CSIStorageCapacity",
                "csistoragecapacities",
                true,
                storage_table::storage_capacity_columns(),
            )
        },
        Entry {
            short_names: &["pc"],
            strategy: KindRules {
                defaults: rules::priority_class_defaults,
                checks: rules::priority_class_checks,
                update_checks: rules::priority_class_update_causes,
                ..KindRules::default()
            },
            ..plain(
                &format!("scheduling.{domain}"),
                "PriorityClass",
                "priorityclasses",
                false,
                storage_table::priority_class_columns(),
            )
        },
        Entry {
            strategy: KindRules {
                checks: rules::runtime_class_checks,
                immutable: &["handler"],
                ..KindRules::default()
            },
            ..plain(
                &format!("node.{domain}"),
                "RuntimeClass",
                "runtimeclasses",
                false,
                storage_table::runtime_class_columns(),
            )
        },
    ]
}

/// Registers the kinds this file lists.
pub fn add_cluster_kinds(r: &Registry, config: &Config) {
    let entries = core_entries()
        .into_iter()
        .chain(cluster_entries(&config.api_domain))
        .collect();
    register(r, config, entries);
    add_autoscaling_v1(r);
}

/// `autoscaling/v1` HorizontalPodAutoscaler: the v2 objects, converted.
fn add_autoscaling_v1(r: &Registry) {
    let v2 = r
        .lookup("autoscaling", "v2", "horizontalpodautoscalers")
        .expect("just added");
    let schema = resource("io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler");
    r.add(KindSpec {
        short_names: vec!["hpa".into()],
        categories: vec!["all".into()],
        strategy: Arc::new(KindRules {
            defaults: autoscaler_table::v1_defaults,
            checks: rules::autoscaler_checks,
            fresh_status: status_of(&schema),
            ..KindRules::default()
        }),
        subresources: with_status(),
        storage: StorageBinding {
            conversion: Some(Arc::new(autoscaling_v1::AutoscalingV1Conversion)),
            ..v2.storage.clone()
        },
        columns: autoscaler_table::v1_columns(),
        ..KindSpec::new(
            "autoscaling",
            "v1",
            "HorizontalPodAutoscaler",
            "horizontalpodautoscalers",
            true,
            schema,
        )
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::kinds::builtin_entry::definition;

    #[test]
    fn every_entry_names_a_generated_definition() {
        for e in core_entries().into_iter().chain(cluster_entries("k8s.io")) {
            let schema = resource(&definition(&e, e.version));
            assert!(schema.property("metadata").is_some(), "{}", e.kind);
        }
    }
}
