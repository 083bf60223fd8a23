//! GET of a collection: stored bytes streamed for compact JSON, else the
//! page in the negotiated encoding; `<Kind>List` envelopes.

use std::sync::Arc;

use http::Response;
use http_body_util::BodyExt;
use serde_json::{Value, json};

use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::store::{ListPage, Store};
use crate::http::body::Body;
use crate::http::list_body::ListBody;
use crate::http::negotiate::Encoding;
use crate::http::resource::Call;
use crate::http::{protobuf, table};
use crate::storage::Revision;

/// A page of the collection.
pub async fn list(r: &Call<'_>) -> Result<Response<Body>, ApiError> {
    let (kind, mut writer) = (&r.kind, r.writer);
    r.query.check_not_watch_only(&r.meta_group)?;
    let opts = r.query.list_options(kind, &r.state.config.feature_gates)?;
    let page = r.state.store.list_raw(kind, r.ns, &opts).await?;
    if let Some(opts) = &r.table {
        return table::list(writer, kind, page, opts);
    }
    if writer.is_compact_json() {
        let head = list_head(
            kind,
            page.revision,
            page.continue_token.clone(),
            page.remaining,
        );
        return Ok(writer.stream(ListBody::new(Arc::clone(kind), head, page.items).boxed()));
    }
    if let Encoding::Protobuf(_) = writer.encoding {
        match protobuf::list(writer, kind, &page) {
            Ok(resp) => return Ok(resp),
            Err(e) => writer = protobuf::fallback(writer, &e)?,
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
    Ok(writer.object(200, &list_object(kind, page), &[]))
}

/// The JSON of a `<Kind>List` up to and including `"items":[`.
fn list_head(
    kind: &KindSpec,
    revision: Revision,
    continue_token: Option<String>,
    remaining: Option<u64>,
) -> Vec<u8> {
    let envelope = list_envelope(kind, revision, continue_token, remaining);
    let mut head = serde_json::to_vec(&envelope).expect("JSON values serialize");
    head.pop();
    head.extend_from_slice(b",\"items\":[");
    head
}

/// `<Kind>List` without its items: kind, apiVersion and ListMeta.
fn list_envelope(
    kind: &KindSpec,
    revision: Revision,
    continue_token: Option<String>,
    remaining: Option<u64>,
) -> Value {
    let mut meta = serde_json::Map::new();
    meta.insert("resourceVersion".into(), json!(revision.get().to_string()));
    if let Some(c) = continue_token {
        meta.insert("continue".into(), json!(c));
    }
    if let Some(r) = remaining {
        meta.insert("remainingItemCount".into(), json!(r));
    }
    json!({"kind": kind.list_kind, "apiVersion": kind.api_version(), "metadata": meta})
}

/// `<Kind>List` for a page.
#[must_use]
pub fn list_object(kind: &KindSpec, page: ListPage) -> Value {
    let mut list = list_envelope(kind, page.revision, page.continue_token, page.remaining);
    list["items"] = Value::Array(page.items);
    list
}
