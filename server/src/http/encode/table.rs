//! Table responses (`Accept: application/json;as=Table;g=meta.{domain};v=v1`)
//! for get, list and watch: the request's options, and the answers built
//! with the generic `api::table` builder.

use serde_json::{Map, Value, json};

use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::store::Store;
use crate::api::store::read::RawPage;
use crate::api::table::{IncludeObject, TableBuilder, TableOptions, object_list_meta};
use crate::http::body::Body;
use crate::http::encode::stream_map::map_lines;
use crate::http::negotiate::TableTarget;
use crate::http::params::Query;

/// The Table options of a request: `includeObject` (400 when invalid).
pub fn options(target: TableTarget, query: &Query, domain: &str) -> Result<TableOptions, ApiError> {
    Ok(TableOptions {
        api_version: target.api_version(domain),
        include: IncludeObject::parse(query.get("includeObject"))?,
    })
}

/// One object's Table (its resourceVersion in the Table's metadata).
#[must_use]
pub fn object(kind: &KindSpec, obj: &Value, opts: &TableOptions) -> Value {
    TableBuilder::new(kind, opts.clone()).table([obj], object_list_meta(obj), true)
}

/// A list's Table as written: compact JSON bytes (row by row), or the value
/// for another encoding to write.
pub enum ListTable {
    Json(Vec<u8>),
    Value(Value),
}

/// A list page's Table, its ListMeta (resourceVersion, continue,
/// remainingItemCount) carried over; `compact_json` writes it row by row.
pub fn list(
    kind: &KindSpec,
    page: RawPage,
    opts: &TableOptions,
    compact_json: bool,
) -> Result<ListTable, ApiError> {
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
    if compact_json {
        let mut out = Vec::new();
        builder.write_json(objects, meta, &mut out)?;
        return Ok(ListTable::Json(out));
    }
    let objects = objects.collect::<Result<Vec<_>, _>>()?;
    Ok(ListTable::Value(builder.table(&objects, meta, true)))
}

/// A JSON watch stream whose objects become one-row Tables: the first
/// carries `columnDefinitions`, later ones `null`. ERROR (a Status) and
/// BOOKMARK objects pass through as they are. (Served as `application/json`.)
#[must_use]
pub fn watch(body: Body, kind: &std::sync::Arc<KindSpec>, opts: &TableOptions) -> Body {
    let kind = std::sync::Arc::clone(kind);
    let opts = opts.clone();
    let mut first = true;
    map_lines(body, move |line| {
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
    })
}
