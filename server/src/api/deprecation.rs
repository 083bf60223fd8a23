//! Deprecated API versions: the `Warning` text a request to one gets, and
//! the record of which deprecated resources were requested (what
//! kube-apiserver's `apiserver_requested_deprecated_apis` gauge and the
//! `<domain>/deprecated` audit annotation report).

use std::collections::BTreeSet;

use parking_lot::Mutex;

use crate::api::kind::KindSpec;
use crate::api::kinds::custom_resource::version_priority;
use crate::api::registry::Registry;

/// Why and until when a version is deprecated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deprecation {
    /// The `Warning` header's text.
    pub warning: String,
    /// The release the version goes away in (`1.33`), empty when unknown.
    pub removed_release: String,
}

impl Deprecation {
    /// A built-in version, in kube-apiserver's words: `<group>/<version>
    /// <Kind> is deprecated in v<deprecated>+, unavailable in v<removed>+;
    /// use <group>/<version> <Kind>`.
    #[must_use]
    pub fn built_in(
        kind: &KindSpec,
        deprecated_in: &str,
        removed_in: &str,
        replacement: Option<(&str, &str)>,
    ) -> Deprecation {
        let mut warning = format!(
            "{} {} is deprecated in v{deprecated_in}+, unavailable in v{removed_in}+",
            kind.api_version(),
            kind.kind
        );
        if let Some((api_version, kind)) = replacement {
            warning.push_str(&format!("; use {api_version} {kind}"));
        }
        Deprecation {
            warning,
            removed_release: removed_in.to_string(),
        }
    }

    /// A CustomResourceDefinition version marked `deprecated`: its own
    /// `deprecationWarning`, else `<group>/<version> <Kind> is deprecated`
    /// naming the newest served, undeprecated, later version to use.
    #[must_use]
    pub fn custom(
        group: &str,
        version: &str,
        kind: &str,
        own_warning: Option<&str>,
        others: &[CrdVersion<'_>],
    ) -> Deprecation {
        let warning = own_warning.map_or_else(
            || {
                let mut text = format!("{group}/{version} {kind} is deprecated");
                let newest = others
                    .iter()
                    .filter(|v| v.served && !v.deprecated)
                    .filter(|v| version_priority(v.name) > version_priority(version))
                    .max_by_key(|v| version_priority(v.name));
                if let Some(newest) = newest {
                    text.push_str(&format!("; use {group}/{} {kind}", newest.name));
                }
                text
            },
            str::to_string,
        );
        Deprecation {
            warning,
            removed_release: String::new(),
        }
    }
}

/// What the default CRD warning needs of each version of the CRD.
pub struct CrdVersion<'a> {
    pub name: &'a str,
    pub served: bool,
    pub deprecated: bool,
}

/// One deprecated resource that was requested: the gauge's labels.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RequestedApi {
    pub group: String,
    pub version: String,
    pub resource: String,
    pub subresource: String,
    pub removed_release: String,
}

/// Every deprecated resource requested since start-up; shared by all
/// request handlers.
#[derive(Default)]
pub struct RequestedDeprecatedApis {
    seen: Mutex<BTreeSet<RequestedApi>>,
}

impl RequestedDeprecatedApis {
    /// Notes a request to `kind` (at `subresource`, empty for none) when
    /// the kind is deprecated; returns its deprecation to answer with.
    pub fn record<'k>(&self, kind: &'k KindSpec, subresource: &str) -> Option<&'k Deprecation> {
        let deprecation = kind.deprecation.as_ref()?;
        let api = RequestedApi {
            group: kind.group.clone(),
            version: kind.version.clone(),
            resource: kind.resource.clone(),
            subresource: subresource.to_string(),
            removed_release: deprecation.removed_release.clone(),
        };
        self.seen.lock().insert(api);
        Some(deprecation)
    }

    /// The requested deprecated resources, sorted.
    #[must_use]
    pub fn snapshot(&self) -> Vec<RequestedApi> {
        self.seen.lock().iter().cloned().collect()
    }
}

/// Whether a request to `kind` is to a deprecated version (what the audit
/// annotation `<domain>/deprecated: "true"` says).
#[must_use]
pub fn is_deprecated(kind: &KindSpec) -> bool {
    kind.deprecation.is_some()
}

/// Whether a request to `group/version/resource` reaches a deprecated
/// version: the per-request answer an audit annotation needs.
#[must_use]
pub fn requested_is_deprecated(
    registry: &Registry,
    group: &str,
    version: &str,
    resource: &str,
) -> bool {
    registry
        .served(group, version, resource)
        .is_some_and(|k| is_deprecated(&k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::schema::Schema;

    fn review(version: &str) -> KindSpec {
        KindSpec::new(
            "authentication.k8s.io",
            version,
            "SelfSubjectReview",
            "selfsubjectreviews",
            false,
            Schema::any(),
        )
    }

    #[test]
    fn built_in_warning_in_kube_apiserver_words() {
        let d = Deprecation::built_in(
            &review("v1beta1"),
            "1.30",
            "1.33",
            Some(("authentication.k8s.io/v1", "SelfSubjectReview")),
        );
        assert_eq!(
            d.warning,
            "authentication.k8s.io/v1beta1 SelfSubjectReview is deprecated in v1.30+, unavailable in v1.33+; use authentication.k8s.io/v1 SelfSubjectReview"
        );
        assert_eq!(d.removed_release, "1.33");
    }

    #[test]
    fn crd_default_warning_names_the_newest_served_version() {
        let versions = [
            CrdVersion {
                name: "v1alpha1",
                served: true,
                deprecated: true,
            },
            CrdVersion {
                name: "v1beta1",
                served: true,
                deprecated: false,
            },
            CrdVersion {
                name: "v1",
                served: true,
                deprecated: false,
            },
            CrdVersion {
                name: "v2",
                served: false,
                deprecated: false,
            },
        ];
        let d = Deprecation::custom("example.com", "v1alpha1", "Widget", None, &versions);
        assert_eq!(
            d.warning,
            "example.com/v1alpha1 Widget is deprecated; use example.com/v1 Widget"
        );
        let d = Deprecation::custom("example.com", "v1", "Widget", None, &versions);
        assert_eq!(d.warning, "example.com/v1 Widget is deprecated");
        let d = Deprecation::custom("example.com", "v1", "Widget", Some("gone soon"), &versions);
        assert_eq!(d.warning, "gone soon");
    }

    #[test]
    fn records_each_deprecated_resource_once() {
        let requested = RequestedDeprecatedApis::default();
        assert!(requested.record(&review("v1"), "").is_none());
        let mut old = review("v1beta1");
        old.deprecation = Some(Deprecation::built_in(&old, "1.30", "1.33", None));
        assert!(requested.record(&old, "").is_some());
        assert!(requested.record(&old, "").is_some());
        assert!(requested.record(&old, "status").is_some());
        let seen = requested.snapshot();
        assert_eq!(seen.len(), 2);
        assert_eq!(
            seen[0],
            RequestedApi {
                group: "authentication.k8s.io".into(),
                version: "v1beta1".into(),
                resource: "selfsubjectreviews".into(),
                subresource: String::new(),
                removed_release: "1.33".into(),
            }
        );
        assert!(is_deprecated(&old));
    }
}
