//! JSON from stored bytes: objects with their resourceVersion spliced in,
//! `<Kind>List` envelopes, lists streamed item by item, and watch events
//! (`{"type","object"}` documents, one per line).

use std::sync::Arc;

use bytes::Bytes;
use serde_json::{Value, json};

use crate::api::kind::KindSpec;
use crate::api::served::write_object;
use crate::api::store::ListPage;
use crate::api::store::list_tail::ListTail;
use crate::api::store::read::RawPage;
use crate::http::encode::list_body::{ItemEncoder, ListBody, More};
use crate::storage::{KeyValue, Revision};

/// Stored objects as the items of a JSON list.
pub struct JsonItems {
    kind: Arc<KindSpec>,
}

impl ItemEncoder for JsonItems {
    type Item = KeyValue;

    fn item(&self, kv: &KeyValue, first: bool, out: &mut Vec<u8>) {
        if !first {
            out.push(b',');
        }
        write_object(&self.kind, kv, out);
    }
}

/// A page of stored objects as a streamed `<Kind>List`.
#[must_use]
pub fn stored_list(kind: &Arc<KindSpec>, page: RawPage) -> ListBody<JsonItems> {
    let envelope = list_envelope(kind, page.revision, page.continue_token, page.remaining);
    let mut head = serde_json::to_vec(&envelope).expect("JSON values serialize");
    head.pop();
    head.extend_from_slice(b",\"items\":[");
    let items = JsonItems {
        kind: Arc::clone(kind),
    };
    ListBody::new(items, head, page.items, b"]}".to_vec()).followed_by(more_of(page.tail))
}

/// The records of a streamed list's tail, read as the body is sent.
fn more_of(tail: Option<ListTail>) -> Option<More<KeyValue>> {
    tail.map(|tail| {
        More::new(async move {
            match tail.read().await {
                Ok((items, rest)) => Some((items, more_of(rest))),
                Err(e) => {
                    tracing::warn!(error = %e, "a streamed list could not be read to its end; the response is cut short");
                    None
                }
            }
        })
    })
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

/// Appends a watch event of a stored object as a JSON line.
pub fn watch_event(kind: &KindSpec, event_type: &str, kv: &KeyValue, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"type\":\"");
    out.extend_from_slice(event_type.as_bytes());
    out.extend_from_slice(b"\",\"object\":");
    write_object(kind, kv, out);
    out.extend_from_slice(b"}\n");
}

/// A watch event of a value (bookmark, ERROR `Status`) as a JSON line.
#[must_use]
pub fn watch_value(event_type: &str, object: &Value) -> Bytes {
    let mut out = serde_json::to_vec(&json!({"type": event_type, "object": object}))
        .expect("JSON values serialize");
    out.push(b'\n');
    out.into()
}
