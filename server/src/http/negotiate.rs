//! Content negotiation: which media type a response is written in, which a
//! request body is read as, and pretty-printing.

use std::borrow::Cow;

use bytes::Bytes;
use serde_json::Value;

use crate::api::decode::{self, Decoded};
use crate::api::error::ApiError;

/// A response encoding this server writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Json,
    Yaml,
    /// `application/cbor` (gate `CBORServingAndStorage`).
    Cbor,
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
            Encoding::Cbor => "application/cbor",
            Encoding::Protobuf(p) if p.svc_spelling => PROTOBUF_SVC,
            Encoding::Protobuf(_) => PROTOBUF,
        }
    }
}

/// The `meta` version of a Table asked for with `as=Table`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableVersion {
    V1,
    V1Beta1,
}

impl TableVersion {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            TableVersion::V1 => "v1",
            TableVersion::V1Beta1 => "v1beta1",
        }
    }
}

/// A Table asked for: its version, and whether in the group the client
/// named as `meta.k8s.io` (real clients decode only that) rather than
/// `meta.{domain}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableTarget {
    pub version: TableVersion,
    pub k8s_group: bool,
}

impl TableTarget {
    /// The Table's apiVersion: `meta.{group}/{version}`.
    #[must_use]
    pub fn api_version(self, domain: &str) -> String {
        let domain = if self.k8s_group { "k8s.io" } else { domain };
        format!("meta.{domain}/{}", self.version.as_str())
    }
}

/// What a response is written as: an encoding, and whether resources are
/// shown as a Table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub encoding: Encoding,
    pub table: Option<TableTarget>,
}

/// What this server can offer a request beyond JSON and YAML.
#[derive(Clone, Copy, Debug, Default)]
pub struct Offers<'a> {
    /// The API domain: `g=meta.{domain}` names the Table's group (as does
    /// `meta.k8s.io`).
    pub domain: &'a str,
    /// CBOR is served (gate `CBORServingAndStorage`).
    pub cbor: bool,
}

impl Offers<'_> {
    fn offered(&self) -> Vec<String> {
        let mut types = vec![
            "application/json".to_string(),
            "application/yaml".to_string(),
        ];
        if self.cbor {
            types.push("application/cbor".into());
        }
        types
    }
}

/// Body media types every request may use.
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

/// The response target for an `Accept` header (absent = JSON). Ranges that
/// ask for a representation this server does not produce (protobuf Tables,
/// partial metadata) are skipped, so clients listing JSON as a fallback get
/// JSON; 406 when nothing acceptable remains.
pub fn response_target(accept: Option<&str>, offers: &Offers<'_>) -> Result<Target, ApiError> {
    let plain = |encoding| {
        Ok(Target {
            encoding,
            table: None,
        })
    };
    let Some(header) = accept.filter(|h| !h.trim().is_empty()) else {
        return plain(Encoding::Json);
    };
    // Protobuf is offered per kind, so the first text encoding listed after
    // it is kept as its fallback.
    let mut protobuf: Option<bool> = None;
    for r in parse_accept(header) {
        if r.q <= 0.0 {
            continue;
        }
        let param = |name: &str| r.params.iter().find(|(k, _)| *k == name).map(|(_, v)| *v);
        if let Some(as_kind) = param("as") {
            if let Some(target) = table_target(&r, as_kind, param("g"), param("v"), offers) {
                return Ok(target);
            }
            continue;
        }
        if param("g").is_some() || param("v").is_some() {
            continue;
        }
        let text = match r.essence {
            "application/json" | "application/*" | "*/*" => TextEncoding::Json,
            "application/yaml" => TextEncoding::Yaml,
            // CBOR after protobuf wins outright: protobuf's fallback is text.
            "application/cbor" | "application/cbor-seq" if offers.cbor => {
                return plain(Encoding::Cbor);
            }
            PROTOBUF | PROTOBUF_SVC => {
                protobuf.get_or_insert(r.essence == PROTOBUF_SVC);
                continue;
            }
            _ => continue,
        };
        return plain(match protobuf {
            Some(svc_spelling) => Encoding::Protobuf(Protobuf {
                svc_spelling,
                fallback: Some(text),
            }),
            None => text.into(),
        });
    }
    if let Some(svc_spelling) = protobuf {
        return plain(Encoding::Protobuf(Protobuf {
            svc_spelling,
            fallback: None,
        }));
    }
    Err(ApiError::NotAcceptable(offers.offered()))
}

