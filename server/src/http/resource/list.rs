//! GET of a collection: stored bytes streamed for compact JSON, else the
//! page in the negotiated encoding.

use http::Response;
use http_body_util::BodyExt;

use crate::api::error::ApiError;
use crate::api::store::{ListPage, Store};
use crate::http::body::Body;
use crate::http::encode::json;
use crate::http::encode::table;
use crate::http::negotiate::Encoding;
use crate::http::resource::Call;

/// A page of the collection.
pub async fn list(r: &Call<'_>) -> Result<Response<Body>, ApiError> {
    let (kind, mut writer) = (&r.kind, r.writer);
    r.query.check_not_watch_only(&r.meta_group)?;
    let mut opts = r.query.list_options(kind, &r.state.config.feature_gates)?;
    // Only compact JSON is written item by item as storage is read.
    opts.streamed = r.table.is_none() && writer.is_compact_json();
    let page = r.state.store.list_raw(kind, r.ns, &opts).await?;
    if let Some(opts) = &r.table {
        let compact_json = writer.encoding == Encoding::Json && !writer.pretty;
        return Ok(match table::list(kind, page, opts, compact_json)? {
            table::ListTable::Json(bytes) => writer.bytes(200, bytes),
            table::ListTable::Value(table) => writer.object(200, &table, &[]),
        });
    }
    if writer.is_compact_json() {
        return Ok(writer.stream(json::stored_list(kind, page).boxed()));
    }
    if let Encoding::Protobuf(_) = writer.encoding {
        match writer.protobuf_list(kind, &page) {
            Ok(resp) => return Ok(resp),
            Err(e) => writer = writer.fallback(&e)?,
        }
    }
    let items = page
        .items
        .iter()
        .map(|kv| Store::decode_served(kind, kv))
        .collect::<Result<Vec<_>, _>>()?;
    let page = ListPage {
        items,
        revision: page.revision,
        continue_token: page.continue_token,
        remaining: page.remaining,
    };
    Ok(writer.object(200, &json::list_object(kind, page), &[]))
}
