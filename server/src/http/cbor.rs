//! CBOR (RFC 8949) request bodies, read behind the `CBORServingAndStorage`
//! gate: CBOR request media mapped onto the JSON paths the handlers already
//! have. (Answers are written by `encode/cbor.rs`.)
//!
//! Encoding: every item starts with the self-described tag 55799 (`d9 d9
//! f7`), maps use core deterministic key order (RFC 8949 §4.2.1: by encoded
//! key bytes, i.e. shorter keys first, then bytewise), integers stay
//! integers and floats take their shortest lossless width. Items are
//! written straight from the JSON value (no intermediate tree); `ciborium`
//! decodes.
//!
//! Decoding: integers become JSON integers (beyond the 64-bit range they are
//! refused), text stays text, and byte strings become standard base64 text —
//! the JSON form of Kubernetes' `[]byte` fields (Secret `data`, ConfigMap
//! `binaryData`), which is where clients send them. Map keys must be text.
//! The self-described tag is accepted and dropped; other tags are refused.

use base64::Engine as _;
use bytes::Bytes;
use ciborium::Value as Cbor;
use serde_json::{Map, Number, Value};

use crate::api::error::ApiError;

/// The self-described CBOR tag Kubernetes puts before every item.
const SELF_DESCRIBED: u64 = 55799;

/// One CBOR item (nothing after it) as a JSON value.
pub fn decode(bytes: &[u8]) -> Result<Value, String> {
    refuse_undefined(bytes)?;
    let mut rest = bytes;
    let item: Cbor = ciborium::from_reader(&mut rest).map_err(|e| e.to_string())?;
    if !rest.is_empty() {
        return Err(format!("{} bytes after the first item", rest.len()));
    }
    to_json(item, 0)
}

/// Deepest nesting of arrays and maps read: the JSON decoder the converted
/// body goes through (serde_json) refuses a 128th level, so deeper CBOR is
/// refused here, as CBOR, rather than later as JSON the client never sent.
const MAX_NESTED_LEVELS: usize = 127;

/// CBOR's `undefined` has no JSON form (Kubernetes' decoder refuses it),
/// but ciborium reads it as null: look for it among the item's headers.
fn refuse_undefined(bytes: &[u8]) -> Result<(), String> {
    use ciborium_ll::{Decoder, Header, simple};
    let mut rest = bytes;
    while !rest.is_empty() {
        let mut decoder = Decoder::from(rest);
        // Malformed input is left for the full decoder to describe.
        let Ok(header) = decoder.pull() else {
            return Ok(());
        };
        rest = &rest[decoder.offset()..];
        match header {
            Header::Simple(simple::UNDEFINED) => {
                return Err("undefined is not a supported value".into());
            }
            Header::Bytes(Some(len)) | Header::Text(Some(len)) => {
                rest = rest.get(len..).unwrap_or_default();
            }
            _ => {}
        }
    }
    Ok(())
}

fn to_json(item: Cbor, depth: usize) -> Result<Value, String> {
    let nested = |depth: usize| {
        if depth >= MAX_NESTED_LEVELS {
            Err(format!("exceeded max nested level {MAX_NESTED_LEVELS}"))
        } else {
            Ok(depth + 1)
        }
    };
    Ok(match item {
        Cbor::Null => Value::Null,
        Cbor::Bool(b) => Value::Bool(b),
        Cbor::Integer(i) => {
            let i = i128::from(i);
            if let Ok(v) = i64::try_from(i) {
                Value::from(v)
            } else {
                Value::from(u64::try_from(i).map_err(|_| format!("integer {i} out of range"))?)
            }
        }
        Cbor::Float(f) => {
            Value::Number(Number::from_f64(f).ok_or_else(|| format!("{f} has no JSON form"))?)
        }
        Cbor::Text(s) => Value::String(s),
        Cbor::Bytes(b) => Value::String(base64::engine::general_purpose::STANDARD.encode(b)),
        Cbor::Array(a) => {
            let depth = nested(depth)?;
            Value::Array(
                a.into_iter()
                    .map(|v| to_json(v, depth))
                    .collect::<Result<_, _>>()?,
            )
        }
        Cbor::Map(entries) => {
            let depth = nested(depth)?;
            let mut m = Map::new();
            for (k, v) in entries {
                let Cbor::Text(k) = k else {
                    return Err("map keys must be text strings".into());
                };
                m.insert(k, to_json(v, depth)?);
            }
            Value::Object(m)
        }
        Cbor::Tag(SELF_DESCRIBED, inner) => to_json(*inner, depth)?,
        Cbor::Tag(tag, _) => return Err(format!("unsupported tag {tag}")),
        _ => return Err("unsupported simple value".into()),
    })
}

