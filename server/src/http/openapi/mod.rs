//! `/openapi/v2` and `/openapi/v3` (index and per group/version documents),
//! generated from the registry and rebuilt when its generation changes
//! (CRDs come and go). Served as Kubernetes serves them: `ETag` with `304`
//! on `If-None-Match`; v3 documents addressed by `?hash=` are immutable
//! (long cache headers) and an outdated hash is redirected to the current one.

pub mod document;
pub mod meta_types;
pub mod names;
pub mod operations;
pub mod schema_json;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Response, StatusCode, header};
use parking_lot::Mutex;
use serde_json::{Value, json};

use crate::api::registry::Registry;
use crate::http::body::{Body, full};
use crate::http::etag;
use crate::http::params::Query;
use crate::util::time::http_date;
use names::Namer;

/// A generated document and its content hash.
struct Doc {
    bytes: Bytes,
    hash: String,
}

impl Doc {
    fn new(value: &Value) -> Doc {
        let bytes = serde_json::to_vec(value).expect("a JSON value always serializes");
        Doc {
            hash: etag::content_hash(&bytes),
            bytes: bytes.into(),
        }
    }
}

/// Every document of one registry generation.
struct Built {
    generation: u64,
    v2: Doc,
    v3_index: Doc,
    v3: Vec<(String, Doc)>,
}

/// The OpenAPI documents, built on first request after each registry change.
#[derive(Default)]
pub struct Documents {
    cache: Mutex<Option<Arc<Built>>>,
}

fn build(registry: &Registry, domain: &str) -> Built {
    // Generation first: a change racing the build leaves a stale tag behind,
    // so the next request rebuilds.
    let generation = registry.generation();
    let kinds: Vec<_> = registry.snapshot().iter().cloned().collect();
    let namer = Namer::new(domain);
    let v3: Vec<(String, Doc)> = document::openapi_v3(&namer, &kinds)
        .into_iter()
        .map(|(key, doc)| (key, Doc::new(&doc)))
        .collect();
    let index: serde_json::Map<String, Value> = v3
        .iter()
        .map(|(key, doc)| {
            (
                key.clone(),
                json!({"serverRelativeURL": relative_url(key, &doc.hash)}),
            )
        })
        .collect();
    Built {
        generation,
        v2: Doc::new(&document::swagger(&namer, &kinds)),
        v3_index: Doc::new(&json!({ "paths": index })),
        v3,
    }
}

fn relative_url(key: &str, hash: &str) -> String {
    format!("/openapi/v3/{key}?hash={hash}")
}

impl Documents {
    fn current(&self, registry: &Registry, domain: &str) -> Arc<Built> {
        let mut cache = self.cache.lock();
        match &*cache {
            Some(b) if b.generation == registry.generation() => Arc::clone(b),
            _ => {
                let built = Arc::new(build(registry, domain));
                *cache = Some(Arc::clone(&built));
                built
            }
        }
    }

    /// Answers a request under `/openapi/`; `None` for other paths.
    #[must_use]
    pub fn serve(
        &self,
        registry: &Registry,
        domain: &str,
        path: &str,
        query: &Query,
        headers: &HeaderMap,
    ) -> Option<Response<Body>> {
        let rest = path.strip_prefix("/openapi/")?;
        let accept = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok());
        let if_none_match = headers
            .get(header::IF_NONE_MATCH)
            .and_then(|v| v.to_str().ok());
        let rest = rest.trim_end_matches('/');
        if rest != "v2" && rest != "v3" && !rest.starts_with("v3/") {
            return None;
        }
        if !accepts_json(accept) {
            return Some(plain(StatusCode::NOT_ACCEPTABLE, ""));
        }
        let built = self.current(registry, domain);
        let resp = match rest {
            "v2" => document_response(&built.v2, if_none_match),
            "v3" => document_response(&built.v3_index, if_none_match),
            _ => {
                let key = &rest["v3/".len()..];
                let Some((_, doc)) = built.v3.iter().find(|(k, _)| k == key) else {
                    return Some(plain(StatusCode::NOT_FOUND, "404 page not found\n"));
                };
                match query.get("hash").filter(|h| !h.is_empty()) {
                    Some(hash) if hash != doc.hash => {
                        let mut r = plain(StatusCode::MOVED_PERMANENTLY, "");
                        if let Ok(v) = HeaderValue::from_str(&relative_url(key, &doc.hash)) {
                            r.headers_mut().insert(header::LOCATION, v);
                        }
                        r
                    }
                    Some(_) => {
                        let mut r = document_response(doc, if_none_match);
                        let h = r.headers_mut();
                        h.insert(
                            header::CACHE_CONTROL,
                            HeaderValue::from_static("public, immutable"),
                        );
                        let expires =
                            http_date(SystemTime::now() + Duration::from_secs(365 * 86_400));
                        if let Ok(v) = HeaderValue::from_str(&expires) {
                            h.insert(header::EXPIRES, v);
                        }
                        r
                    }
                    None => document_response(doc, if_none_match),
                }
            }
        };
        Some(resp)
    }
}

/// Whether the client takes JSON: these documents are not offered in the
/// protobuf form (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`).
fn accepts_json(accept: Option<&str>) -> bool {
    let Some(accept) = accept.filter(|a| !a.trim().is_empty()) else {
        return true;
    };
    accept.split(',').any(|range| {
        let mut parts = range.split(';').map(str::trim);
        let essence = parts.next().unwrap_or_default().to_ascii_lowercase();
        let refused = parts.any(|p| p.replace(' ', "") == "q=0");
        !refused
            && matches!(
                essence.as_str(),
                "application/json" | "application/*" | "*/*"
            )
    })
}

fn plain(code: StatusCode, text: &'static str) -> Response<Body> {
    let mut resp = Response::new(full(text));
    *resp.status_mut() = code;
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    resp
}

/// A document with its `ETag`, or `304` when the client has it.
fn document_response(doc: &Doc, if_none_match: Option<&str>) -> Response<Body> {
    let tag = format!("\"{}\"", doc.hash);
    let mut resp = if etag::matches(if_none_match, &tag) {
        let mut r = Response::new(full(Bytes::new()));
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r
    } else {
        let mut r = Response::new(full(doc.bytes.clone()));
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        r
    };
    if let Ok(v) = HeaderValue::from_str(&tag) {
        resp.headers_mut().insert(header::ETAG, v);
    }
    resp.headers_mut()
        .insert(header::VARY, HeaderValue::from_static("Accept"));
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_accepted_unless_only_protobuf_is() {
        assert!(accepts_json(None));
        assert!(accepts_json(Some("application/json, */*")));
        assert!(accepts_json(Some("*/*")));
        assert!(!accepts_json(Some(
            "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
        )));
        assert!(accepts_json(Some(
            "application/com.github.proto-openapi.spec.v2@v1.0+protobuf, application/json"
        )));
        assert!(!accepts_json(Some("application/json;q=0")));
    }
}
