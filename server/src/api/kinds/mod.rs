//! The built-in kinds, as data: a `KindSpec` per kind, its schema from the
//! kind's own file, and a strategy only where Kubernetes has special rules.

pub mod admission_policies;
pub mod admission_policies_rules;
pub mod admission_webhooks;
pub mod admission_webhooks_rules;
pub mod api_service;
pub mod apps_table;
pub mod authentication;
pub mod authorization;
pub mod autoscaler_table;
pub mod autoscaling_v1;
pub mod batch_table;
pub mod binding;
pub mod budget_rules;
pub mod builtin_entry;
pub mod catalog;
pub mod checks;
pub mod cluster_kinds;
pub mod cluster_rules;
pub mod config_map;
pub mod config_map_strategy;
pub mod config_table;
pub mod controller_revision_strategy;
pub mod core_rules;
pub mod core_table;
pub mod crd;
mod crd_validation;
pub mod cron_schedule;
pub mod csr;
mod csr_pem;
pub mod csr_rules;
pub mod custom_resource;
pub mod data_keys;
pub mod event;
pub mod event_table;
pub mod events_v1;
pub mod flowcontrol;
pub mod flowcontrol_bootstrap;
mod flowcontrol_level_rules;
mod flowcontrol_rules;
pub mod flowcontrol_strategy;
pub mod generated;
pub mod ingress_rules;
pub mod job_strategy;
pub mod kind_rules;
pub mod label_selector;
pub mod lease;
pub mod limit_range;
pub mod namespace;
pub mod namespace_strategy;
pub mod networking;
pub mod networking_table;
pub mod node;
pub mod node_table;
pub mod pod;
pub mod pod_defaults;
pub mod pod_qos;
pub mod pod_spec;
pub mod pod_strategy;
#[cfg(test)]
mod pod_strategy_tests;
pub mod pod_summary;
pub mod pod_table;
pub mod prerelease_kinds;
pub mod prerelease_rules;
pub mod prerelease_table;
pub mod rbac_binding;
pub mod rbac_role;
pub mod rbac_table;
pub mod secret;
pub mod secret_strategy;
pub mod service;
pub mod service_account;
pub mod service_alloc;
pub mod service_strategy;
pub mod service_table;
pub mod storage_table;
pub mod trust_bundle_rules;
pub mod versions;
pub mod volume_table;
pub mod workload_cells;
pub mod workload_defaults;
pub mod workload_strategy;
pub mod workloads;

/// The schema's validation messages for an object, as kind tests compare them.
#[cfg(test)]
pub(crate) fn schema_errors(
    schema: &crate::api::schema::Schema,
    obj: &serde_json::Value,
) -> Vec<String> {
    crate::api::schema::validate(schema, obj)
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// A strategy's causes as `field: message` lines, as kind tests compare them.
#[cfg(test)]
pub(crate) fn cause_lines(causes: &[crate::api::error::Cause]) -> Vec<String> {
    causes
        .iter()
        .map(|c| format!("{}: {}", c.field, c.message))
        .collect()
}

use std::sync::Arc;

use crate::api::kind::{Column, KindSpec, StorageBinding, Subresources};
use crate::api::registry::Registry;
use crate::config::Config;

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_string()).collect()
}

fn own_fields(list: &[&str]) -> Vec<String> {
    list.iter()
        .filter(|f| !f.starts_with("metadata."))
        .map(|s| (*s).to_string())
        .collect()
}

