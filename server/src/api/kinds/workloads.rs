//! The apps/v1 and batch/v1 kinds as data: names, schemas from the
//! generator, strategies, subresources and columns.

use std::sync::Arc;

use super::controller_revision_strategy::ControllerRevisionStrategy;
use super::generated::resource;
use super::job_strategy::{CronJobStrategy, JobStrategy};
use super::workload_defaults::Workload;
use super::workload_strategy::WorkloadStrategy;
use super::{apps_table, batch_table};
use serde_json::Value;

use crate::api::kind::{Column, KindSpec, ScalePaths, Strategy, Subresources, field_by_path};
use crate::api::registry::Registry;
use crate::api::schema::Schema;

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_string()).collect()
}

fn with_status() -> Subresources {
    Subresources {
        status: true,
        ..Subresources::default()
    }
}

/// Status and an `autoscaling/v1` Scale over `spec.replicas`.
fn scalable() -> Subresources {
    Subresources {
        scale: Some(ScalePaths {
            spec_replicas: ".spec.replicas".into(),
            status_replicas: ".status.replicas".into(),
            label_selector: Some(".spec.selector".into()),
        }),
        ..with_status()
    }
}

struct Entry {
    group: &'static str,
    kind: &'static str,
    resource: &'static str,
    short_names: &'static [&'static str],
    workload: Workload,
    subresources: Subresources,
    columns: Vec<Column>,
    fields: &'static [&'static str],
}

/// Selectable counts (`status.successful`, `status.replicas`) read 0 when
/// unset, as Kubernetes formats Go's zero int.
fn count_field(obj: &Value, field: &str) -> Option<String> {
    match field_by_path(obj, field) {
        Some(text) if text.is_empty() && field.starts_with("status.") => Some("0".into()),
        other => other,
    }
}

/// The kind's strategy, given its `status` schema.
fn strategy(workload: Workload, status: Schema) -> Arc<dyn Strategy> {
    match workload {
        Workload::Job => Arc::new(JobStrategy { status }),
        Workload::CronJob => Arc::new(CronJobStrategy { status }),
        _ => Arc::new(WorkloadStrategy { workload, status }),
    }
}

fn entries() -> Vec<Entry> {
    vec![
        Entry {
            group: "apps",
            kind: "Deployment",
            resource: "deployments",
            short_names: &["deploy"],
            workload: Workload::Deployment,
            subresources: scalable(),
            columns: apps_table::deployment_columns(),
            fields: &[],
        },
        Entry {
            group: "apps",
            kind: "ReplicaSet",
            resource: "replicasets",
            short_names: &["rs"],
            workload: Workload::ReplicaSet,
            subresources: scalable(),
            columns: apps_table::replica_set_columns(),
            fields: &["status.replicas"],
        },
        Entry {
            group: "apps",
            kind: "StatefulSet",
            resource: "statefulsets",
            short_names: &["sts"],
            workload: Workload::StatefulSet,
            subresources: scalable(),
            columns: apps_table::stateful_set_columns(),
            fields: &[],
        },
        Entry {
            group: "apps",
            kind: "DaemonSet",
            resource: "daemonsets",
            short_names: &["ds"],
            workload: Workload::DaemonSet,
            subresources: with_status(),
            columns: apps_table::daemon_set_columns(),
            fields: &[],
        },
        Entry {
            group: "batch",
            kind: "Job",
            resource: "jobs",
            short_names: &[],
            workload: Workload::Job,
            subresources: with_status(),
            columns: batch_table::job_columns(),
            fields: &["status.successful"],
        },
        Entry {
            group: "batch",
            kind: "CronJob",
            resource: "cronjobs",
            short_names: &["cj"],
            workload: Workload::CronJob,
            subresources: with_status(),
            columns: batch_table::cron_job_columns(),
            fields: &[],
        },
    ]
}

/// Registers apps/v1 (Deployment, ReplicaSet, StatefulSet, DaemonSet,
/// ControllerRevision) and batch/v1 (Job, CronJob). The workloads are in
/// the `all` category and track `metadata.generation`, as in Kubernetes.
pub fn add_workloads(r: &Registry) {
    for e in entries() {
        let schema = resource(&format!("io.k8s.api.{}.v1.{}", e.group, e.kind));
        let status = schema.property("status").cloned().unwrap_or_default();
        r.add(KindSpec {
            short_names: names(e.short_names),
            categories: names(&["all"]),
            strategy: strategy(e.workload, status),
            selectable_fields: names(e.fields),
            field_value: count_field,
            subresources: e.subresources,
            columns: e.columns,
            tracks_generation: true,
            ..KindSpec::new(e.group, "v1", e.kind, e.resource, true, schema)
        });
    }
    r.add(KindSpec {
        strategy: Arc::new(ControllerRevisionStrategy),
        columns: apps_table::controller_revision_columns(),
        ..KindSpec::new(
            "apps",
            "v1",
            "ControllerRevision",
            "controllerrevisions",
            true,
            resource("io.k8s.api.apps.v1.ControllerRevision"),
        )
    });
}
