//! Content negotiation: which media type a response is written in (the
//! `Accept` header in `accept`, the encodings in `media`), which a request
//! body is read as, and pretty-printing.

mod accept;
mod media;
#[cfg(test)]
mod tests;

use std::borrow::Cow;

use bytes::Bytes;

use crate::api::decode::{self, Decoded};
use crate::api::error::ApiError;

pub use accept::{Offers, response_target};
pub use media::{
    Encoding, PROTOBUF, PROTOBUF_SVC, Protobuf, TableTarget, TableVersion, Target, TextEncoding,
};

/// Body media types every request may use.
const OFFERED: [&str; 2] = ["application/json", "application/yaml"];

/// The media type of a request body, without parameters.
#[must_use]
pub fn essence(content_type: Option<&str>) -> Cow<'_, str> {
    let Some(e) = content_type.and_then(|c| c.split(';').next()) else {
        return Cow::Borrowed("");
    };
    let e = e.trim();
    // Every write asks; clients send lowercase almost always.
    if e.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(e.to_ascii_lowercase())
    } else {
        Cow::Borrowed(e)
    }
}

/// Decodes a create/update body by its Content-Type (JSON when absent).
pub fn decode_body(content_type: Option<&str>, body: &Bytes) -> Result<Decoded, ApiError> {
    // An absent Content-Type is JSON; one with no media type in it (`;;;`)
    // is not a type Kubernetes can parse.
    let parsed = match (content_type, &*essence(content_type)) {
        (None, _) | (_, "application/json") => decode::parse_json(body),
        (_, "application/yaml" | "application/x-yaml" | "text/yaml") => decode::parse_yaml(body),
        _ => {
            return Err(ApiError::UnsupportedMediaType(
                OFFERED.iter().map(|s| (*s).to_string()).collect(),
            ));
        }
    };
    parsed.map_err(|e| {
        ApiError::BadRequest(format!("the body of the request could not be decoded: {e}"))
    })
}

/// `?pretty=` a true boolean (as Go's `strconv.ParseBool` reads it; any
/// other non-empty value means no), or, without a value, a command-line or
/// browser user agent (as Kubernetes does).
#[must_use]
pub fn wants_pretty(pretty_param: Option<&str>, user_agent: Option<&str>) -> bool {
    match pretty_param.filter(|p| !p.is_empty()) {
        Some(p) => matches!(p, "1" | "t" | "T" | "true" | "TRUE" | "True"),
        None => user_agent.is_some_and(|ua| {
            ua.starts_with("curl") || ua.starts_with("Wget") || ua.starts_with("Mozilla/5.0")
        }),
    }
}
