//! Content negotiation: which media type a response is written in, which a
//! request body is read as, and pretty-printing.

use bytes::Bytes;
use serde_json::Value;

use crate::api::decode::{self, Decoded};
use crate::api::error::ApiError;

/// A response encoding this server writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Json,
    Yaml,
    /// Offered per kind: see `http/protobuf.rs`.
    Protobuf(Protobuf),
}

/// A protobuf answer as asked for: the media type's spelling, and what the
/// Accept header takes instead when protobuf cannot carry the response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Protobuf {
    /// `application/vnd.svc.protobuf` (the spec's) rather than Kubernetes'.
    pub svc_spelling: bool,
    /// JSON or YAML; `None`: protobuf or nothing (406).
    pub fallback: Option<TextEncoding>,
}

/// The encodings a protobuf request can fall back to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextEncoding {
    Json,
    Yaml,
}

impl From<TextEncoding> for Encoding {
    fn from(t: TextEncoding) -> Encoding {
        match t {
            TextEncoding::Json => Encoding::Json,
            TextEncoding::Yaml => Encoding::Yaml,
        }
    }
}

/// Kubernetes' protobuf media type.
pub const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";
/// The spec's spelling of it.
pub const PROTOBUF_SVC: &str = "application/vnd.svc.protobuf";

impl Encoding {
    #[must_use]
    pub fn content_type(self) -> &'static str {
        match self {
            Encoding::Json => "application/json",
            Encoding::Yaml => "application/yaml",
            Encoding::Protobuf(p) if p.svc_spelling => PROTOBUF_SVC,
            Encoding::Protobuf(_) => PROTOBUF,
        }
    }
}

const OFFERED: [&str; 2] = ["application/json", "application/yaml"];

/// One entry of an Accept header.
struct MediaRange<'a> {
    essence: &'a str,
    params: Vec<(&'a str, &'a str)>,
    q: f32,
}

fn parse_accept(header: &str) -> Vec<MediaRange<'_>> {
    let mut ranges: Vec<MediaRange<'_>> = header
        .split(',')
        .filter_map(|part| {
            let mut pieces = part.split(';').map(str::trim);
            let essence = pieces.next().filter(|e| !e.is_empty())?;
            let mut q = 1.0;
            let mut params = Vec::new();
            for p in pieces {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                if k == "q" {
                    q = v.parse().unwrap_or(0.0);
                } else {
                    params.push((k, v.trim_matches('"')));
                }
            }
            Some(MediaRange { essence, params, q })
        })
        .collect();
    ranges.sort_by(|a, b| b.q.partial_cmp(&a.q).unwrap_or(std::cmp::Ordering::Equal));
    ranges
}

/// The response encoding for an `Accept` header (absent = JSON). Ranges that
/// ask for a representation this server does not produce (Tables, protobuf)
/// are skipped, so clients listing JSON as a fallback get JSON; 406 when
/// nothing acceptable remains.
pub fn response_encoding(accept: Option<&str>) -> Result<Encoding, ApiError> {
    let Some(header) = accept.filter(|h| !h.trim().is_empty()) else {
        return Ok(Encoding::Json);
    };
    let mut protobuf: Option<bool> = None;
    for r in parse_accept(header) {
        if r.q <= 0.0
            || r.params
                .iter()
                .any(|(k, _)| *k == "as" || *k == "g" || *k == "v")
        {
            continue;
        }
        let text = match r.essence {
            "application/json" | "application/*" | "*/*" => TextEncoding::Json,
            "application/yaml" => TextEncoding::Yaml,
            PROTOBUF | PROTOBUF_SVC => {
                protobuf.get_or_insert(r.essence == PROTOBUF_SVC);
                continue;
            }
            _ => continue,
        };
        return Ok(match protobuf {
            Some(svc_spelling) => Encoding::Protobuf(Protobuf {
                svc_spelling,
                fallback: Some(text),
            }),
            None => text.into(),
        });
    }
    if let Some(svc_spelling) = protobuf {
        return Ok(Encoding::Protobuf(Protobuf {
            svc_spelling,
            fallback: None,
        }));
    }
    Err(ApiError::NotAcceptable(
        OFFERED.iter().map(|s| (*s).to_string()).collect(),
    ))
}

/// The media type of a request body, without parameters.
#[must_use]
pub fn essence(content_type: Option<&str>) -> String {
    content_type
        .and_then(|c| c.split(';').next())
        .map(|e| e.trim().to_ascii_lowercase())
        .unwrap_or_default()
}

/// Decodes a create/update body by its Content-Type (JSON when absent).
pub fn decode_body(content_type: Option<&str>, body: &Bytes) -> Result<Decoded, ApiError> {
    let parsed = match essence(content_type).as_str() {
        "" | "application/json" => decode::parse_json(body),
        "application/yaml" | "application/x-yaml" | "text/yaml" => decode::parse_yaml(body),
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

/// Writes a value in an encoding.
#[must_use]
pub fn encode(value: &Value, encoding: Encoding, pretty: bool) -> Bytes {
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
        // Protobuf needs a schema: `Writer::object` routes it to `http/protobuf.rs`.
        Encoding::Protobuf(p) => {
            encode(value, p.fallback.map_or(Encoding::Json, Into::into), pretty)
        }
    }
}

/// `?pretty=true`, or a command-line or browser user agent (as Kubernetes does).
#[must_use]
pub fn wants_pretty(pretty_param: Option<&str>, user_agent: Option<&str>) -> bool {
    match pretty_param {
        Some("true" | "1") => true,
        Some(_) => false,
        None => user_agent.is_some_and(|ua| {
            ua.starts_with("curl") || ua.starts_with("Wget") || ua.starts_with("Mozilla/5.0")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_headers() {
        assert_eq!(response_encoding(None).ok(), Some(Encoding::Json));
        assert_eq!(
            response_encoding(Some("application/yaml")).ok(),
            Some(Encoding::Yaml)
        );
        assert_eq!(
            response_encoding(Some(
                "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
            ))
            .ok(),
            Some(Encoding::Json)
        );
        assert_eq!(
            response_encoding(Some("application/vnd.kubernetes.protobuf, */*")).ok(),
            Some(Encoding::Protobuf(Protobuf {
                svc_spelling: false,
                fallback: Some(TextEncoding::Json)
            }))
        );
        assert_eq!(
            response_encoding(Some("application/vnd.svc.protobuf")).ok(),
            Some(Encoding::Protobuf(Protobuf {
                svc_spelling: true,
                fallback: None
            }))
        );
        assert_eq!(
            response_encoding(Some(
                "application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1, application/json"
            ))
            .ok(),
            Some(Encoding::Json)
        );
        assert!(matches!(
            response_encoding(Some("text/html")),
            Err(ApiError::NotAcceptable(_))
        ));
        assert!(matches!(
            response_encoding(Some("application/json;as=Table;g=meta.k8s.io;v=v1")),
            Err(ApiError::NotAcceptable(_))
        ));
        assert_eq!(
            response_encoding(Some("application/json;q=0.5, application/yaml")).ok(),
            Some(Encoding::Yaml)
        );
    }
}
