//! The built-in kinds of issue #8 as one table: core ConfigMap, Secret,
//! ServiceAccount, Pod, Service and Node, coordination Lease, and the four
//! RBAC kinds. Each entry is names, scope, schema, strategy and columns;
//! everything else is `KindSpec::new`'s defaults.

use std::sync::Arc;

use crate::api::kind::{Column, KindSpec, Subresources};
use crate::api::registry::Registry;
use crate::config::Config;

use super::config_map_strategy::ConfigMapStrategy;
use super::pod_strategy::PodStrategy;
use super::rbac_binding::BindingStrategy;
use super::rbac_role::RoleStrategy;
use super::secret_strategy::SecretStrategy;
use super::service_alloc::AllocatingServiceStrategy;
use super::{
    config_map, config_table, lease, node, pod, rbac_binding, rbac_role, rbac_table, secret,
    service, service_account,
};

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_string()).collect()
}

/// Field selectors beyond `metadata.name`/`metadata.namespace`, which every kind has.
fn own_fields(list: &[&str]) -> Vec<String> {
    list.iter()
        .filter(|f| !f.starts_with("metadata."))
        .map(|s| (*s).to_string())
        .collect()
}

fn with_status() -> Subresources {
    Subresources {
        status: true,
        ..Subresources::default()
    }
}

fn binding_columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::computed(
            "Role",
            "string",
            0,
            rbac_table::role,
            "Role or ClusterRole the binding grants.",
        ),
        Column::age(),
        Column::computed(
            "Users",
            "string",
            1,
            rbac_table::users,
            "Users in the binding.",
        ),
        Column::computed(
            "Groups",
            "string",
            1,
            rbac_table::groups,
            "Groups in the binding.",
        ),
        Column::computed(
            "ServiceAccounts",
            "string",
            1,
            rbac_table::service_accounts,
            "ServiceAccounts in the binding.",
        ),
    ]
}

