//! Requests → what answers them (spec 4.1): discovery documents, health
//! endpoints, or the resource handlers. The target of a resource request
//! is read once, into its `RequestInfo` (request/info.rs).

use crate::request::info::{RequestInfo, ResourceInfo};

/// What a request addresses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route<'a> {
    /// `/healthz`, `/livez`, `/readyz` (and `/<endpoint>/<check>`).
    Health {
        endpoint: String,
        check: Option<String>,
    },
    Version,
    /// `/metrics`
    Metrics,
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
    Resource(&'a ResourceInfo),
    /// `/.well-known/openid-configuration`: the service-account issuer's
    /// discovery document.
    OpenIdConfiguration,
    /// `/openid/v1/jwks`: the service-account verification keys.
    Jwks,
    NotFound,
}

/// Routes a request.
#[must_use]
pub fn route(info: &RequestInfo) -> Route<'_> {
    if let Some(target) = &info.resource {
        return Route::Resource(target);
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
        ["metrics"] => Route::Metrics,
        [".well-known", "openid-configuration"] => Route::OpenIdConfiguration,
        ["openid", "v1", "jwks"] => Route::Jwks,
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

    /// Whether `path` routes to `want` (any resource for `Resource`).
    fn routes(path: &str, want: &Route<'_>) -> bool {
        let info = RequestInfo::new(&Method::GET, path.into(), None, None);
        match (route(&info), want) {
            (Route::Resource(_), Route::Resource(_)) => true,
            (got, want) => &got == want,
        }
    }

    #[test]
    fn paths() {
        let any = ResourceInfo::default();
        let resource = Route::Resource(&any);
        assert!(routes("/api/v1/namespaces/default/events/e1", &resource));
        assert!(routes("/api/v1/watch/events", &resource));
        let group = Route::Group {
            group: "events.k8s.io".into(),
        };
        assert!(routes("/apis/events.k8s.io", &group));
        let group_resources = Route::GroupResources {
            group: "events.k8s.io".into(),
            version: "v1".into(),
        };
        assert!(routes("/apis/events.k8s.io/v1/", &group_resources));
        let core = Route::CoreResources {
            version: "v1".into(),
        };
        assert!(routes("/api/v1", &core));
        assert!(routes("/api", &Route::CoreVersions));
        assert!(routes("/apis", &Route::Groups));
        assert!(routes("/version", &Route::Version));
        assert!(routes("/metrics", &Route::Metrics));
        assert!(routes(
            "/.well-known/openid-configuration",
            &Route::OpenIdConfiguration
        ));
        assert!(routes("/openid/v1/jwks", &Route::Jwks));
        assert!(routes("/openid/v1/jwks/", &Route::Jwks));
        let ping = Route::Health {
            endpoint: "livez".into(),
            check: Some("ping".into()),
        };
        assert!(routes("/livez/ping", &ping));
        let hook = Route::Health {
            endpoint: "readyz".into(),
            check: Some("poststarthook/bootstrap".into()),
        };
        assert!(routes("/readyz/poststarthook/bootstrap", &hook));
        for path in [
            "/nope",
            "/api/v1/a/b/c/d",
            "/api/v1/watch",
            "/api/v1/namespaces/ns//e",
        ] {
            assert!(routes(path, &Route::NotFound), "{path}");
        }
    }
}
