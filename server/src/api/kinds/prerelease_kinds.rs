//! The alpha and beta built-in kinds Kubernetes 1.32 still has in the
//! groups cairn serves, as data: `networking.{domain}/v1beta1` IPAddress
//! and ServiceCIDR, VolumeAttributesClass in `storage.{domain}/v1beta1` and
//! `v1alpha1` (one stored object), and `certificates.{domain}/v1alpha1`
//! ClusterTrustBundle (behind its feature gate too). Like every alpha and
//! beta version they are served only when `--runtime-config` turns them on.

use super::builtin_entry::{Entry, plain, register, with_status};
use super::kind_rules::KindRules;
use super::{prerelease_rules as rules, prerelease_table as table, trust_bundle_rules};
use crate::api::kind::NameRule;
use crate::api::registry::Registry;
use crate::config::Config;

/// The feature gate ClusterTrustBundle storage needs besides its version.
pub const CLUSTER_TRUST_BUNDLE_GATE: &str = "ClusterTrustBundle";

fn entries(domain: &str) -> Vec<Entry> {
    let networking = format!("networking.{domain}");
    vec![
        Entry {
            version: "v1beta1",
            short_names: &["ip"],
            strategy: KindRules {
                checks: rules::ip_address_checks,
                immutable: &["spec.parentRef"],
                name_rule: NameRule::Own,
                ..KindRules::default()
            },
            ..plain(
                &networking,
                "IPAddress",
                "ipaddresses",
                false,
                table::ip_address_columns(),
            )
        },
        Entry {
            version: "v1beta1",
            strategy: KindRules {
                checks: rules::service_cidr_checks,
                immutable: &["spec.cidrs"],
                ..KindRules::default()
            },
            subresources: with_status(),
            // Kube's strategy keeps a status sent on create.
            fresh_status: false,
            ..plain(
                &networking,
                "ServiceCIDR",
                "servicecidrs",
                false,
                table::service_cidr_columns(),
            )
        },
        Entry {
            version: "v1beta1",
            also_served_as: &["v1alpha1"],
            short_names: &["vac"],
            strategy: KindRules {
                checks: rules::volume_attributes_class_checks,
                update_checks: rules::volume_attributes_class_update_checks,
                ..KindRules::default()
            },
            return_deleted_object: true,
            ..plain(
                &format!("storage.{domain}"),
                "VolumeAttributesClass",
                "volumeattributesclasses",
                false,
                table::volume_attributes_class_columns(),
            )
        },
        Entry {
            version: "v1alpha1",
            strategy: KindRules {
                checks: trust_bundle_rules::checks,
                update_checks: trust_bundle_rules::update_checks,
                name_rule: NameRule::Own,
                ..KindRules::default()
            },
            fields: &["spec.signerName"],
            gate: Some(CLUSTER_TRUST_BUNDLE_GATE),
            unconditional_update: false,
            ..plain(
                &format!("certificates.{domain}"),
                "ClusterTrustBundle",
                "clustertrustbundles",
                false,
                table::trust_bundle_columns(),
            )
        },
    ]
}

/// Registers the kinds this file lists (served or kept aside as
/// `--runtime-config` says).
pub fn add_prerelease_kinds(r: &Registry, config: &Config) {
    register(r, config, entries(&config.api_domain));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::kinds::builtin_entry::definition;
    use crate::api::kinds::generated::resource;

    #[test]
    fn every_entry_names_a_generated_definition_in_each_version() {
        for e in entries("k8s.io") {
            for version in std::iter::once(&e.version).chain(e.also_served_as) {
                let schema = resource(&definition(&e, version));
                assert!(schema.property("metadata").is_some(), "{}", e.kind);
            }
        }
    }
}
