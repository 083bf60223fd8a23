//! Definition names as Kubernetes spells them: the Go package path reversed
//! (`io.k8s.api.core.v1.ConfigMap`, `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`),
//! with the API domain in place of `k8s.io`; CRD kinds as
//! `<reversed group>.<version>.<Kind>` (`com.example.stable.v1.CronTab`).

use crate::api::kind::{KindSpec, Origin};

/// Names definitions for one API domain.
pub struct Namer {
    domain: String,
    /// The domain reversed: `io.k8s` for `k8s.io`.
    prefix: String,
}

fn reversed(dotted: &str) -> String {
    dotted.rsplit('.').collect::<Vec<_>>().join(".")
}

impl Namer {
    #[must_use]
    pub fn new(domain: &str) -> Namer {
        Namer {
            domain: domain.to_string(),
            prefix: reversed(domain),
        }
    }

    /// A type of `meta/v1` (`ObjectMeta`, `ListMeta`, `Status`, ...).
    #[must_use]
    pub fn meta(&self, type_name: &str) -> String {
        format!("{}.apimachinery.pkg.apis.meta.v1.{type_name}", self.prefix)
    }

    /// A built-in type of a Kubernetes API package (`autoscaling`, `v1`, `Scale`).
    #[must_use]
    pub fn api_type(&self, package: &str, version: &str, type_name: &str) -> String {
        format!("{}.api.{package}.{version}.{type_name}", self.prefix)
    }

    /// The group without the API domain (`rbac.authorization` for
    /// `rbac.authorization.k8s.io`, `core` for the core group), or `None`
    /// for a group outside the domain.
    #[must_use]
    pub fn short_group<'a>(&self, group: &'a str) -> Option<&'a str> {
        if group.is_empty() {
            return Some("core");
        }
        group
            .strip_suffix(self.domain.as_str())
            .and_then(|g| g.strip_suffix('.'))
    }

    /// The definition of a kind's objects; `type_name` is the kind or its
    /// list kind.
    #[must_use]
    pub fn kind_type(&self, kind: &KindSpec, type_name: &str) -> String {
        let short = match kind.origin {
            Origin::BuiltIn => self.short_group(&kind.group),
            Origin::Crd(_) => None,
        };
        match short {
            Some("apiextensions") => format!(
                "{}.apiextensions-apiserver.pkg.apis.apiextensions.{}.{type_name}",
                self.prefix, kind.version
            ),
            Some(short) => {
                let package = short.split('.').next().unwrap_or(short);
                self.api_type(package, &kind.version, type_name)
            }
            None => format!("{}.{}.{type_name}", reversed(&kind.group), kind.version),
        }
    }

    /// The definition of a kind.
    #[must_use]
    pub fn kind(&self, kind: &KindSpec) -> String {
        self.kind_type(kind, &kind.kind)
    }

    /// The definition of a kind's list.
    #[must_use]
    pub fn list(&self, kind: &KindSpec) -> String {
        self.kind_type(kind, &kind.list_kind)
    }

    /// The group as operation ids and tags spell it: `Core`,
    /// `RbacAuthorization`, `StableExampleCom`.
    #[must_use]
    pub fn group_token(&self, kind: &KindSpec) -> String {
        let short = match kind.origin {
            Origin::BuiltIn => self.short_group(&kind.group).unwrap_or(&kind.group),
            Origin::Crd(_) => &kind.group,
        };
        short
            .split(['.', '-'])
            .map(|w| {
                let mut chars = w.chars();
                chars.next().map_or_else(String::new, |c| {
                    c.to_ascii_uppercase().to_string() + chars.as_str()
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::schema::Schema;

    fn kind(group: &str, kind: &str, origin: Origin) -> KindSpec {
        let mut k = KindSpec::new(
            group,
            "v1",
            kind,
            "things",
            true,
            Schema::resource(Vec::<(String, Schema)>::new()),
        );
        k.origin = origin;
        k
    }

    #[test]
    fn names_follow_kubernetes() {
        let n = Namer::new("k8s.io");
        assert_eq!(
            n.kind(&kind("", "ConfigMap", Origin::BuiltIn)),
            "io.k8s.api.core.v1.ConfigMap"
        );
        assert_eq!(
            n.list(&kind("", "ConfigMap", Origin::BuiltIn)),
            "io.k8s.api.core.v1.ConfigMapList"
        );
        assert_eq!(
            n.kind(&kind("rbac.authorization.k8s.io", "Role", Origin::BuiltIn)),
            "io.k8s.api.rbac.v1.Role"
        );
        assert_eq!(
            n.kind(&kind(
                "apiextensions.k8s.io",
                "CustomResourceDefinition",
                Origin::BuiltIn
            )),
            "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition"
        );
        assert_eq!(
            n.kind(&kind(
                "stable.example.com",
                "CronTab",
                Origin::Crd("x".into())
            )),
            "com.example.stable.v1.CronTab"
        );
        assert_eq!(
            n.meta("ObjectMeta"),
            "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
        );
        let svc = Namer::new("svc.io");
        assert_eq!(
            svc.kind(&kind("coordination.svc.io", "Lease", Origin::BuiltIn)),
            "io.svc.api.coordination.v1.Lease"
        );
        assert_eq!(
            n.group_token(&kind("rbac.authorization.k8s.io", "Role", Origin::BuiltIn)),
            "RbacAuthorization"
        );
        assert_eq!(n.group_token(&kind("", "Pod", Origin::BuiltIn)), "Core");
        assert_eq!(
            n.group_token(&kind(
                "stable.example.com",
                "CronTab",
                Origin::Crd("x".into())
            )),
            "StableExampleCom"
        );
    }
}
