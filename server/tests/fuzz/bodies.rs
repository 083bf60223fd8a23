//! Request bodies: JSON and YAML decoding, CBOR, and protobuf envelopes of
//! every built-in kind that offers protobuf.

use std::sync::Arc;

use cairn_apiserver::api::decode::{parse_json, parse_yaml};
use cairn_apiserver::api::kind::KindSpec;
use cairn_apiserver::api::kinds;
use cairn_apiserver::api::protobuf;
use cairn_apiserver::config::{Config, Flags};
use cairn_apiserver::http::cbor;
use clap::Parser;
use serde_json::Value;

use crate::mutate::{corpus, run, run_seeds};

/// Every built-in kind, as a server started with no flags serves them.
pub fn builtin_kinds() -> Vec<Arc<KindSpec>> {
    let config = Config::from(Flags::parse_from(["cairn-apiserver"]));
    kinds::builtin(&config).snapshot().iter().cloned().collect()
}

#[test]
fn json_bodies_decode_or_fail_cleanly() {
    run("json", |input| {
        if let Ok(decoded) = parse_json(input) {
            // What was read is what is written back and read again.
            let text = serde_json::to_vec(&decoded.value).expect("serializable");
            let again = parse_json(&text).expect("own output parses");
            assert_eq!(again.value, decoded.value);
        }
    });
}

#[test]
fn yaml_bodies_decode_or_fail_cleanly() {
    run("yaml", |input| {
        if let Ok(decoded) = parse_yaml(input) {
            assert!(decoded.value.is_object(), "a YAML body is a mapping");
            serde_json::to_vec(&decoded.value).expect("serializable");
        }
    });
}

/// The JSON corpus in Kubernetes' CBOR form (self-described tag first).
fn cbor_seeds() -> Vec<Vec<u8>> {
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

#[test]
fn cbor_bodies_decode_or_fail_cleanly() {
    run_seeds("cbor", &cbor_seeds(), |input| {
        if let Ok(json) = cbor::body_to_json(input)
            && !json.is_empty()
        {
            serde_json::from_slice::<Value>(&json).expect("CBOR becomes JSON text");
        }
    });
}

#[test]
fn protobuf_envelopes_decode_or_fail_cleanly() {
    let objects: Vec<Value> = corpus("protobuf")
        .iter()
        .map(|seed| serde_json::from_slice(seed).expect("protobuf corpus is JSON"))
        .collect();
    let kinds: Vec<Arc<KindSpec>> = builtin_kinds()
        .into_iter()
        .filter(|kind| protobuf::offered(&kind.schema))
        .collect();
    let seeds: Vec<Vec<u8>> = kinds
        .iter()
        .flat_map(|kind| {
            objects
                .iter()
                .filter_map(|obj| protobuf::encode_object(&kind.schema, obj).ok())
        })
        .collect();
    // Each round reads the input as the next kind in turn, so one kind's
    // bytes are also read under every other kind's field numbers.
    let mut turn = 0;
    run_seeds("protobuf", &seeds, |input| {
        turn += 1;
        let kind = &kinds[turn % kinds.len()];
        if let Ok(obj) = protobuf::decode_object(&kind.schema, input) {
            assert!(obj.is_object());
        }
        let _ = protobuf::decode_message(&kind.schema, input);
    });
}
