//! Aggregated discovery (wire-facts §9): `/api` and `/apis` answer
//! `Accept: application/json;g=apidiscovery.{domain};v=v2;as=APIGroupDiscoveryList`
//! (also `g=apidiscovery.k8s.io` and `v=v2beta1`) with every group, version,
//! resource and subresource in one `APIGroupDiscoveryList`, tagged with an
//! `ETag` (`304` on `If-None-Match`) and `Vary: Accept`.

use http::{HeaderMap, HeaderValue, Response, StatusCode, header};
use serde_json::{Value, json};

use crate::api::kind::KindSpec;
use crate::api::registry::Registry;
use crate::http::body::{Body, full};
use crate::http::discovery::subresources;
use crate::http::etag;
use crate::http::router::Route;

const LIST_KIND: &str = "APIGroupDiscoveryList";

/// One media range of an Accept header: quality, parameters, essence.
type MediaRange = (f32, Vec<(String, String)>, String);

/// The requested form: the `g` and `v` parameters to echo.
#[derive(Debug, PartialEq, Eq)]
struct Wanted {
    group: String,
    version: &'static str,
}

/// The aggregated form when the most preferred acceptable media range asks
/// for it; `None` when the client prefers the plain documents.
fn wanted(accept: &str, domain: &str) -> Option<Wanted> {
    let mut ranges: Vec<MediaRange> = accept
        .split(',')
        .filter_map(|range| {
            let mut parts = range.split(';').map(str::trim);
            let essence = parts.next().filter(|e| !e.is_empty())?.to_ascii_lowercase();
            let mut q = 1.0;
            let mut params = Vec::new();
            for p in parts {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                let (k, v) = (k.trim(), v.trim().trim_matches('"'));
                if k == "q" {
                    q = v.parse().unwrap_or(0.0);
                } else {
                    params.push((k.to_string(), v.to_string()));
                }
            }
            Some((q, params, essence))
        })
        .filter(|(q, ..)| *q > 0.0)
        .collect();
    ranges.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
    let own_group = format!("apidiscovery.{domain}");
    for (_, params, essence) in ranges {
        let param = |name: &str| {
            params
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        if param("as").is_none() && param("g").is_none() {
            return None;
        }
        let group = param("g").unwrap_or_default();
        let version = match param("v") {
            Some("v2") => "v2",
            Some("v2beta1") => "v2beta1",
            _ => continue,
        };
        if essence == "application/json"
            && param("as") == Some(LIST_KIND)
            && (group == "apidiscovery.k8s.io" || group == own_group)
        {
            return Some(Wanted {
                group: group.to_string(),
                version,
            });
        }
    }
    None
}

fn response_kind(group: &str, version: &str, kind: &str) -> Value {
    json!({"group": group, "version": version, "kind": kind})
}

fn resource(kind: &KindSpec) -> Value {
    let mut r = json!({
        "resource": kind.resource,
        "responseKind": response_kind(&kind.group, &kind.version, &kind.kind),
        "scope": if kind.namespaced { "Namespaced" } else { "Cluster" },
        "singularResource": kind.singular,
        "verbs": kind.verbs(),
    });
    if !kind.short_names.is_empty() {
        r["shortNames"] = json!(kind.short_names);
    }
    if !kind.categories.is_empty() {
        r["categories"] = json!(kind.categories);
    }
    let subs: Vec<Value> = subresources(kind)
        .into_iter()
        .map(|s| {
            let (g, v) = s
                .group_version
                .unwrap_or((kind.group.as_str(), kind.version.as_str()));
            json!({
                "subresource": s.name,
                "responseKind": response_kind(g, v, &s.kind),
                "verbs": s.verbs,
            })
        })
        .collect();
    if !subs.is_empty() {
        r["subresources"] = Value::Array(subs);
    }
    r
}

fn group_item(registry: &Registry, group: &str, versions: &[String]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|v| {
            let resources: Vec<Value> = registry
                .in_group_version(group, v)
                .iter()
                .map(|k| resource(k))
                .collect();
            json!({"version": v, "resources": resources, "freshness": "Current"})
        })
        .collect();
    json!({"metadata": {"name": group, "creationTimestamp": null}, "versions": versions})
}

/// The list for `/api` (the core group) or `/apis` (named groups, which
/// `merge` adds those of extension servers to and orders).
fn document(
    registry: &Registry,
    core: bool,
    wanted: &Wanted,
    merge: impl FnOnce(&mut Vec<Value>),
) -> Value {
    let items: Vec<Value> = if core {
        vec![group_item(registry, "", &["v1".to_string()])]
    } else {
        let mut items: Vec<Value> = registry
            .groups()
            .iter()
            .map(|(g, vs)| group_item(registry, g, vs))
            .collect();
        merge(&mut items);
        items
    };
    json!({
        "kind": LIST_KIND,
        "apiVersion": format!("{}/{}", wanted.group, wanted.version),
        "metadata": {},
        "items": items,
    })
}

/// Answers `/api` or `/apis` when aggregated discovery is asked for.
#[must_use]
pub fn serve(
    registry: &Registry,
    domain: &str,
    route: &Route<'_>,
    headers: &HeaderMap,
    merge: impl FnOnce(&mut Vec<Value>),
) -> Option<Response<Body>> {
    let core = match route {
        Route::CoreVersions => true,
        Route::Groups => false,
        _ => return None,
    };
    let accept = headers.get(header::ACCEPT)?.to_str().ok()?;
    let wanted = wanted(accept, domain)?;
    let bytes = serde_json::to_vec(&document(registry, core, &wanted, merge))
        .expect("a JSON value always serializes");
    let tag = format!("\"{}\"", etag::content_hash(&bytes));
    let if_none_match = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok());
    let mut resp = if etag::matches(if_none_match, &tag) {
        let mut r = Response::new(full(bytes::Bytes::new()));
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r
    } else {
        Response::new(full(bytes))
    };
    let content_type = format!(
        "application/json;g={};v={};as={LIST_KIND}",
        wanted.group, wanted.version
    );
    let h = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&content_type) {
        h.insert(header::CONTENT_TYPE, v);
    }
    if let Ok(v) = HeaderValue::from_str(&tag) {
        h.insert(header::ETAG, v);
    }
    h.insert(header::VARY, HeaderValue::from_static("Accept"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("public"));
    Some(resp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiates_the_aggregated_form() {
        let kubectl = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
        assert_eq!(
            wanted(kubectl, "k8s.io"),
            Some(Wanted {
                group: "apidiscovery.k8s.io".into(),
                version: "v2"
            })
        );
        assert_eq!(
            wanted(
                "application/json;g=apidiscovery.svc.io;v=v2beta1;as=APIGroupDiscoveryList",
                "svc.io"
            ),
            Some(Wanted {
                group: "apidiscovery.svc.io".into(),
                version: "v2beta1"
            })
        );
        assert_eq!(wanted("application/json", "k8s.io"), None);
        assert_eq!(
            wanted(
                "application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.5",
                "k8s.io"
            ),
            None
        );
        assert_eq!(
            wanted(
                "application/json;g=apidiscovery.other.io;v=v2;as=APIGroupDiscoveryList",
                "k8s.io"
            ),
            None
        );
        assert_eq!(
            wanted(
                "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList",
                "k8s.io"
            ),
            None
        );
    }
}
