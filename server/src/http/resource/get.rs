//! GET of one object, and watches (of one object or a collection) in the
//! representation asked for.

use std::sync::Arc;

use http::{Response, header};

use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::served;
use crate::api::store::Store;
use crate::api::table::TableOptions;
use crate::http::body::Body;
use crate::http::compress::Uncompressed;
use crate::http::encode::stream_map::map_lines;
use crate::http::encode::table;
use crate::http::negotiate::Encoding;
use crate::http::resource::Call;
use crate::http::respond::Writer;
use crate::http::{encode, watch};

/// One stored object: its stored bytes for compact JSON, its Table, or the
/// negotiated encoding.
pub async fn get(r: &Call<'_>, name: &str) -> Result<Response<Body>, ApiError> {
    let (kind, mut writer) = (&r.kind, r.writer);
    let kv = r
        .state
        .store
        .get_raw(kind, r.ns, name, r.query.get("resourceVersion"))
        .await?;
    if let Some(opts) = &r.table {
        let obj = Store::decode_served(kind, &kv)?;
        return Ok(writer.object(200, &table::object(kind, &obj, opts), &[]));
    }
    if writer.is_compact_json() {
        return Ok(writer.bytes(200, served::object_bytes(kind, &kv)));
    }
    if let Encoding::Protobuf(_) = writer.encoding {
        match writer.protobuf_stored(kind, &kv) {
            Ok(resp) => return Ok(resp),
            Err(e) => writer = writer.fallback(&e)?,
        }
    }
    Ok(writer.object(200, &Store::decode_served(kind, &kv)?, &[]))
}

/// A watch of one object (`name`) or of the collection.
pub async fn watch(r: &Call<'_>, name: Option<&str>) -> Result<Response<Body>, ApiError> {
    let resp = watch::serve(r.state, &r.kind, r.ns, name, r.query, r.writer.encoding).await?;
    Ok(watch_response(resp, r.writer, &r.kind, r.table.as_ref()))
}

/// A watch stream in the representation asked for: Tables, a CBOR
/// sequence, or the JSON stream as it is; never compressed.
fn watch_response(
    resp: Response<Body>,
    writer: Writer,
    kind: &Arc<KindSpec>,
    table_opts: Option<&TableOptions>,
) -> Response<Body> {
    let mut resp = match (table_opts, writer.encoding) {
        (Some(opts), _) => {
            let (mut parts, body) = resp.into_parts();
            parts.headers.insert(
                header::CONTENT_TYPE,
                http::HeaderValue::from_static("application/json"),
            );
            Response::from_parts(parts, table::watch(body, kind, opts))
        }
        (None, Encoding::Cbor) => {
            let (mut parts, body) = resp.into_parts();
            parts.headers.insert(
                header::CONTENT_TYPE,
                http::HeaderValue::from_static("application/cbor-seq"),
            );
            Response::from_parts(parts, map_lines(body, encode::cbor::watch_item))
        }
        (None, _) => resp,
    };
    resp.extensions_mut().insert(Uncompressed);
    resp
}
