//! Protobuf request bodies: objects by their kind's schema (415 for kinds
//! without field numbers) and `DeleteOptions`. Writing protobuf is
//! `encode/protobuf.rs`'s.

use bytes::Bytes;
use serde_json::Value;

use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::protobuf::{self, messages};
use crate::http::negotiate::{self, PROTOBUF, PROTOBUF_SVC};

/// The types offered besides protobuf (for 406 and 415 answers).
pub fn text_types() -> Vec<String> {
    vec!["application/json".into(), "application/yaml".into()]
}

/// Whether a body of `content_type` is protobuf.
pub fn is_protobuf(content_type: Option<&str>) -> bool {
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

/// A body of a type that is not a kind (a TokenRequest): protobuf read by
/// `schema`, anything else as `negotiate::decode_body` reads it.
pub fn decode_typed_body(
    schema: &crate::api::schema::Schema,
    content_type: Option<&str>,
    body: &Bytes,
) -> Result<Value, ApiError> {
    if is_protobuf(content_type) {
        protobuf::decode_object(schema, body)
    } else {
        negotiate::decode_body(content_type, body).map(|d| d.value)
    }
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