/// For a request body in a CBOR media type: the JSON media type the
/// handlers read it as (`application/cbor` → JSON, `apply-patch+cbor` →
/// the apply patch's YAML path, which JSON text satisfies). `None` for
/// other media types. 415 when the gate is off, and for the CBOR forms of
/// JSON, merge and strategic merge patches, which do not exist.
pub fn json_media(content_type: &str, gate_on: bool) -> Result<Option<&'static str>, ApiError> {
    let unsupported = || {
        let mut types = vec!["application/json", "application/yaml"];
        if gate_on {
            types.extend(["application/cbor", "application/apply-patch+cbor"]);
        }
        ApiError::UnsupportedMediaType(types.into_iter().map(String::from).collect())
    };
    let json = match content_type {
        "application/cbor" => "application/json",
        "application/apply-patch+cbor" => "application/apply-patch+yaml",
        "application/json-patch+cbor"
        | "application/merge-patch+cbor"
        | "application/strategic-merge-patch+cbor"
        | "application/cbor-seq" => return Err(unsupported()),
        _ => return Ok(None),
    };
    if !gate_on {
        return Err(unsupported());
    }
    Ok(Some(json))
}

/// A CBOR request body as JSON text.
pub fn body_to_json(body: &[u8]) -> Result<Bytes, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Bytes::new());
    }
    let value = decode(body).map_err(|e| {
        ApiError::BadRequest(format!(
            "the body of the request could not be decoded: invalid CBOR: {e}"
        ))
    })?;
    Ok(serde_json::to_vec(&value)
        .expect("JSON values serialize")
        .into())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::http::encode::cbor::{encode, float};

    #[test]
    fn self_described_and_deterministic() {
        let v =
            json!({"kind": "ConfigMap", "apiVersion": "v1", "a": 1, "data": {"zz": "1", "b": "2"}});
        let bytes = encode(&v);
        assert_eq!(&bytes[..3], &[0xd9, 0xd9, 0xf7]);
        // Map of 4 entries; keys by length then bytes: a, data, kind, apiVersion.
        assert_eq!(bytes[3], 0xa4);
        assert_eq!(&bytes[4..6], &[0x61, b'a']);
        assert_eq!(bytes[6], 0x01);
        assert_eq!(&bytes[7..12], b"\x64data");
        // Same value, another key order: same bytes.
        let reordered =
            json!({"data": {"b": "2", "zz": "1"}, "a": 1, "apiVersion": "v1", "kind": "ConfigMap"});
        assert_eq!(encode(&reordered), bytes);
    }

    #[test]
    fn undefined_is_refused_wherever_it_is() {
        // {"a": undefined}, [undefined], undefined; text holding 0xf7 is fine.
        for bad in [&[0xa1, 0x61, b'a', 0xf7][..], &[0x81, 0xf7], &[0xf7]] {
            assert!(decode(bad).unwrap_err().contains("undefined"), "{bad:?}");
        }
        assert_eq!(decode(&[0x42, 0xf7, 0xf7]).expect("bytes"), json!("9/c="));
        assert_eq!(
            decode(&[0xd9, 0xd9, 0xf7, 0xf6]).expect("null"),
            Value::Null
        );
    }

    #[test]
    fn numbers_keep_their_kind() {
        let v = json!({"i": 3, "n": -4, "big": u64::MAX, "f": 1.5, "whole": 2.0});
        let back = decode(&encode(&v)).expect("round trip");
        assert_eq!(back["i"].as_i64(), Some(3));
        assert!(back["i"].is_i64() || back["i"].is_u64());
        assert_eq!(back["n"].as_i64(), Some(-4));
        assert_eq!(back["big"].as_u64(), Some(u64::MAX));
        assert_eq!(back["f"].as_f64(), Some(1.5));
        assert!(back["whole"].is_f64());
        // Half precision is the shortest lossless width for 1.5.
        let one_half = encode(&json!(1.5));
        assert_eq!(&one_half[3..], &[0xf9, 0x3e, 0x00]);
    }

    #[test]
    fn floats_match_a_reference_encoder() {
        for f in [
            0.0,
            -0.0,
            1.0,
            1.5,
            -2.25,
            0.1,
            65504.0,
            65505.0,
            1e-7,
            5.960_464_477_539_063e-8,
            3.4e38,
            1e300,
            123_456.75,
            2f64.powi(-20),
            2f64.powi(-25),
        ] {
            let mut reference = Vec::new();
            ciborium::into_writer(&Cbor::Float(f), &mut reference).expect("encode");
            let mut ours = Vec::new();
            float(&mut ours, f);
            assert_eq!(ours, reference, "{f}");
        }
    }

    #[test]
    fn integers_match_a_reference_encoder() {
        for i in [
            0i64,
            23,
            24,
            255,
            256,
            65535,
            65536,
            -1,
            -24,
            -25,
            -256,
            -257,
            i64::MIN,
            i64::MAX,
        ] {
            let mut reference = Vec::new();
            ciborium::into_writer(&Cbor::Integer(i.into()), &mut reference).expect("encode");
            assert_eq!(&encode(&json!(i))[3..], reference.as_slice(), "{i}");
        }
    }

    #[test]
    fn decoding_rules() {
        let mut bytes = Vec::new();
        let item = Cbor::Map(vec![(
            Cbor::Text("data".into()),
            Cbor::Bytes(b"hi".to_vec()),
        )]);
        ciborium::into_writer(&item, &mut bytes).expect("encode");
        assert_eq!(decode(&bytes), Ok(json!({"data": "aGk="})));
        let mut bad = Vec::new();
        ciborium::into_writer(
            &Cbor::Map(vec![(Cbor::Integer(1.into()), Cbor::Null)]),
            &mut bad,
        )
        .expect("encode");
        assert!(decode(&bad).is_err());
        let mut trailing = encode(&json!(1));
        trailing.push(0x01);
        assert!(decode(&trailing).is_err());
        let mut tagged = Vec::new();
        ciborium::into_writer(
            &Cbor::Tag(1, Box::new(Cbor::Integer(0.into()))),
            &mut tagged,
        )
        .expect("encode");
        assert!(decode(&tagged).is_err());
    }

    #[test]
    fn media_types() {
        assert_eq!(
            json_media("application/cbor", true).ok().flatten(),
            Some("application/json")
        );
        assert_eq!(
            json_media("application/apply-patch+cbor", true)
                .ok()
                .flatten(),
            Some("application/apply-patch+yaml")
        );
        assert_eq!(json_media("application/json", false).ok().flatten(), None);
        for ct in [
            "application/merge-patch+cbor",
            "application/json-patch+cbor",
        ] {
            assert!(matches!(
                json_media(ct, true),
                Err(ApiError::UnsupportedMediaType(_))
            ));
        }
        assert!(matches!(
            json_media("application/cbor", false),
            Err(ApiError::UnsupportedMediaType(_))
        ));
    }
}
