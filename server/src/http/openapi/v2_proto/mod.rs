//! `/openapi/v2` in the protobuf form client-go asks for
//! (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`): gnostic's
//! `openapi.v2.Document`, converted from the very JSON document the JSON form
//! serves, as Kubernetes converts it (kubectl's client-side validation of
//! `List` documents reads definitions, types, `$ref`s and
//! `x-kubernetes-group-version-kind` from it).

mod convert_document;
mod convert_schema;
pub mod document_messages;
mod fields;
pub mod parameter_messages;
pub mod schema_messages;
#[cfg(test)]
mod tests;

use prost::Message;
use serde_json::Value;

/// A document in protobuf form, and the JSON keys it could not carry.
pub struct Encoded {
    pub bytes: Vec<u8>,
    pub dropped: Vec<String>,
}

/// Converts a Swagger 2.0 JSON document into protobuf bytes.
#[must_use]
pub fn encode(document: &Value) -> Encoded {
    let mut dropped = Vec::new();
    let message = convert_document::document(document, &mut dropped);
    dropped.sort();
    dropped.dedup();
    Encoded {
        bytes: message.encode_to_vec(),
        dropped,
    }
}
