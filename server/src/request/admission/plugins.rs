//! Which admission plugins run: kube-apiserver's plugin names in its fixed
//! order, its default-on set, and `--enable-admission-plugins` /
//! `--disable-admission-plugins` applied to them. Only the plugins cairn
//! implements can run; naming one of kube's others is accepted (so kube
//! command lines start) and logged, naming no plugin at all is refused as
//! kube refuses it.

use std::collections::BTreeSet;

use crate::config::AdmissionFlags;
use crate::request::admission::default_toleration_seconds::DEFAULT_TOLERATION_SECONDS;
use crate::request::admission::limit_ranger::LIMIT_RANGER;
use crate::request::admission::policy::VALIDATING_POLICY;
use crate::request::admission::resource_quota::RESOURCE_QUOTA;
use crate::request::admission::service_account::SERVICE_ACCOUNT;

/// Every plugin kube-apiserver 1.32 registers, in the order it runs them.
pub const KUBE_ORDER: &[&str] = &[
    "AlwaysAdmit",
    "NamespaceAutoProvision",
    "NamespaceLifecycle",
    "NamespaceExists",
    "LimitPodHardAntiAffinityTopology",
    "LimitRanger",
    "ServiceAccount",
    "NodeRestriction",
    "TaintNodesByCondition",
    "AlwaysPullImages",
    "ImagePolicyWebhook",
    "PodSecurity",
    "PodNodeSelector",
    "Priority",
    "DefaultTolerationSeconds",
    "PodTolerationRestriction",
    "EventRateLimit",
    "ExtendedResourceToleration",
    "DefaultStorageClass",
    "StorageObjectInUseProtection",
    "OwnerReferencesPermissionEnforcement",
    "PersistentVolumeClaimResize",
    "RuntimeClass",
    "CertificateApproval",
    "CertificateSigning",
    "ClusterTrustBundleAttest",
    "CertificateSubjectRestriction",
    "DefaultIngressClass",
    "DenyServiceExternalIPs",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionWebhook",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionWebhook",
    "ResourceQuota",
    "AlwaysDeny",
];

/// The plugins kube-apiserver 1.32 runs when no flag names them.
const KUBE_DEFAULT_ON: &[&str] = &[
    "NamespaceLifecycle",
    "LimitRanger",
    "ServiceAccount",
    "TaintNodesByCondition",
    "PodSecurity",
    "Priority",
    "DefaultTolerationSeconds",
    "DefaultStorageClass",
    "StorageObjectInUseProtection",
    "PersistentVolumeClaimResize",
    "RuntimeClass",
    "CertificateApproval",
    "CertificateSigning",
    "ClusterTrustBundleAttest",
    "CertificateSubjectRestriction",
    "DefaultIngressClass",
    "MutatingAdmissionWebhook",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionWebhook",
    "ResourceQuota",
];

pub const NAMESPACE_LIFECYCLE: &str = "NamespaceLifecycle";
pub const MUTATING_WEBHOOK: &str = "MutatingAdmissionWebhook";
pub const VALIDATING_WEBHOOK: &str = "ValidatingAdmissionWebhook";

/// The plugins cairn implements.
pub const IMPLEMENTED: &[&str] = &[
    NAMESPACE_LIFECYCLE,
    LIMIT_RANGER,
    SERVICE_ACCOUNT,
    DEFAULT_TOLERATION_SECONDS,
    "CertificateApproval",
    "CertificateSigning",
    "ClusterTrustBundleAttest",
    "CertificateSubjectRestriction",
    MUTATING_WEBHOOK,
    VALIDATING_POLICY,
    VALIDATING_WEBHOOK,
    RESOURCE_QUOTA,
];

/// The plugins that run, in kube's order, and the flags that set them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Enabled {
    names: Vec<&'static str>,
    /// DefaultTolerationSeconds' seconds: (not-ready, unreachable).
    pub toleration_seconds: (i64, i64),
}

impl Default for Enabled {
    /// kube's default set, of the plugins cairn has.
    fn default() -> Enabled {
        Enabled::resolve(&AdmissionFlags::default()).expect("the defaults are registered")
    }
}

