//! A request's span, named and described as kube-apiserver's server span
//! (otelhttp's, with kube's span names): `GET
//! /api/v1/namespaces/{:namespace}/pods/{:name}` for a resource request,
//! the method alone for any other; HTTP attributes in the semantic
//! conventions kube's otelhttp writes, and the status code at the answer.

use http::{HeaderMap, Method, StatusCode, Version, header};
use opentelemetry::KeyValue;

use super::Span;
use crate::request::info::{RequestInfo, ResourceInfo};

/// What the span says of the request and its connection.
pub struct Arrival<'a> {
    pub method: &'a Method,
    pub target: &'a str,
    /// The URI's authority: HTTP/2 names the host there, not in `Host`.
    pub authority: Option<&'a str>,
    pub version: Version,
    pub headers: &'a HeaderMap,
    pub remote: Option<std::net::SocketAddr>,
    pub https: bool,
    pub audit_id: &'a str,
}

/// The request's span, if tracing is on and it is sampled.
#[must_use]
pub fn start(arrival: &Arrival<'_>, info: &RequestInfo) -> Option<Span> {
    super::root(
        || span_name(arrival.method, info.resource.as_ref(), &info.path),
        arrival.headers,
        arrival.audit_id,
        || attributes(arrival, info),
    )
}

/// Records the answer's status on the span and ends it.
pub fn finish(span: Option<Span>, status: StatusCode) {
    if let Some(span) = span {
        span.set(KeyValue::new(
            "http.status_code",
            i64::from(status.as_u16()),
        ));
        if status.is_server_error() {
            span.fail(String::new());
        }
    }
}

/// kube's span name: the method and the path with its names abstracted.
fn span_name(method: &Method, resource: Option<&ResourceInfo>, path: &str) -> String {
    let Some(target) = resource else {
        return method.to_string();
    };
    let mut name = format!("{method} /");
    name.push_str(if path.starts_with("/apis/") {
        "apis"
    } else {
        "api"
    });
    if !target.group.is_empty() {
        name.push('/');
        name.push_str(&target.group);
    }
    name.push('/');
    name.push_str(&target.version);
    if target.namespace.is_some() {
        name.push_str("/namespaces/{:namespace}");
    }
    name.push('/');
    name.push_str(&target.resource);
    if target.name.is_some() {
        name.push_str("/{:name}");
    }
    if let Some(sub) = &target.subresource {
        name.push('/');
        name.push_str(sub);
    }
    name
}

fn attributes(arrival: &Arrival<'_>, info: &RequestInfo) -> Vec<KeyValue> {
    let header = |name: header::HeaderName| {
        arrival
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let mut out = vec![
        KeyValue::new("http.method", arrival.method.to_string()),
        KeyValue::new("http.scheme", if arrival.https { "https" } else { "http" }),
        KeyValue::new("http.target", arrival.target.to_string()),
        KeyValue::new("net.protocol.version", protocol(arrival.version)),
        KeyValue::new("audit-id", arrival.audit_id.to_string()),
        KeyValue::new("verb", info.verb.to_string()),
    ];
    if let Some(host) = header(header::HOST).or_else(|| arrival.authority.map(str::to_string)) {
        let (name, port) = match host.rsplit_once(':') {
            Some((name, port)) if port.parse::<u16>().is_ok() && !name.ends_with(':') => {
                (name.to_string(), port.parse::<i64>().ok())
            }
            _ => (host, None),
        };
        out.push(KeyValue::new("net.host.name", name));
        if let Some(port) = port {
            out.push(KeyValue::new("net.host.port", port));
        }
    }
    if let Some(remote) = arrival.remote {
        out.push(KeyValue::new("net.sock.peer.addr", remote.ip().to_string()));
        out.push(KeyValue::new(
            "net.sock.peer.port",
            i64::from(remote.port()),
        ));
    }
    if let Some(agent) = header(header::USER_AGENT) {
        out.push(KeyValue::new("user_agent.original", agent));
    }
    if let Some(target) = &info.resource {
        out.push(KeyValue::new("resource", target.resource.clone()));
    }
    out
}

fn protocol(version: Version) -> &'static str {
    match version {
        Version::HTTP_10 => "1.0",
        Version::HTTP_2 => "2",
        Version::HTTP_3 => "3",
        _ => "1.1",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(method: Method, path: &str) -> String {
        let info = RequestInfo::new(&method, path.to_string(), None, None);
        span_name(&method, info.resource.as_ref(), path)
    }

    #[test]
    fn http2_requests_name_their_host_in_the_authority() {
        let headers = HeaderMap::new();
        let arrival = Arrival {
            method: &Method::GET,
            target: "/api/v1/nodes",
            authority: Some("[::1]:6443"),
            version: Version::HTTP_2,
            headers: &headers,
            remote: Some("[::1]:50000".parse().unwrap()),
            https: true,
            audit_id: "a1",
        };
        let info = RequestInfo::new(&Method::GET, "/api/v1/nodes".into(), None, None);
        let found: Vec<(String, String)> = attributes(&arrival, &info)
            .into_iter()
            .map(|kv| (kv.key.to_string(), kv.value.to_string()))
            .collect();
        for (key, value) in [
            ("net.host.name", "[::1]"),
            ("net.host.port", "6443"),
            ("net.protocol.version", "2"),
            ("http.scheme", "https"),
            ("net.sock.peer.addr", "::1"),
            ("resource", "nodes"),
        ] {
            assert!(
                found.iter().any(|(k, v)| k == key && v == value),
                "{key}={value} in {found:?}"
            );
        }
    }

    #[test]
    fn spans_are_named_as_kube_names_them() {
        assert_eq!(
            name(Method::GET, "/api/v1/namespaces/ns/pods/p"),
            "GET /api/v1/namespaces/{:namespace}/pods/{:name}"
        );
        assert_eq!(
            name(Method::POST, "/apis/apps/v1/namespaces/ns/deployments"),
            "POST /apis/apps/v1/namespaces/{:namespace}/deployments"
        );
        assert_eq!(
            name(Method::PUT, "/api/v1/namespaces/ns/pods/p/status"),
            "PUT /api/v1/namespaces/{:namespace}/pods/{:name}/status"
        );
        assert_eq!(name(Method::GET, "/api/v1/nodes"), "GET /api/v1/nodes");
        assert_eq!(name(Method::GET, "/healthz"), "GET");
        assert_eq!(name(Method::GET, "/apis"), "GET");
    }
}
