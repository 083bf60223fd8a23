//! The `Accept` header read into a response target: media ranges by
//! quality, Table requests, protobuf with its text fallback, CBOR behind its
//! gate, and 406 when nothing offered is acceptable.

use super::media::{
    Encoding, PROTOBUF, PROTOBUF_SVC, Protobuf, TableTarget, TableVersion, Target, TextEncoding,
};
use crate::api::error::ApiError;

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