impl Enabled {
    /// The plugins the flags select; the error is one line in kube's words.
    pub fn resolve(flags: &AdmissionFlags) -> Result<Enabled, String> {
        let enable = names(&flags.enable_admission_plugins);
        let disable = names(&flags.disable_admission_plugins);
        let mut errors = Vec::new();
        for (flag, list) in [
            ("enable-admission-plugins", &enable),
            ("disable-admission-plugins", &disable),
        ] {
            for name in list.iter().filter(|n| !KUBE_ORDER.contains(n)) {
                errors.push(format!("{flag} plugin {name:?} is unknown"));
            }
        }
        let overlap: Vec<&str> = enable.intersection(&disable).copied().collect();
        if !overlap.is_empty() {
            errors.push(format!(
                "[{}] in enable-admission-plugins and disable-admission-plugins overlapped",
                overlap.join(" ")
            ));
        }
        if !errors.is_empty() {
            return Err(errors.join(", "));
        }
        let on = |name: &str| {
            (KUBE_DEFAULT_ON.contains(&name) || enable.contains(name)) && !disable.contains(name)
        };
        for name in enable.iter().filter(|n| !IMPLEMENTED.contains(n)) {
            tracing::warn!(plugin = %name, "admission plugin is not implemented by cairn; it does not run");
        }
        let names = KUBE_ORDER
            .iter()
            .copied()
            .filter(|name| IMPLEMENTED.contains(name) && on(name))
            .collect();
        Ok(Enabled {
            names,
            toleration_seconds: (
                flags.default_not_ready_toleration_seconds,
                flags.default_unreachable_toleration_seconds,
            ),
        })
    }

    /// Whether `name` runs.
    #[must_use]
    pub fn has(&self, name: &str) -> bool {
        self.names.contains(&name)
    }

    /// The plugins that run, in order.
    #[must_use]
    pub fn names(&self) -> &[&'static str] {
        &self.names
    }
}

fn names(list: &[String]) -> BTreeSet<&str> {
    list.iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(enable: &[&str], disable: &[&str]) -> AdmissionFlags {
        AdmissionFlags {
            enable_admission_plugins: enable.iter().map(|s| (*s).to_string()).collect(),
            disable_admission_plugins: disable.iter().map(|s| (*s).to_string()).collect(),
            ..AdmissionFlags::default()
        }
    }

    #[test]
    fn defaults_are_kubes_of_those_cairn_has() {
        assert_eq!(
            Enabled::default().names(),
            [
                NAMESPACE_LIFECYCLE,
                LIMIT_RANGER,
                SERVICE_ACCOUNT,
                DEFAULT_TOLERATION_SECONDS,
                "CertificateApproval",
                "CertificateSigning",
                "ClusterTrustBundleAttest",
                "CertificateSubjectRestriction",
                MUTATING_WEBHOOK,
                VALIDATING_POLICY,
                VALIDATING_WEBHOOK,
                RESOURCE_QUOTA
            ]
        );
    }

    #[test]
    fn disabling_removes_and_order_is_kubes() {
        let enabled = Enabled::resolve(&flags(
            &["ValidatingAdmissionWebhook", "NamespaceLifecycle"],
            &["MutatingAdmissionWebhook"],
        ))
        .unwrap();
        assert_eq!(
            enabled.names(),
            [
                NAMESPACE_LIFECYCLE,
                LIMIT_RANGER,
                SERVICE_ACCOUNT,
                DEFAULT_TOLERATION_SECONDS,
                "CertificateApproval",
                "CertificateSigning",
                "ClusterTrustBundleAttest",
                "CertificateSubjectRestriction",
                VALIDATING_POLICY,
                VALIDATING_WEBHOOK,
                RESOURCE_QUOTA
            ]
        );
        assert!(!enabled.has(MUTATING_WEBHOOK));
    }

    #[test]
    fn kube_plugins_cairn_lacks_are_accepted() {
        let enabled = Enabled::resolve(&flags(&["AlwaysPullImages"], &[])).unwrap();
        assert_eq!(enabled, Enabled::default());
        let no_quota = Enabled::resolve(&flags(&[], &[RESOURCE_QUOTA])).unwrap();
        assert!(!no_quota.has(RESOURCE_QUOTA));
        let without = Enabled::resolve(&flags(&[], &[SERVICE_ACCOUNT])).unwrap();
        assert!(!without.has(SERVICE_ACCOUNT));
    }

    #[test]
    fn unknown_and_overlapping_names_are_refused() {
        assert_eq!(
            Enabled::resolve(&flags(&["Nope"], &[])).unwrap_err(),
            "enable-admission-plugins plugin \"Nope\" is unknown"
        );
        assert_eq!(
            Enabled::resolve(&flags(&[], &["Gone"])).unwrap_err(),
            "disable-admission-plugins plugin \"Gone\" is unknown"
        );
        assert_eq!(
            Enabled::resolve(&flags(&["NamespaceLifecycle"], &["NamespaceLifecycle"])).unwrap_err(),
            "[NamespaceLifecycle] in enable-admission-plugins and disable-admission-plugins overlapped"
        );
    }
}
