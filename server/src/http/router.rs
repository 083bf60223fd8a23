//! URL paths → what they address (spec 4.1): discovery documents, health
//! endpoints, or a resource with its group, version, namespace, name and
//! subresource.

/// A resource request's target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestInfo {
    pub group: String,
    pub version: String,
    pub namespace: Option<String>,
    pub resource: String,
    pub name: Option<String>,
    pub subresource: Option<String>,
    /// Reached through a `/watch/` path.
    pub watch_path: bool,
}

/// What a path addresses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// `/healthz`, `/livez`, `/readyz` (and `/<endpoint>/<check>`).
    Health {
        endpoint: String,
        check: Option<String>,
    },
    Version,
    /// `/api`
    CoreVersions,
    /// `/api/v1`
    CoreResources {
        version: String,
    },
    /// `/apis`
    Groups,
    /// `/apis/{group}`
    Group {
        group: String,
    },
    /// `/apis/{group}/{version}`
    GroupResources {
        group: String,
        version: String,
    },
    Resource(RequestInfo),
    NotFound,
}

/// Namespace subresources, addressed as `namespaces/{name}/{sub}`.
const NAMESPACE_SUBRESOURCES: [&str; 2] = ["status", "finalize"];

fn resource_route(group: &str, version: &str, mut rest: &[&str]) -> Route {
    let mut watch_path = false;
    if rest.first() == Some(&"watch") {
        watch_path = true;
        rest = &rest[1..];
    }
    let mut namespace = None;
    let namespaced_collection = rest.len() >= 3
        && rest[0] == "namespaces"
        && !(group.is_empty() && rest.len() == 3 && NAMESPACE_SUBRESOURCES.contains(&rest[2]));
    if namespaced_collection {
        namespace = Some(rest[1].to_string());
        rest = &rest[2..];
    }
    if rest.is_empty() || rest.len() > 3 || rest.iter().any(|s| s.is_empty()) {
        return Route::NotFound;
    }
    Route::Resource(RequestInfo {
        group: group.into(),
        version: version.into(),
        namespace,
        resource: rest[0].into(),
        name: rest.get(1).map(|s| (*s).to_string()),
        subresource: rest.get(2).map(|s| (*s).to_string()),
        watch_path,
    })
}

/// Routes a path.
#[must_use]
pub fn route(path: &str) -> Route {
    let trimmed = path.trim_end_matches('/');
    let segs: Vec<&str> = trimmed.split('/').skip(1).collect();
    match segs.as_slice() {
        [endpoint @ ("healthz" | "livez" | "readyz")] => Route::Health {
            endpoint: (*endpoint).into(),
            check: None,
        },
        [endpoint @ ("healthz" | "livez" | "readyz"), check @ ..] if !check.is_empty() => {
            Route::Health {
                endpoint: (*endpoint).into(),
                check: Some(check.join("/")),
            }
        }
        ["version"] => Route::Version,
        ["api"] => Route::CoreVersions,
        ["api", version] => Route::CoreResources {
            version: (*version).into(),
        },
        ["api", version, rest @ ..] => resource_route("", version, rest),
        ["apis"] => Route::Groups,
        ["apis", group] => Route::Group {
            group: (*group).into(),
        },
        ["apis", group, version] => Route::GroupResources {
            group: (*group).into(),
            version: (*version).into(),
        },
        ["apis", group, version, rest @ ..] => resource_route(group, version, rest),
        _ => Route::NotFound,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(path: &str) -> RequestInfo {
        match route(path) {
            Route::Resource(r) => r,
            other => panic!("{path}: {other:?}"),
        }
    }

    #[test]
    fn paths() {
        let r = res("/api/v1/namespaces/default/events/e1");
        assert_eq!(
            (
                r.namespace.as_deref(),
                r.resource.as_str(),
                r.name.as_deref()
            ),
            (Some("default"), "events", Some("e1"))
        );
        let r = res("/api/v1/events");
        assert_eq!(
            (r.namespace, r.resource.as_str(), r.name),
            (None, "events", None)
        );
        let r = res("/api/v1/namespaces/kube-system");
        assert_eq!(
            (r.resource.as_str(), r.name.as_deref()),
            ("namespaces", Some("kube-system"))
        );
        let r = res("/api/v1/namespaces/foo/finalize");
        assert_eq!(
            (
                r.resource.as_str(),
                r.name.as_deref(),
                r.subresource.as_deref()
            ),
            ("namespaces", Some("foo"), Some("finalize"))
        );
        let r = res("/api/v1/watch/namespaces/ns/events/x");
        assert!(r.watch_path && r.name.as_deref() == Some("x"));
        let r = res("/apis/events.k8s.io/v1/namespaces/ns/events");
        assert_eq!(
            (r.group.as_str(), r.version.as_str()),
            ("events.k8s.io", "v1")
        );
        assert_eq!(
            route("/apis/events.k8s.io"),
            Route::Group {
                group: "events.k8s.io".into()
            }
        );
        assert_eq!(
            route("/livez/ping"),
            Route::Health {
                endpoint: "livez".into(),
                check: Some("ping".into())
            }
        );
        assert_eq!(
            route("/readyz/poststarthook/bootstrap"),
            Route::Health {
                endpoint: "readyz".into(),
                check: Some("poststarthook/bootstrap".into())
            }
        );
        assert_eq!(route("/nope"), Route::NotFound);
        assert_eq!(route("/api/v1/a/b/c/d"), Route::NotFound);
    }
}
