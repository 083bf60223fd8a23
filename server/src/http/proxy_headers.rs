//! What Kubernetes' proxy transport adds to a forwarded exchange: the
//! client's address appended to `X-Forwarded-For`, the path it asked this
//! server for as `X-Forwarded-Uri` (and `X-Forwarded-Host`/`-Proto` when
//! the target was named by URL, as kube-aggregator does); an upgrade gets
//! `X-Forwarded-For` only, as kube writes it past the transport. On the
//! way back, CORS headers are dropped and a redirect to the target's own
//! host is turned into a path under this server's proxy prefix.

use std::net::IpAddr;

use http::header::{self, HeaderMap, HeaderName, HeaderValue};

const FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");
const FORWARDED_URI: HeaderName = HeaderName::from_static("x-forwarded-uri");
const FORWARDED_HOST: HeaderName = HeaderName::from_static("x-forwarded-host");
const FORWARDED_PROTO: HeaderName = HeaderName::from_static("x-forwarded-proto");

/// The CORS headers of a target's answer, which must not pass as this
/// server's.
const CORS: [&str; 4] = [
    "access-control-allow-credentials",
    "access-control-allow-headers",
    "access-control-allow-methods",
    "access-control-allow-origin",
];

/// How a request is presented to the target.
pub struct Forwarding<'a> {
    /// The client's address.
    pub client: Option<IpAddr>,
    /// The path the client asked this server for.
    pub uri: &'a str,
    /// The target named by URL (`host:port`, scheme): kube-aggregator's
    /// way, which adds `X-Forwarded-Host` and `-Proto`.
    pub target_url: Option<(&'a str, &'a str)>,
    /// An upgrade (WebSocket, SPDY).
    pub upgrade: bool,
}

impl Forwarding<'_> {
    /// The headers to set on the forwarded request: it replaces any
    /// `X-Forwarded-For` of the request (`headers`), whose values it keeps.
    #[must_use]
    pub fn request_headers(&self, headers: &HeaderMap) -> HeaderMap {
        let mut out = HeaderMap::new();
        if let Some(client) = self.client {
            let mut chain: Vec<&str> = headers
                .get_all(&FORWARDED_FOR)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .collect();
            let client = client.to_string();
            chain.push(&client);
            if let Ok(v) = HeaderValue::try_from(chain.join(", ")) {
                out.insert(FORWARDED_FOR, v);
            }
        }
        if self.upgrade {
            return out;
        }
        let mut put = |name: HeaderName, value: &str| {
            if let Ok(v) = HeaderValue::try_from(value) {
                out.insert(name, v);
            }
        };
        put(FORWARDED_URI, self.uri);
        if let Some((host, scheme)) = self.target_url {
            put(FORWARDED_HOST, host);
            put(FORWARDED_PROTO, scheme);
        }
        out
    }
}

/// The request headers `request_headers` replaces.
#[must_use]
pub fn replaced() -> [HeaderName; 1] {
    [FORWARDED_FOR]
}

/// Drops the target's CORS headers from its answer.
pub fn remove_cors(headers: &mut HeaderMap) {
    for name in CORS {
        headers.remove(name);
    }
}

/// A target's redirect (`Location`) to a path on its own host (`target`,
/// or the `Host` the client used) rewritten under `prefix` (the proxy path
/// up to the target path), as a path on this server; other redirects stay.
pub fn rewrite_location(headers: &mut HeaderMap, prefix: &str, hosts: &[&str]) {
    let Some(location) = headers.get(header::LOCATION).and_then(|v| v.to_str().ok()) else {
        return;
    };
    let Ok(uri) = location.parse::<http::Uri>() else {
        return;
    };
    let other_host = uri
        .authority()
        .is_some_and(|a| !hosts.contains(&a.as_str()));
    let relative = uri.authority().is_none() && !location.starts_with('/');
    if other_host || relative {
        return;
    }
    let path = uri.path();
    let mut rewritten = if path.starts_with(prefix) {
        path.to_string()
    } else {
        format!("{}{path}", prefix.trim_end_matches('/'))
    };
    if let Some(query) = uri.query() {
        rewritten.push('?');
        rewritten.push_str(query);
    }
    if let Ok(v) = HeaderValue::try_from(rewritten) {
        headers.insert(header::LOCATION, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forwarding(
        upgrade: bool,
        target_url: Option<(&'static str, &'static str)>,
    ) -> Forwarding<'static> {
        Forwarding {
            client: Some("10.0.0.7".parse().expect("ip")),
            uri: "/api/v1/namespaces/d/services/web/proxy/x",
            target_url,
            upgrade,
        }
    }

    #[test]
    fn the_client_is_appended_to_the_forwarded_chain() {
        let mut prior = HeaderMap::new();
        prior.append("x-forwarded-for", HeaderValue::from_static("1.1.1.1"));
        prior.append("x-forwarded-for", HeaderValue::from_static("2.2.2.2"));
        let h = forwarding(false, None).request_headers(&prior);
        assert_eq!(h["x-forwarded-for"], "1.1.1.1, 2.2.2.2, 10.0.0.7");
        assert_eq!(
            h["x-forwarded-uri"],
            "/api/v1/namespaces/d/services/web/proxy/x"
        );
        assert!(h.get("x-forwarded-host").is_none());

        let h =
            forwarding(false, Some(("10.1.1.1:443", "https"))).request_headers(&HeaderMap::new());
        assert_eq!(h["x-forwarded-for"], "10.0.0.7");
        assert_eq!(h["x-forwarded-host"], "10.1.1.1:443");
        assert_eq!(h["x-forwarded-proto"], "https");

        let h =
            forwarding(true, Some(("10.1.1.1:443", "https"))).request_headers(&HeaderMap::new());
        assert_eq!(h.len(), 1, "{h:?}");
    }

    fn rewritten(location: &str) -> String {
        let mut h = HeaderMap::new();
        h.insert(
            header::LOCATION,
            HeaderValue::try_from(location).expect("value"),
        );
        rewrite_location(
            &mut h,
            "/api/v1/namespaces/d/services/web/proxy",
            &["10.0.0.9:80", "api.example:6443"],
        );
        h[header::LOCATION].to_str().expect("text").to_string()
    }

    #[test]
    fn redirects_to_the_target_stay_under_the_proxy_path() {
        let prefix = "/api/v1/namespaces/d/services/web/proxy";
        assert_eq!(rewritten("/login?next=/"), format!("{prefix}/login?next=/"));
        assert_eq!(rewritten("http://10.0.0.9:80/a/"), format!("{prefix}/a/"));
        assert_eq!(
            rewritten("https://api.example:6443/b"),
            format!("{prefix}/b")
        );
        assert_eq!(rewritten(&format!("{prefix}/c")), format!("{prefix}/c"));
        assert_eq!(
            rewritten("https://elsewhere.example/x"),
            "https://elsewhere.example/x"
        );
        assert_eq!(rewritten("relative/path"), "relative/path");
    }

    #[test]
    fn cors_headers_are_dropped() {
        let mut h = HeaderMap::new();
        h.insert("access-control-allow-origin", HeaderValue::from_static("*"));
        h.insert("content-type", HeaderValue::from_static("text/plain"));
        remove_cors(&mut h);
        assert_eq!(h.len(), 1);
    }
}