/// Registers the kinds of this catalog; Kubernetes 1.32 keeps none of
/// their generations, so `tracks_generation` stays at its `false` default.
pub fn add_catalog(r: &Registry, config: &Config) {
    r.add(KindSpec {
        short_names: names(&["cm"]),
        strategy: Arc::new(ConfigMapStrategy),
        columns: config_table::config_map_columns(),
        ..KindSpec::new(
            "",
            "v1",
            "ConfigMap",
            "configmaps",
            true,
            config_map::schema(),
        )
    });
    r.add(KindSpec {
        strategy: Arc::new(SecretStrategy),
        selectable_fields: names(&["type"]),
        columns: config_table::secret_columns(),
        ..KindSpec::new("", "v1", "Secret", "secrets", true, secret::schema())
    });
    r.add(KindSpec {
        short_names: names(&["sa"]),
        columns: config_table::service_account_columns(),
        subresources: Subresources {
            token_request: true,
            ..Subresources::default()
        },
        ..KindSpec::new(
            "",
            "v1",
            "ServiceAccount",
            "serviceaccounts",
            true,
            service_account::schema(),
        )
    });
    r.add(KindSpec {
        short_names: names(&["po"]),
        categories: names(&["all"]),
        strategy: Arc::new(PodStrategy),
        selectable_fields: own_fields(pod::FIELD_SELECTORS),
        field_value: pod::field_value,
        columns: pod::columns(),
        // Kubernetes answers pod and service deletes with the object.
        return_deleted_object: true,
        subresources: Subresources {
            status: true,
            eviction: true,
            binding: true,
            ..Subresources::default()
        },
        ..KindSpec::new("", "v1", "Pod", "pods", true, pod::schema())
    });
    r.add(KindSpec {
        short_names: names(&["svc"]),
        categories: names(&["all"]),
        strategy: Arc::new(AllocatingServiceStrategy::from_config(config)),
        columns: service::columns(),
        return_deleted_object: true,
        subresources: with_status(),
        ..KindSpec::new("", "v1", "Service", "services", true, service::schema())
    });
    r.add(KindSpec {
        short_names: names(&["no"]),
        selectable_fields: own_fields(node::FIELD_SELECTORS),
        field_value: node::field_value,
        columns: node::columns(),
        subresources: with_status(),
        ..KindSpec::new("", "v1", "Node", "nodes", false, node::schema())
    });
    let coordination = format!("coordination.{}", config.api_domain);
    r.add(KindSpec {
        columns: lease::columns(),
        ..KindSpec::new(
            &coordination,
            "v1",
            "Lease",
            "leases",
            true,
            lease::schema(),
        )
    });
    let rbac = format!("rbac.authorization.{}", config.api_domain);
    r.add(KindSpec {
        strategy: Arc::new(RoleStrategy { namespaced: true }),
        ..KindSpec::new(&rbac, "v1", "Role", "roles", true, rbac_role::role_schema())
    });
    r.add(KindSpec {
        strategy: Arc::new(RoleStrategy { namespaced: false }),
        ..KindSpec::new(
            &rbac,
            "v1",
            "ClusterRole",
            "clusterroles",
            false,
            rbac_role::cluster_role_schema(),
        )
    });
    r.add(KindSpec {
        strategy: Arc::new(BindingStrategy {
            group: rbac.clone(),
            namespaced: true,
        }),
        columns: binding_columns(),
        ..KindSpec::new(
            &rbac,
            "v1",
            "RoleBinding",
            "rolebindings",
            true,
            rbac_binding::role_binding_schema(),
        )
    });
    r.add(KindSpec {
        strategy: Arc::new(BindingStrategy {
            group: rbac.clone(),
            namespaced: false,
        }),
        columns: binding_columns(),
        ..KindSpec::new(
            &rbac,
            "v1",
            "ClusterRoleBinding",
            "clusterrolebindings",
            false,
            rbac_binding::cluster_role_binding_schema(),
        )
    });
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::config::Flags;

    fn registry(domain: &str) -> Registry {
        let config = Config::from(Flags::parse_from([
            "cairn-apiserver",
            "--api-domain",
            domain,
        ]));
        let r = Registry::default();
        add_catalog(&r, &config);
        r
    }

    #[test]
    fn every_kind_is_served_under_its_group() {
        let r = registry("k8s.io");
        for (group, resource, kind, namespaced) in [
            ("", "configmaps", "ConfigMap", true),
            ("", "secrets", "Secret", true),
            ("", "serviceaccounts", "ServiceAccount", true),
            ("", "pods", "Pod", true),
            ("", "services", "Service", true),
            ("", "nodes", "Node", false),
            ("coordination.k8s.io", "leases", "Lease", true),
            ("rbac.authorization.k8s.io", "roles", "Role", true),
            (
                "rbac.authorization.k8s.io",
                "rolebindings",
                "RoleBinding",
                true,
            ),
            (
                "rbac.authorization.k8s.io",
                "clusterroles",
                "ClusterRole",
                false,
            ),
            (
                "rbac.authorization.k8s.io",
                "clusterrolebindings",
                "ClusterRoleBinding",
                false,
            ),
        ] {
            let k = r
                .lookup(group, "v1", resource)
                .unwrap_or_else(|| panic!("{group}/{resource}"));
            assert_eq!(k.kind, kind);
            assert_eq!(k.namespaced, namespaced, "{resource}");
            assert!(!k.tracks_generation, "{resource}");
        }
        let svc_io = registry("svc.io");
        assert!(
            svc_io
                .lookup("coordination.svc.io", "v1", "leases")
                .is_some()
        );
        assert!(
            svc_io
                .lookup("rbac.authorization.svc.io", "v1", "roles")
                .is_some()
        );
        assert!(
            svc_io
                .lookup("coordination.k8s.io", "v1", "leases")
                .is_none()
        );
    }

    #[test]
    fn names_subresources_and_selectors_follow_kubernetes() {
        let r = registry("k8s.io");
        let pods = r.lookup("", "v1", "pods").unwrap();
        assert_eq!(pods.short_names, ["po"]);
        assert_eq!(pods.categories, ["all"]);
        assert!(pods.subresources.status && pods.subresources.eviction);
        assert!(
            pods.selectable("spec.nodeName")
                && pods.selectable("status.podIP")
                && pods.selectable("spec.hostNetwork")
        );
        assert!(!pods.selectable("spec.priority"));
        assert_eq!(
            pods.strategy
                .default_grace_period_seconds(&serde_json::json!({})),
            Some(30)
        );
        let names: Vec<&str> = pods.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Name",
                "Ready",
                "Status",
                "Restarts",
                "Age",
                "IP",
                "Node",
                "Nominated Node",
                "Readiness Gates"
            ]
        );
        let svc = r.lookup("", "v1", "services").unwrap();
        assert_eq!(
            (svc.short_names.as_slice(), svc.categories.as_slice()),
            (&["svc".to_string()][..], &["all".to_string()][..])
        );
        assert!(svc.subresources.status && !svc.subresources.eviction);
        let nodes = r.lookup("", "v1", "nodes").unwrap();
        assert_eq!(nodes.short_names, ["no"]);
        assert!(nodes.subresources.status && nodes.selectable("spec.unschedulable"));
        assert_eq!(
            r.lookup("", "v1", "configmaps").unwrap().short_names,
            ["cm"]
        );
        assert_eq!(
            r.lookup("", "v1", "serviceaccounts").unwrap().short_names,
            ["sa"]
        );
        assert!(r.lookup("", "v1", "secrets").unwrap().selectable("type"));
        let crb = r
            .lookup("rbac.authorization.k8s.io", "v1", "clusterrolebindings")
            .unwrap();
        assert_eq!(
            crb.storage.prefix,
            "/registry/rbac.authorization.k8s.io/clusterrolebindings/"
        );
        let roles = r
            .lookup("rbac.authorization.k8s.io", "v1", "roles")
            .unwrap();
        let role_names: Vec<&str> = roles.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(role_names, ["Name", "Created At"]);
    }
}
