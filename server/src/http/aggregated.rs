//! Requests under `/apis/{group}/{version}` of a group version an
//! extension API server serves (an APIService naming a service): forwarded,
//! after cairn has authenticated and authorized them, to one of the
//! service's endpoints over TLS, with the user's identity in the
//! `X-Remote-*` headers kube-aggregator sends.

use std::net::IpAddr;
use std::sync::Arc;

use http::header::{HeaderMap, HeaderName, HeaderValue};
use http::{Request, Response, StatusCode};
use hyper::body::Incoming;
use parking_lot::Mutex;
use rustls::ClientConfig;

use crate::api::proxy::aggregated::Route;
use crate::api::proxy::endpoints::service_backend;
use crate::app::AppState;
use crate::http::body::Body;
use crate::http::forward::{self, Target};
use crate::http::proxy_headers::{self, Forwarding};
use crate::http::proxy_verb::credentials;
use crate::request::user::UserInfo;

const REMOTE_USER: &str = "x-remote-user";
const REMOTE_UID: &str = "x-remote-uid";
const REMOTE_GROUP: &str = "x-remote-group";
const REMOTE_EXTRA: &str = "x-remote-extra-";

/// The route of a request path, when it lies under an aggregated group
/// version.
#[must_use]
pub fn route_of(state: &AppState, path: &str) -> Option<Route> {
    let rest = path.strip_prefix("/apis/")?;
    let mut segs = rest.split('/');
    let (group, version) = (segs.next()?, segs.next()?);
    if group.is_empty() || version.is_empty() {
        return None;
    }
    state.aggregated.get(group, version)
}

/// Forwards an authorized request to the extension server of `route`.
pub async fn serve(
    state: &Arc<AppState>,
    req: Request<Incoming>,
    route: &Route,
    user: &UserInfo,
    client: Option<IpAddr>,
) -> Response<Body> {
    if !route.available {
        return unavailable();
    }
    let backend = match service_backend(
        &state.store,
        &route.namespace,
        &route.service,
        &route.port.to_string(),
    )
    .await
    {
        Ok(b) => b,
        Err(e) => {
            tracing::debug!(?e, service = %route.service, "resolving an aggregated API's service failed");
            return unavailable();
        }
    };
    let tls = match tls_for(state, route) {
        Ok(tls) => tls,
        Err(e) => {
            tracing::warn!(error = %e, "TLS for an aggregated API");
            return unavailable();
        }
    };
    let target = Target {
        host: backend.ip,
        port: backend.port,
        tls: Some(tls),
        server_name: Some(format!("{}.{}.svc", route.service, route.namespace)),
        path_and_query: req
            .uri()
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .to_string(),
    };
    let mut remove = credentials(req.headers());
    remove.extend(
        req.headers()
            .keys()
            .filter(|n| n.as_str().starts_with("x-remote-"))
            .cloned(),
    );
    remove.extend(proxy_headers::replaced());
    let authority = target.authority();
    let mut add = identity_headers(user);
    add.extend(
        Forwarding {
            client,
            uri: req.uri().path(),
            target_url: Some((&authority, "https")),
            upgrade: forward::wants_upgrade(req.headers()),
        }
        .request_headers(req.headers()),
    );
    match forward::forward(req, &target, &remove, add).await {
        Ok(mut resp) => {
            if resp.status() != StatusCode::SWITCHING_PROTOCOLS {
                proxy_headers::remove_cors(resp.headers_mut());
            }
            resp
        }
        Err(e) => {
            tracing::debug!(error = %e.0, "an aggregated API server is unreachable");
            unavailable()
        }
    }
}

/// kube-aggregator's answer when the extension server cannot be reached.
fn unavailable() -> Response<Body> {
    crate::http::respond::text(503, "service unavailable\n")
}

/// `X-Remote-User`, `-Uid`, `-Group` (one per group) and
/// `X-Remote-Extra-<key>` (the key percent-encoded) for `user`.
#[must_use]
pub fn identity_headers(user: &UserInfo) -> HeaderMap {
    let mut h = HeaderMap::new();
    let mut put = |name: &str, value: &str| {
        if let (Ok(n), Ok(v)) = (HeaderName::try_from(name), HeaderValue::try_from(value)) {
            h.append(n, v);
        }
    };
    put(REMOTE_USER, &user.name);
    if !user.uid.is_empty() {
        put(REMOTE_UID, &user.uid);
    }
    for g in &user.groups {
        put(REMOTE_GROUP, g);
    }
    for (key, values) in &user.extra {
        let name = format!("{REMOTE_EXTRA}{}", escape_key(key));
        for v in values {
            put(&name, v);
        }
    }
    h
}

/// A header-safe extra key, escaped as Kubernetes' `url.PathEscape`.
fn escape_key(key: &str) -> String {
    let mut out = String::new();
    for b in key.to_lowercase().bytes() {
        let plain = b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
        if plain {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

type TlsKey = (Option<Vec<u8>>, bool);

/// Client configurations by CA bundle and verification: built once each.
fn tls_for(state: &AppState, route: &Route) -> Result<Arc<ClientConfig>, String> {
    static BUILT: Mutex<Vec<(TlsKey, Arc<ClientConfig>)>> = Mutex::new(Vec::new());
    let key = (route.ca_bundle.clone(), route.insecure_skip_tls_verify);
    if let Some((_, c)) = BUILT.lock().iter().find(|(k, _)| *k == key) {
        return Ok(Arc::clone(c));
    }
    let config = crate::tls::upstream::client(&state.config, key.0.clone(), key.1)?;
    let mut built = BUILT.lock();
    // A bounded memory of bundles: old ones give way to new.
    if built.len() >= 64 {
        built.remove(0);
    }
    built.push((key, Arc::clone(&config)));
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_goes_in_remote_headers() {
        let mut user = UserInfo::new("alice", &["devs", "system:authenticated"]);
        user.extra
            .insert("example.com/Team".into(), vec!["a".into(), "b".into()]);
        let h = identity_headers(&user);
        assert_eq!(h.get(REMOTE_USER).unwrap(), "alice");
        assert_eq!(h.get_all(REMOTE_GROUP).iter().count(), 2);
        assert_eq!(
            h.get_all("x-remote-extra-example.com%2Fteam")
                .iter()
                .count(),
            2
        );
    }
}
