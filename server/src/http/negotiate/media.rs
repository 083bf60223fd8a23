//! What a response can be written as: the encodings (protobuf with its
//! spelling and text fallback), their media types, and Table targets.

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
