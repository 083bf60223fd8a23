//! One generated built-in kind as data (names, rules, subresources, table
//! columns, the versions it is served in) and its registration, with the
//! schema of each version taken from `generated`.

use std::sync::Arc;

use super::generated::resource;
use super::kind_rules::KindRules;
use crate::api::kind::{Column, KindSpec, StorageBinding, Strategy, Subresources};
use crate::api::registry::Registry;
use crate::api::schema::Schema;
use crate::config::Config;

/// One kind's data beyond its names.
pub struct Entry {
    pub group: String,
    /// The version objects are stored in.
    pub version: &'static str,
    pub kind: &'static str,
    pub resource: &'static str,
    pub namespaced: bool,
    pub short_names: &'static [&'static str],
    /// In the `all` category (`kubectl get all`).
    pub all: bool,
    pub strategy: KindRules,
    pub subresources: Subresources,
    /// A status sent on create is replaced by the schema's defaults, as
    /// Kubernetes' strategies clear it (ServiceCIDR's keeps it).
    pub fresh_status: bool,
    pub columns: Vec<Column>,
    pub fields: &'static [&'static str],
    /// Further versions serving the same stored objects; only `apiVersion`
    /// differs between them.
    pub also_served_as: &'static [&'static str],
    /// The feature gate without which Kubernetes installs no storage.
    pub gate: Option<&'static str>,
    /// PUT without `metadata.resourceVersion` is allowed.
    pub unconditional_update: bool,
    pub return_deleted_object: bool,
}

/// A kind stored in `v1` with no rules, subresources or short names.
pub fn plain(
    group: &str,
    kind: &'static str,
    resource: &'static str,
    namespaced: bool,
    columns: Vec<Column>,
) -> Entry {
    Entry {
        group: group.to_owned(),
        version: "v1",
        kind,
        resource,
        namespaced,
        short_names: &[],
        all: false,
        strategy: KindRules::default(),
        subresources: Subresources::default(),
        fresh_status: true,
        columns,
        fields: &[],
        also_served_as: &[],
        gate: None,
        unconditional_update: true,
        return_deleted_object: false,
    }
}

/// A `/status` subresource and nothing more.
#[must_use]
pub fn with_status() -> Subresources {
    Subresources {
        status: true,
        ..Subresources::default()
    }
}

/// The status a new object starts with: the schema's defaults.
#[must_use]
pub fn status_of(schema: &Schema) -> Option<Schema> {
    Some(schema.property("status").cloned().unwrap_or_default())
}

/// Kubernetes' OpenAPI name of the kind in `version`
/// (`io.k8s.api.storage.v1beta1.VolumeAttributesClass`).
#[must_use]
pub fn definition(e: &Entry, version: &str) -> String {
    let package = match e.group.split('.').next().unwrap_or_default() {
        "" => "core",
        first => first,
    };
    format!("io.k8s.api.{package}.{version}.{}", e.kind)
}

fn owned(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| (*s).to_owned()).collect()
}

/// Registers every entry whose gate is on, in each version it is served in.
pub fn register(r: &Registry, config: &Config, entries: Vec<Entry>) {
    for mut e in entries {
        if e.gate.is_some_and(|g| !config.feature_gates.enabled(g)) {
            continue;
        }
        let schema = resource(&definition(&e, e.version));
        if e.subresources.status && e.fresh_status {
            e.strategy.fresh_status = status_of(&schema);
        }
        let strategy: Arc<dyn Strategy> = Arc::new(std::mem::take(&mut e.strategy));
        let spec = |version: &str, schema: Schema| KindSpec {
            short_names: owned(e.short_names),
            categories: if e.all {
                vec!["all".into()]
            } else {
                Vec::new()
            },
            strategy: Arc::clone(&strategy),
            selectable_fields: owned(e.fields),
            subresources: e.subresources.clone(),
            columns: e.columns.clone(),
            unconditional_update: e.unconditional_update,
            return_deleted_object: e.return_deleted_object,
            ..KindSpec::new(&e.group, version, e.kind, e.resource, e.namespaced, schema)
        };
        let stored = spec(e.version, schema);
        let storage: StorageBinding = stored.storage.clone();
        r.add(stored);
        for version in e.also_served_as {
            let schema = resource(&definition(&e, version));
            r.add(KindSpec {
                storage: storage.clone(),
                ..spec(version, schema)
            });
        }
    }
}
