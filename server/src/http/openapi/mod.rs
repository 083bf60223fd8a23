//! `/openapi/v2` and `/openapi/v3` (index and per group/version documents),
//! generated from the registry and rebuilt when its generation changes
//! (CRDs come and go). Served as Kubernetes serves them: `ETag` with `304`
//! on `If-None-Match`; v3 documents addressed by `?hash=` are immutable
//! (long cache headers) and an outdated hash is redirected to the current one.
//! `/openapi/v2` is also offered in gnostic's protobuf form (see `v2_proto`),
//! converted on first request from the JSON document and sharing its `ETag`.

pub mod document;
pub mod meta_types;
pub mod names;
pub mod operations;
pub mod schema_json;
pub mod v2_proto;

use std::sync::{Arc, OnceLock};
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
    /// `v2` in protobuf form, converted when first asked for.
    v2_protobuf: OnceLock<Bytes>,
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
        v2_protobuf: OnceLock::new(),
        v3_index: Doc::new(&json!({ "paths": index })),
        v3,
    }
}

impl Built {
    fn v2_protobuf(&self) -> Bytes {
        self.v2_protobuf
            .get_or_init(|| {
                let json: Value = serde_json::from_slice(&self.v2.bytes)
                    .expect("the served document was written from a JSON value");
                let encoded = v2_proto::encode(&json);
                if !encoded.dropped.is_empty() {
                    tracing::warn!(keys = ?encoded.dropped, "/openapi/v2 keys missing from the protobuf form");
                }
                encoded.bytes.into()
            })
            .clone()
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
        let offers = if rest == "v2" { V2_FORMATS } else { JSON_ONLY };
        let Some(format) = negotiate(accept, offers) else {
            return Some(plain(StatusCode::NOT_ACCEPTABLE, ""));
        };
        let built = self.current(registry, domain);
        let resp = match rest {
            "v2" if format == Format::Protobuf => {
                let proto = Doc {
                    bytes: built.v2_protobuf(),
                    hash: built.v2.hash.clone(),
                };
                document_response(&proto, PROTOBUF_TYPE, if_none_match)
            }
            "v2" => document_response(&built.v2, JSON_TYPE, if_none_match),
            "v3" => document_response(&built.v3_index, JSON_TYPE, if_none_match),
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
                        let mut r = document_response(doc, JSON_TYPE, if_none_match);
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
                    None => document_response(doc, JSON_TYPE, if_none_match),
                }
            }
        };
        Some(resp)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Json,
    Protobuf,
}

const JSON_TYPE: &str = "application/json";
/// What a protobuf answer is labelled, whichever of the two names was asked.
const PROTOBUF_TYPE: &str = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

/// What `/openapi/v2` offers, in Kubernetes' order of preference: JSON, the
/// protobuf form under its older name (what client-go sends), then its newer.
const V2_FORMATS: &[(&str, &str, Format)] = &[
    ("application", "json", Format::Json),
    (
        "application",
        "com.github.proto-openapi.spec.v2@v1.0+protobuf",
        Format::Protobuf,
    ),
    (
        "application",
        "com.github.proto-openapi.spec.v2.v1.0+protobuf",
        Format::Protobuf,
    ),
];
const JSON_ONLY: &[(&str, &str, Format)] = &[("application", "json", Format::Json)];

/// The format to answer in: the media ranges of `Accept` by quality (ties: the
/// more specific first), each taking the first offer it matches; no `Accept`
/// takes anything. `None`: nothing offered is acceptable (`q=0` refuses).
fn negotiate(accept: Option<&str>, offers: &[(&str, &str, Format)]) -> Option<Format> {
    let accept = accept.filter(|a| !a.trim().is_empty()).unwrap_or("*/*");
    let mut ranges: Vec<(String, String, f32)> = accept
        .split(',')
        .filter_map(|range| {
            let mut parts = range.split(';').map(str::trim);
            let essence = parts.next()?.to_ascii_lowercase();
            let (ty, sub) = essence.split_once('/')?;
            let quality = parts
                .filter_map(|p| p.split_once('='))
                .find(|(k, _)| k.trim() == "q")
                .map_or(1.0, |(_, q)| q.trim().parse().unwrap_or(0.0));
            Some((ty.trim().to_string(), sub.trim().to_string(), quality))
        })
        .filter(|(_, _, q)| *q > 0.0)
        .collect();
    ranges.sort_by(|a, b| {
        b.2.total_cmp(&a.2)
            .then((a.0 == "*").cmp(&(b.0 == "*")))
            .then((a.1 == "*").cmp(&(b.1 == "*")))
    });
    ranges.iter().find_map(|(ty, sub, _)| {
        offers
            .iter()
            .find(|(t, s, _)| (ty == "*" || ty == t) && (sub == "*" || sub == s))
            .map(|(_, _, format)| *format)
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
fn document_response(
    doc: &Doc,
    content_type: &'static str,
    if_none_match: Option<&str>,
) -> Response<Body> {
    let tag = format!("\"{}\"", doc.hash);
    let mut resp = if etag::matches(if_none_match, &tag) {
        let mut r = Response::new(full(Bytes::new()));
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r
    } else {
        let mut r = Response::new(full(doc.bytes.clone()));
        r.headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
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
    fn negotiates_json_or_protobuf_as_kubernetes() {
        let v2 = |accept: Option<&str>| negotiate(accept, V2_FORMATS);
        assert_eq!(v2(None), Some(Format::Json));
        assert_eq!(v2(Some("*/*")), Some(Format::Json));
        assert_eq!(v2(Some("application/json, */*")), Some(Format::Json));
        let old = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
        let new = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
        assert_eq!(v2(Some(old)), Some(Format::Protobuf));
        assert_eq!(v2(Some(new)), Some(Format::Protobuf));
        assert_eq!(
            v2(Some(&format!("{old}, application/json"))),
            Some(Format::Protobuf)
        );
        assert_eq!(
            v2(Some(&format!("{old};q=0.5, application/json"))),
            Some(Format::Json)
        );
        assert_eq!(v2(Some(&format!("*/*, {new}"))), Some(Format::Protobuf));
        assert_eq!(v2(Some("application/json;q=0")), None);
        assert_eq!(v2(Some("text/html")), None);
        assert_eq!(negotiate(Some(old), JSON_ONLY), None);
        assert_eq!(
            negotiate(Some("application/*"), JSON_ONLY),
            Some(Format::Json)
        );
    }
}
