//! The proxy subresource (spec 4.2): `services|pods|nodes/{name}[:port]/proxy/{path}`
//! forwarded, any method and its query, to where api/proxy resolves the
//! object; an unreachable target is a 503 Status.

use std::net::IpAddr;
use std::sync::Arc;

use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use http::{Method, Request, Response, StatusCode};
use hyper::body::Incoming;

use crate::api::error::ApiError;
use crate::api::proxy::location::{self, Location};
use crate::app::AppState;
use crate::http::body::{Body, full};
use crate::http::forward::{self, Target};
use crate::http::proxy_headers::{self, Forwarding};
use crate::http::respond::Writer;
use crate::request::info::{PROXY, ResourceInfo};

/// Serves an authorized proxy request.
pub async fn serve(
    state: &Arc<AppState>,
    req: Request<Incoming>,
    path: &str,
    target: &ResourceInfo,
    client: Option<IpAddr>,
) -> Response<Body> {
    match forward_to_object(state, req, path, target, client).await {
        Ok(resp) => resp,
        Err(e) => Writer::default().error(&e),
    }
}

async fn forward_to_object(
    state: &Arc<AppState>,
    req: Request<Incoming>,
    path: &str,
    target: &ResourceInfo,
    client: Option<IpAddr>,
) -> Result<Response<Body>, ApiError> {
    let proxied = matches!(target.resource.as_str(), "services" | "pods" | "nodes");
    if !target.group.is_empty() || target.version != "v1" || !proxied {
        return Err(ApiError::PathNotFound);
    }
    let namespaced = target.resource != "nodes";
    if namespaced != target.namespace.is_some() {
        return Err(ApiError::PathNotFound);
    }
    let id = target.name.as_deref().ok_or(ApiError::PathNotFound)?;
    let location = location::resolve(
        &state.store,
        &target.resource,
        target.namespace.as_deref(),
        id,
    )
    .await?;
    let rest = path_past_proxy(path, id);
    let query = req
        .uri()
        .query()
        .map(|q| format!("?{q}"))
        .unwrap_or_default();
    if rest.is_empty() && matches!(*req.method(), Method::GET | Method::HEAD) {
        // As Kubernetes does for an empty target path (kubernetes#4958).
        return Ok(redirect(&format!("{path}/{query}")));
    }
    let target_path = if rest.is_empty() { "/" } else { rest };
    let forwarded = Target {
        tls: tls_for(state, &location)?,
        server_name: None,
        port: location
            .port
            .unwrap_or(if location.https { 443 } else { 80 }),
        host: location.host,
        path_and_query: format!("{target_path}{query}"),
    };
    let mut remove = credentials(req.headers());
    remove.extend(proxy_headers::replaced());
    let add = Forwarding {
        client,
        uri: path,
        target_url: None,
        upgrade: forward::wants_upgrade(req.headers()),
    }
    .request_headers(req.headers());
    let asked_host = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let mut resp = forward::forward(req, &forwarded, &remove, add)
        .await
        .map_err(|e| {
            ApiError::ServiceUnavailable(format!("error trying to reach service: {}", e.0))
        })?;
    if resp.status() != StatusCode::SWITCHING_PROTOCOLS {
        let headers = resp.headers_mut();
        proxy_headers::remove_cors(headers);
        let prefix = &path[..path.len() - rest.len()];
        let target_host = forwarded.authority();
        proxy_headers::rewrite_location(headers, prefix, &[&target_host, &asked_host]);
    }
    Ok(resp)
}

/// The part of `path` after `{id}/proxy`, with its leading `/`.
fn path_past_proxy<'a>(path: &'a str, id: &str) -> &'a str {
    let marker = format!("/{id}/{PROXY}");
    path.find(&marker).map_or("", |i| &path[i + marker.len()..])
}

fn redirect(location: &str) -> Response<Body> {
    let mut resp = Response::new(full(""));
    *resp.status_mut() = StatusCode::MOVED_PERMANENTLY;
    if let Ok(v) = HeaderValue::try_from(location) {
        resp.headers_mut().insert(header::LOCATION, v);
    }
    resp
}

/// The caller's credentials and impersonation requests, which stay here
/// as kube-apiserver drops them once it has authenticated the request.
pub fn credentials(headers: &HeaderMap) -> Vec<HeaderName> {
    let mut names: Vec<HeaderName> = headers
        .keys()
        .filter(|n| n.as_str().starts_with("impersonate-"))
        .cloned()
        .collect();
    names.push(header::AUTHORIZATION);
    names
}

/// TLS for an `https` target: certificates are not verified (as
/// Kubernetes' proxy transport and its kubelet client without
/// `--kubelet-certificate-authority`), and the proxy client certificate
/// is presented when configured.
fn tls_for(
    state: &AppState,
    location: &Location,
) -> Result<Option<Arc<rustls::ClientConfig>>, ApiError> {
    if !location.https {
        return Ok(None);
    }
    crate::tls::upstream::client(&state.config, None, true)
        .map(Some)
        .map_err(ApiError::Internal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_path_is_what_follows_proxy() {
        let p = "/api/v1/namespaces/d/services/web:80/proxy/hello/x";
        assert_eq!(path_past_proxy(p, "web:80"), "/hello/x");
        assert_eq!(path_past_proxy("/api/v1/nodes/n/proxy", "n"), "");
        assert_eq!(path_past_proxy("/api/v1/nodes/n/proxy/", "n"), "/");
    }
}
