//! Table responses (`Accept: application/json;as=Table;g=meta.{domain};v=v1`)
//! for get, list and watch: the request's options, and the answers built
//! with the generic `api::table` builder.

use http::{Response, header};
use serde_json::{Map, Value, json};

use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::store::Store;
use crate::api::store::read::RawPage;
use crate::api::table::{IncludeObject, TableBuilder, TableOptions, object_list_meta};
use crate::http::body::Body;
use crate::http::encode::stream_map::map_lines;
use crate::http::negotiate::{Encoding, TableTarget};
use crate::http::params::Query;
use crate::http::respond::Writer;

/// The Table options of a request: `includeObject` (400 when invalid).
pub fn options(target: TableTarget, query: &Query, domain: &str) -> Result<TableOptions, ApiError> {
    Ok(TableOptions {
        api_version: target.api_version(domain),
        include: IncludeObject::parse(query.get("includeObject"))?,
    })
}

/// One object's Table (its resourceVersion in the Table's metadata).
#[must_use]
pub fn object(writer: Writer, kind: &KindSpec, obj: &Value, opts: &TableOptions) -> Response<Body> {
    let table = TableBuilder::new(kind, opts.clone()).table([obj], object_list_meta(obj), true);
    writer.object(200, &table, &[])
}

/// A list page's Table, its ListMeta (resourceVersion, continue,
/// remainingItemCount) carried over. Compact JSON is written row by row.
pub fn list(
    writer: Writer,
    kind: &KindSpec,
    page: RawPage,
    opts: &TableOptions,
) -> Result<Response<Body>, ApiError> {
    let mut meta = Map::new();
    meta.insert(
        "resourceVersion".into(),
        json!(page.revision.get().to_string()),
    );
    if let Some(c) = &page.continue_token {
        meta.insert("continue".into(), json!(c));
    }
    if let Some(r) = page.remaining {
        meta.insert("remainingItemCount".into(), json!(r));
    }
    let builder = TableBuilder::new(kind, opts.clone());
    let objects = page.items.iter().map(|kv| Store::decode_served(kind, kv));
    if writer.encoding == Encoding::Json && !writer.pretty {
        let mut out = Vec::new();
        builder.write_json(objects, meta, &mut out)?;
        return Ok(writer.bytes(200, out));
    }
    let objects = objects.collect::<Result<Vec<_>, _>>()?;
    Ok(writer.object(200, &builder.table(&objects, meta, true), &[]))
}

/// A JSON watch stream whose objects become one-row Tables: the first
/// carries `columnDefinitions`, later ones `null`. ERROR (a Status) and
/// BOOKMARK objects pass through as they are.
#[must_use]
pub fn watch(
    resp: Response<Body>,
    kind: &std::sync::Arc<KindSpec>,
    opts: &TableOptions,
) -> Response<Body> {
    let kind = std::sync::Arc::clone(kind);
    let opts = opts.clone();
    let mut first = true;
    let (mut parts, body) = resp.into_parts();
    parts.headers.insert(
        header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    let body = map_lines(body, move |line| {
        let mut event: Value = serde_json::from_slice(line).ok()?;
        let passes = matches!(event["type"].as_str(), Some("ERROR" | "BOOKMARK"));
        if !passes {
            let builder = TableBuilder::new(&kind, opts.clone());
            let obj = event["object"].take();
            event["object"] = builder.table([&obj], object_list_meta(&obj), first);
            first = false;
        }
        let mut out = serde_json::to_vec(&event).ok()?;
        out.push(b'\n');
        Some(out)
    });
    Response::from_parts(parts, body)
}