/// Every built-in kind, configured.
#[must_use]
pub fn builtin(config: &Config) -> Registry {
    let r = versions::registry(config);
    r.add(KindSpec {
        short_names: names(&["ns"]),
        strategy: Arc::new(namespace_strategy::NamespaceStrategy),
        selectable_fields: own_fields(namespace::FIELD_SELECTORS),
        return_deleted_object: true,
        subresources: Subresources {
            status: true,
            ..Subresources::default()
        },
        columns: vec![
            Column::name(),
            Column::new(
                "Status",
                "string",
                0,
                ".status.phase",
                "The status of the namespace",
            ),
            Column::age(),
        ],
        ..KindSpec::new(
            "",
            "v1",
            "Namespace",
            "namespaces",
            false,
            namespace::schema(),
        )
    });
    r.add(KindSpec {
        short_names: names(&["ev"]),
        selectable_fields: own_fields(event::FIELD_SELECTORS),
        field_value: event::field_value,
        allow_create_on_update: true,
        ttl: Some(config.event_ttl),
        garbage_collected: false,
        columns: event_table::columns(),
        ..KindSpec::new("", "v1", "Event", "events", true, event::schema())
    });
    catalog::add_catalog(&r, config);
    binding::add(&r);
    workloads::add_workloads(&r);
    networking::add_networking(&r, config);
    cluster_kinds::add_cluster_kinds(&r, config);
    prerelease_kinds::add_prerelease_kinds(&r, config);
    api_service::add_api_service(&r, &config.api_domain);
    csr::add_csr(&r, &config.api_domain);
    add_flowcontrol(&r, config);
    admission_webhooks::add_webhook_configurations(&r, &config.api_domain);
    admission_policies::add_admission_policies(&r, &config.api_domain);
    let core_events = r.lookup("", "v1", "events").expect("just added");
    r.add(KindSpec {
        short_names: names(&["ev"]),
        strategy: Arc::new(events_v1::EventsV1Strategy),
        selectable_fields: own_fields(events_v1::FIELD_SELECTORS),
        allow_create_on_update: true,
        ttl: Some(config.event_ttl),
        garbage_collected: false,
        storage: StorageBinding {
            conversion: Some(Arc::new(events_v1::EventsV1Conversion)),
            ..core_events.storage.clone()
        },
        columns: event_table::columns(),
        ..KindSpec::new(
            &format!("events.{}", config.api_domain),
            "v1",
            "Event",
            "events",
            true,
            events_v1::schema(),
        )
    });
    r.add(KindSpec {
        short_names: names(&["crd", "crds"]),
        categories: names(&["api-extensions"]),
        strategy: Arc::new(crd::CrdStrategy {
            finalizer: crd::cleanup_finalizer(&config.api_domain),
        }),
        return_deleted_object: true,
        subresources: Subresources {
            status: true,
            ..Subresources::default()
        },
        tracks_generation: true,
        ..KindSpec::new(
            &format!("apiextensions.{}", config.api_domain),
            "v1",
            "CustomResourceDefinition",
            "customresourcedefinitions",
            false,
            crd::schema(),
        )
    });
    r
}

/// `flowcontrol.apiserver.{domain}/v1`: FlowSchema and
/// PriorityLevelConfiguration, cluster-scoped, with status.
fn add_flowcontrol(r: &Registry, config: &Config) {
    use flowcontrol_bootstrap::Bootstrap;
    use flowcontrol_strategy::{FlowSchemaStrategy, PriorityLevelStrategy};
    let group = format!("flowcontrol.apiserver.{}", config.api_domain);
    let with_status = Subresources {
        status: true,
        ..Subresources::default()
    };
    r.add(KindSpec {
        strategy: Arc::new(FlowSchemaStrategy {
            bootstrap: Bootstrap::new(&config.api_domain),
        }),
        columns: flowcontrol::flow_schema_columns(),
        subresources: with_status.clone(),
        tracks_generation: true,
        ..KindSpec::new(
            &group,
            "v1",
            "FlowSchema",
            "flowschemas",
            false,
            flowcontrol::flow_schema_schema(),
        )
    });
    r.add(KindSpec {
        strategy: Arc::new(PriorityLevelStrategy {
            bootstrap: Bootstrap::new(&config.api_domain),
        }),
        columns: flowcontrol::priority_level_columns(),
        subresources: with_status,
        tracks_generation: true,
        ..KindSpec::new(
            &group,
            "v1",
            "PriorityLevelConfiguration",
            "prioritylevelconfigurations",
            false,
            flowcontrol::priority_level_schema(),
        )
    });
}
