//! Writing answers, one module per media type, used by get, list, watch and
//! write answers alike: JSON (json.rs: values, stored objects, lists and
//! watch frames from stored bytes), YAML (values), CBOR (cbor.rs: values and
//! watch items), protobuf (protobuf.rs), Tables (table.rs); the one
//! streaming list body (list_body.rs) and the re-encoding of a JSON watch
//! stream into Tables or CBOR items (stream_map.rs). `respond.rs` picks the
//! encoder and builds the response.

pub mod cbor;
pub mod json;
pub mod list_body;
pub mod protobuf;
pub mod stream_map;
pub mod table;

use bytes::Bytes;
use serde_json::Value;

use crate::http::negotiate::Encoding;

/// A value (an object without stored bytes, a list, a `Status`) in an
/// encoding; protobuf needs a schema, so `Writer::object` routes it to
/// `protobuf.rs` and only its text fallback arrives here.
#[must_use]
pub fn value(value: &Value, encoding: Encoding, pretty: bool) -> Bytes {
    match encoding {
        Encoding::Json if pretty => {
            let mut out = serde_json::to_vec_pretty(value).expect("a JSON value always serializes");
            out.push(b'\n');
            out.into()
        }
        Encoding::Json => serde_json::to_vec(value)
            .expect("a JSON value always serializes")
            .into(),
        Encoding::Yaml => serde_saphyr::to_string(value)
            .unwrap_or_default()
            .into_bytes()
            .into(),
        Encoding::Cbor => cbor::encode(value).into(),
        Encoding::Protobuf(p) => {
            self::value(value, p.fallback.map_or(Encoding::Json, Into::into), pretty)
        }
    }
}
