//! Protobuf bytes: a kind's objects and lists (enveloped), `Status`, watch
//! frames, and stored lists streamed item by item. Knows nothing of
//! responses: `respond.rs` decides when protobuf is written.

use bytes::Bytes;
use serde_json::Value;

use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::protobuf::{self, envelope, messages};
use crate::api::store::read::RawPage;
use crate::http::encode::list_body::{ItemEncoder, ListBody};
use crate::http::negotiate::Protobuf;
use crate::storage::KeyValue;

/// Whether a value is a `Status` (errors, and deletes answered with one).
#[must_use]
pub fn is_status(value: &Value) -> bool {
    value.get("kind").and_then(Value::as_str) == Some("Status")
        && value.get("apiVersion").and_then(Value::as_str) == Some("v1")
}

/// A `Status`; `None` when the value is not one (it has no schema here).
#[must_use]
pub fn status(value: &Value) -> Option<Vec<u8>> {
    if !is_status(value) {
        return None;
    }
    protobuf::encode_object(&messages::STATUS, value).ok()
}

/// A kind's object or `<Kind>List`.
pub fn value(kind: &KindSpec, value: &Value) -> Result<Vec<u8>, ApiError> {
    if value.get("kind").and_then(Value::as_str) == Some(kind.list_kind.as_str()) {
        list_bytes(kind, value)
    } else {
        protobuf::encode_object(&kind.schema, value)
    }
}

/// The `<Kind>List` of `items` as one enveloped message.
fn list_bytes(kind: &KindSpec, list: &Value) -> Result<Vec<u8>, ApiError> {
    let meta = list.get("metadata").cloned().unwrap_or(Value::Null);
    let meta = if meta.is_object() {
        protobuf::encode_message(&messages::LIST_META, &meta)?
    } else {
        Vec::new()
    };
    let empty = Vec::new();
    let items = list
        .get("items")
        .and_then(Value::as_array)
        .unwrap_or(&empty)
        .iter()
        .map(|item| protobuf::encode_message(&kind.schema, item))
        .collect::<Result<Vec<_>, _>>()?;
    let items_len = items.iter().map(|i| envelope::list_item_len(i.len())).sum();
    let mut out = envelope::list_head(&kind.api_version(), &kind.list_kind, &meta, items_len);
    for item in &items {
        envelope::list_item(item, &mut out);
    }
    out.extend_from_slice(&envelope::list_tail());
    Ok(out)
}

/// A stored object; `Err` (not acceptable) when protobuf cannot carry it.
pub fn stored(kind: &KindSpec, kv: &KeyValue) -> Result<Bytes, ApiError> {
    protobuf::stored_object(kind, kv).map(Into::into)
}

/// Items' messages as the items of a protobuf list.
pub struct ProtobufItems;

impl ItemEncoder for ProtobufItems {
    type Item = Bytes;

    fn item(&self, item: &Bytes, _first: bool, out: &mut Vec<u8>) {
        envelope::list_item(item, out);
    }
}

/// A page of stored objects as a streamed `<Kind>List`; `Err` (not
/// acceptable) when protobuf cannot carry one of them.
pub fn stored_list(kind: &KindSpec, page: &RawPage) -> Result<ListBody<ProtobufItems>, ApiError> {
    let items = protobuf::stored_messages(kind, &page.items)?;
    let mut meta = serde_json::Map::new();
    meta.insert(
        "resourceVersion".into(),
        Value::String(page.revision.get().to_string()),
    );
    if let Some(c) = &page.continue_token {
        meta.insert("continue".into(), Value::String(c.clone()));
    }
    if let Some(r) = page.remaining {
        meta.insert("remainingItemCount".into(), Value::from(r));
    }
    let meta = protobuf::encode_message(&messages::LIST_META, &Value::Object(meta))?;
    let items_len = items.iter().map(|i| envelope::list_item_len(i.len())).sum();
    let head = envelope::list_head(&kind.api_version(), &kind.list_kind, &meta, items_len);
    Ok(ListBody::new(
        ProtobufItems,
        head,
        items,
        envelope::list_tail(),
    ))
}

/// The Content-Type of a protobuf watch stream.
#[must_use]
pub fn watch_content_type(p: Protobuf) -> &'static str {
    if p.svc_spelling {
        "application/vnd.svc.protobuf;stream=watch"
    } else {
        "application/vnd.kubernetes.protobuf;stream=watch"
    }
}

/// Appends a watch event of a stored object as a protobuf frame.
pub fn watch_event(
    kind: &KindSpec,
    event_type: &str,
    kv: &KeyValue,
    out: &mut Vec<u8>,
) -> Result<(), ApiError> {
    let object = protobuf::stored_object(kind, kv)?;
    envelope::watch_frame(event_type, &object, out);
    Ok(())
}

/// A watch event of a value (bookmark, ERROR `Status`) as a protobuf frame.
pub fn watch_value(kind: &KindSpec, event_type: &str, value: &Value) -> Result<Bytes, ApiError> {
    let schema = if is_status(value) {
        &*messages::STATUS
    } else {
        &kind.schema
    };
    let object = protobuf::encode_object(schema, value)?;
    let mut out = Vec::with_capacity(object.len() + 16);
    envelope::watch_frame(event_type, &object, &mut out);
    Ok(out.into())
}
