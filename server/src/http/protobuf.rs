//! Protobuf at the HTTP edge: whether a kind's responses can be protobuf
//! (else the Accept header's fallback, else 406), writing objects, lists
//! and `Status` enveloped, and reading protobuf bodies (415 for kinds
//! without field numbers).

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::BodyExt;
use serde_json::Value;

use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::protobuf::{self, envelope, messages};
use crate::api::store::read::RawPage;
use crate::http::body::{Body, full};
use crate::http::negotiate::{self, Encoding, PROTOBUF, PROTOBUF_SVC, Protobuf};
use crate::http::protobuf_list::ProtobufListBody;
use crate::http::respond::{Writer, add_warnings};
use crate::storage::KeyValue;

/// The types offered besides protobuf (for 406 and 415 answers).
fn text_types() -> Vec<String> {
    vec!["application/json".into(), "application/yaml".into()]
}

/// `writer` in the Accept header's fallback encoding, else 406 naming the
/// types that can carry the response (as Kubernetes answers); `why`
/// protobuf cannot carry it goes to the debug log.
pub fn fallback(writer: Writer, why: &ApiError) -> Result<Writer, ApiError> {
    match writer.encoding {
        Encoding::Protobuf(Protobuf {
            fallback: Some(text),
            ..
        }) => Ok(Writer {
            encoding: text.into(),
            ..writer
        }),
        Encoding::Protobuf(_) => {
            tracing::debug!("protobuf not available: {why}");
            Err(ApiError::NotAcceptable(text_types()))
        }
        _ => Ok(writer),
    }
}

/// The writer for a kind's responses: protobuf only if the kind has it.
pub fn for_kind(writer: Writer, kind: &KindSpec) -> Result<Writer, ApiError> {
    match writer.encoding {
        Encoding::Protobuf(_) if !protobuf::offered(&kind.schema) => {
            let why = format!("{} has no protobuf form", kind.qualified_resource());
            fallback(writer, &ApiError::NotAcceptable(vec![why]))
        }
        _ => Ok(writer),
    }
}

fn respond(writer: Writer, code: u16, body: impl Into<Body>) -> Response<Body> {
    let mut resp = Response::new(body.into());
    *resp.status_mut() = StatusCode::from_u16(code).unwrap_or(StatusCode::OK);
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(writer.encoding.content_type()),
    );
    resp
}

/// Whether a value is a `Status` (errors, and deletes answered with one).
fn is_status(value: &Value) -> bool {
    value.get("kind").and_then(Value::as_str) == Some("Status")
        && value.get("apiVersion").and_then(Value::as_str) == Some("v1")
}

/// A value without a kind's schema at hand: a `Status` is written in
/// protobuf; anything else in the fallback (JSON when protobuf was the
/// only type accepted: the value is not a kind's and has no other form).
#[must_use]
pub fn untyped(
    writer: Writer,
    p: Protobuf,
    code: u16,
    value: &Value,
    warnings: &[String],
) -> Response<Body> {
    if is_status(value)
        && let Ok(bytes) = protobuf::encode_object(&messages::STATUS, value)
    {
        let mut resp = respond(writer, code, full(bytes));
        add_warnings(&mut resp, warnings);
        return resp;
    }
    Writer {
        encoding: p.fallback.map_or(Encoding::Json, Into::into),
        ..writer
    }
    .object(code, value, warnings)
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

/// A kind's object, list or `Status` in the writer's encoding; protobuf
/// falls back (or 406s) when it cannot carry the value.
#[must_use]
pub fn reply(
    writer: Writer,
    kind: &KindSpec,
    code: u16,
    value: &Value,
    warnings: &[String],
) -> Response<Body> {
    let Encoding::Protobuf(p) = writer.encoding else {
        return writer.object(code, value, warnings);
    };
    if is_status(value) {
        return untyped(writer, p, code, value, warnings);
    }
    let encoded = if value.get("kind").and_then(Value::as_str) == Some(kind.list_kind.as_str()) {
        list_bytes(kind, value)
    } else {
        protobuf::encode_object(&kind.schema, value)
    };
    match encoded {
        Ok(bytes) => {
            let mut resp = respond(writer, code, full(bytes));
            add_warnings(&mut resp, warnings);
            resp
        }
        Err(e) => match fallback(writer, &e) {
            Ok(w) => w.object(code, value, warnings),
            Err(e) => writer.error(&e),
        },
    }
}

/// A stored object; `Err` (not acceptable) when protobuf cannot carry it.
pub fn get(writer: Writer, kind: &KindSpec, kv: &KeyValue) -> Result<Response<Body>, ApiError> {
    Ok(respond(
        writer,
        200,
        full(protobuf::stored_object(kind, kv)?),
    ))
}

/// A page of stored objects as a streamed `<Kind>List`; `Err` (not
/// acceptable) when protobuf cannot carry one of them.
pub fn list(writer: Writer, kind: &KindSpec, page: &RawPage) -> Result<Response<Body>, ApiError> {
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
    let body = ProtobufListBody::new(head, items, envelope::list_tail());
    Ok(respond(writer, 200, body.boxed()))
}

fn is_protobuf(content_type: Option<&str>) -> bool {
    matches!(&*negotiate::essence(content_type), PROTOBUF | PROTOBUF_SVC)
}

/// Decodes a create/update body: protobuf by the kind's schema (415 when
/// the kind has none), anything else as `negotiate::decode_body` does.
pub fn decode_body(
    kind: &KindSpec,
    content_type: Option<&str>,
    body: &Bytes,
) -> Result<Decoded, ApiError> {
    if !is_protobuf(content_type) {
        return negotiate::decode_body(content_type, body);
    }
    if !protobuf::offered(&kind.schema) {
        return Err(ApiError::UnsupportedMediaType(text_types()));
    }
    Ok(Decoded {
        value: protobuf::decode_object(&kind.schema, body)?,
        duplicates: Vec::new(),
    })
}

/// A protobuf `DeleteOptions` body as JSON; `None` for other content types.
pub fn delete_options_body(
    content_type: Option<&str>,
    body: &Bytes,
) -> Result<Option<Value>, ApiError> {
    if !is_protobuf(content_type) {
        return Ok(None);
    }
    protobuf::decode_object(&messages::DELETE_OPTIONS, body).map(Some)
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