/// `application/json;as=Table;g=meta.{domain};v=v1` (or `meta.k8s.io`, or
/// `v1beta1`, or YAML).
fn table_target(
    r: &MediaRange<'_>,
    as_kind: &str,
    group: Option<&str>,
    version: Option<&str>,
    offers: &Offers<'_>,
) -> Option<Target> {
    let group = group?;
    let k8s_group = group == "meta.k8s.io";
    let meta_group = k8s_group
        || group
            .strip_prefix("meta.")
            .is_some_and(|d| !offers.domain.is_empty() && d == offers.domain);
    if as_kind != "Table" || !meta_group {
        return None;
    }
    let version = match version? {
        "v1" => TableVersion::V1,
        "v1beta1" => TableVersion::V1Beta1,
        _ => return None,
    };
    let encoding = match r.essence {
        "application/json" => Encoding::Json,
        "application/yaml" => Encoding::Yaml,
        _ => return None,
    };
    Some(Target {
        encoding,
        table: Some(TableTarget { version, k8s_group }),
    })
}

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
        Encoding::Cbor => crate::http::cbor::encode(value).into(),
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

    fn target(accept: Option<&str>, cbor: bool) -> Option<Target> {
        response_target(
            accept,
            &Offers {
                domain: "svc.io",
                cbor,
            },
        )
        .ok()
    }

    fn encoding(accept: &str) -> Option<Encoding> {
        target(Some(accept), false).map(|t| t.encoding)
    }

    #[test]
    fn accept_headers() {
        assert_eq!(
            target(None, false).map(|t| t.encoding),
            Some(Encoding::Json)
        );
        assert_eq!(encoding("application/yaml"), Some(Encoding::Yaml));
        assert_eq!(
            encoding("application/vnd.kubernetes.protobuf, */*"),
            Some(Encoding::Protobuf(Protobuf {
                svc_spelling: false,
                fallback: Some(TextEncoding::Json)
            }))
        );
        assert_eq!(
            encoding("application/vnd.svc.protobuf"),
            Some(Encoding::Protobuf(Protobuf {
                svc_spelling: true,
                fallback: None
            }))
        );
        assert_eq!(
            encoding(
                "application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1, application/json"
            ),
            Some(Encoding::Json)
        );
        assert!(matches!(
            response_target(Some("text/html"), &Offers::default()),
            Err(ApiError::NotAcceptable(_))
        ));
        assert_eq!(
            encoding("application/json;q=0.5, application/yaml"),
            Some(Encoding::Yaml)
        );
    }

    #[test]
    fn tables() {
        let table = |version, k8s_group| {
            Some(Target {
                encoding: Encoding::Json,
                table: Some(TableTarget { version, k8s_group }),
            })
        };
        for (accept, k8s_group) in [
            (
                "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
                true,
            ),
            ("application/json;as=Table;g=meta.svc.io;v=v1", false),
            ("application/json; as=Table; g=meta.k8s.io; v=v1", true),
        ] {
            assert_eq!(
                target(Some(accept), false),
                table(TableVersion::V1, k8s_group),
                "{accept}"
            );
        }
        assert_eq!(
            target(
                Some("application/json;as=Table;v=v1beta1;g=meta.k8s.io"),
                false
            ),
            table(TableVersion::V1Beta1, true)
        );
        let t = TableTarget {
            version: TableVersion::V1,
            k8s_group: false,
        };
        assert_eq!(t.api_version("svc.io"), "meta.svc.io/v1");
        // Unknown `as`, group or version: skipped, falling back when offered.
        assert_eq!(
            target(
                Some(
                    "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io, application/json"
                ),
                false
            ),
            Some(Target {
                encoding: Encoding::Json,
                table: None
            })
        );
        assert!(target(Some("application/json;as=Table;v=v2;g=meta.k8s.io"), false).is_none());
        assert!(
            target(
                Some("application/json;as=Table;v=v1;g=meta.other.io"),
                false
            )
            .is_none()
        );
    }

    #[test]
    fn cbor_only_behind_its_gate() {
        assert_eq!(
            target(Some("application/cbor"), true).map(|t| t.encoding),
            Some(Encoding::Cbor)
        );
        assert!(target(Some("application/cbor"), false).is_none());
        assert_eq!(
            target(Some("application/cbor, application/json;q=0.9"), false).map(|t| t.encoding),
            Some(Encoding::Json)
        );
    }
}
