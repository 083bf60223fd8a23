//! Request bodies: JSON and YAML decoding, CBOR, and protobuf envelopes of
//! every built-in kind that offers protobuf.

use serde_json::Value;

use super::{choose, corpus, fixtures};
use crate::api::decode::{parse_json, parse_yaml};
use crate::api::protobuf;
use crate::http::cbor;

pub fn json(input: &[u8]) {
    if let Ok(decoded) = parse_json(input) {
        // What was read is what is written back and read again.
        let text = serde_json::to_vec(&decoded.value).expect("serializable");
        let again = parse_json(&text).expect("own output parses");
        assert_eq!(again.value, decoded.value);
    }
}

pub fn yaml(input: &[u8]) {
    if let Ok(decoded) = parse_yaml(input) {
        assert!(decoded.value.is_object(), "a YAML body is a mapping");
        serde_json::to_vec(&decoded.value).expect("serializable");
    }
}

pub fn cbor(input: &[u8]) {
    if let Ok(json) = cbor::body_to_json(input)
        && !json.is_empty()
    {
        serde_json::from_slice::<Value>(&json).expect("CBOR becomes JSON text");
    }
}

/// The input is read as one kind's envelope, the kind chosen by the input,
/// so one kind's bytes are also read under other kinds' field numbers.
pub fn protobuf(input: &[u8]) {
    let kinds = &fixtures().protobuf_kinds;
    let kind = &kinds[choose(input, kinds.len())];
    if let Ok(obj) = protobuf::decode_object(&kind.schema, input) {
        assert!(obj.is_object());
    }
    let _ = protobuf::decode_message(&kind.schema, input);
}

/// The JSON corpus in Kubernetes' CBOR form (self-described tag first).
pub fn cbor_seeds() -> Vec<Vec<u8>> {
    corpus("json")
        .iter()
        .filter_map(|seed| serde_json::from_slice::<Value>(seed).ok())
        .map(|value| {
            let mut out = vec![0xd9, 0xd9, 0xf7];
            ciborium::into_writer(&value, &mut out).expect("CBOR of JSON");
            out
        })
        .collect()
}

/// The protobuf corpus (JSON objects) encoded under every kind that takes them.
pub fn protobuf_seeds() -> Vec<Vec<u8>> {
    let objects: Vec<Value> = corpus("protobuf")
        .iter()
        .map(|seed| serde_json::from_slice(seed).expect("protobuf corpus is JSON"))
        .collect();
    fixtures()
        .protobuf_kinds
        .iter()
        .flat_map(|kind| {
            objects
                .iter()
                .filter_map(|obj| protobuf::encode_object(&kind.schema, obj).ok())
        })
        .collect()
}
