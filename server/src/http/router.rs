//! Requests → what answers them (spec 4.1): discovery documents, health
//! endpoints, or the resource handlers. The target of a resource request
//! is read once, into its `RequestInfo` (request/info.rs).

use crate::request::info::RequestInfo;

/// What a request addresses.
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
    /// The resource `info.resource` names.
    Resource,
    NotFound,
}

/// Routes a request.
#[must_use]
pub fn route(info: &RequestInfo) -> Route {
    if info.is_resource_request() {
        return Route::Resource;
    }
    let trimmed = info.path.trim_end_matches('/');
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
        ["apis"] => Route::Groups,
        ["apis", group] => Route::Group {
            group: (*group).into(),
        },
        ["apis", group, version] => Route::GroupResources {
            group: (*group).into(),
            version: (*version).into(),
        },
        _ => Route::NotFound,
    }
}

#[cfg(test)]
mod tests {
    use http::Method;

    use super::*;

    fn route_of(path: &str) -> Route {
        route(&RequestInfo::new(&Method::GET, path.into(), None, None))
    }

    #[test]
    fn paths() {
        assert_eq!(
            route_of("/api/v1/namespaces/default/events/e1"),
            Route::Resource
        );
        assert_eq!(route_of("/api/v1/watch/events"), Route::Resource);
        assert_eq!(
            route_of("/apis/events.k8s.io"),
            Route::Group {
                group: "events.k8s.io".into()
            }
        );
        assert_eq!(
            route_of("/apis/events.k8s.io/v1/"),
            Route::GroupResources {
                group: "events.k8s.io".into(),
                version: "v1".into()
            }
        );
        assert_eq!(
            route_of("/api/v1"),
            Route::CoreResources {
                version: "v1".into()
            }
        );
        assert_eq!(route_of("/api"), Route::CoreVersions);
        assert_eq!(route_of("/apis"), Route::Groups);
        assert_eq!(route_of("/version"), Route::Version);
        assert_eq!(
            route_of("/livez/ping"),
            Route::Health {
                endpoint: "livez".into(),
                check: Some("ping".into())
            }
        );
        assert_eq!(
            route_of("/readyz/poststarthook/bootstrap"),
            Route::Health {
                endpoint: "readyz".into(),
                check: Some("poststarthook/bootstrap".into())
            }
        );
        assert_eq!(route_of("/nope"), Route::NotFound);
        assert_eq!(route_of("/api/v1/a/b/c/d"), Route::NotFound);
        assert_eq!(route_of("/api/v1/watch"), Route::NotFound);
        assert_eq!(route_of("/api/v1/namespaces/ns//e"), Route::NotFound);
    }
}
