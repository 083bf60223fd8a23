//! Accept headers against the targets they choose: encodings, protobuf
//! fallbacks, Tables by group and version, and CBOR behind its gate.

use super::*;
use crate::api::error::ApiError;

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
