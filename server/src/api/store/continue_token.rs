//! Continue tokens of chunked lists: base64 of JSON in Kubernetes' shape
//! (the snapshot revision and the key to resume after) plus a fingerprint
//! of the query, so a token reused with another query is refused.

use base64::Engine as _;
use serde_json::{Value, json};

use crate::api::error::ApiError;
use crate::api::selectors::fnv1a64;
use crate::api::store::read::ListOptions;

/// A decoded continue token: snapshot revision and the key to resume after.
pub(super) struct Continue {
    pub rv: u64,
    pub start: String,
    /// Fingerprint of the query that issued it (collection and selectors).
    pub query: u64,
}

/// What a continue token is bound to: the collection and the selectors. A
/// token reused with other parameters would page through another query.
pub(super) fn query_fingerprint(prefix: &[u8], opts: &ListOptions) -> u64 {
    let mut q = prefix.to_vec();
    for part in [
        opts.label.as_ref().map(ToString::to_string),
        opts.field.as_ref().map(ToString::to_string),
        opts.shard.as_ref().map(|s| s.text().to_string()),
    ] {
        q.push(0);
        q.extend_from_slice(part.unwrap_or_default().as_bytes());
    }
    fnv1a64(&q)
}

const TOKEN_VERSION: &str = "meta.k8s.io/v1";

pub(super) fn encode_continue(rv: u64, start: &str, query: u64) -> String {
    let json = json!({"v": TOKEN_VERSION, "rv": rv, "start": start, "q": format!("{query:016x}")})
        .to_string();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json)
}

pub(super) fn decode_continue(token: &str) -> Result<Continue, ApiError> {
    let bad = |why: &str| ApiError::BadRequest(format!("invalid continue token: {why}"));
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(token.trim_end_matches('='))
        .map_err(|_| bad("not base64"))?;
    let v: Value = serde_json::from_slice(&raw).map_err(|_| bad("not JSON"))?;
    if v.get("v").and_then(Value::as_str) != Some(TOKEN_VERSION) {
        return Err(bad("unknown version"));
    }
    let rv = v
        .get("rv")
        .and_then(Value::as_u64)
        .filter(|&r| r > 0)
        .ok_or_else(|| bad("no resource version"))?;
    let start = v
        .get("start")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| bad("continue key is not valid"))?;
    if start.starts_with('/') || start.contains("..") {
        return Err(bad("continue key is not valid"));
    }
    let query = v
        .get("q")
        .and_then(Value::as_str)
        .and_then(|q| u64::from_str_radix(q, 16).ok())
        .ok_or_else(|| bad("no query fingerprint"))?;
    Ok(Continue {
        rv,
        start: start.to_string(),
        query,
    })
}

#[cfg(test)]
#[path = "read_fuzz_tests.rs"]
mod fuzz_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continue_tokens_round_trip_and_reject_garbage() {
        let t = encode_continue(42, "ns/name\u{0}", 7);
        let c = decode_continue(&t).expect("decode");
        assert_eq!((c.rv, c.start.as_str(), c.query), (42, "ns/name\u{0}", 7));
        for bad in [
            "",
            "!!!",
            &base64::engine::general_purpose::URL_SAFE_NO_PAD
                .encode("{\"v\":\"x\",\"rv\":1,\"start\":\"a\"}"),
            &encode_continue(0, "a", 1),
        ] {
            assert!(decode_continue(bad).is_err(), "{bad}");
        }
    }
}
