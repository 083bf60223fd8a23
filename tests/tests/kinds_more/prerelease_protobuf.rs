//! The alpha and beta kinds in protobuf: objects a client encodes with
//! Kubernetes' field numbers are created, and read back in protobuf they
//! decode to what was sent (VolumeAttributesClass through either version).

use std::collections::HashMap;

use cairn_tests::Server;
use cairn_tests::k8s_proto::{self, ObjectMeta};
use prost::Message;
use serde_json::json;

use super::prerelease::{CTB, ca_certificate, start};

const PB: &str = "application/vnd.kubernetes.protobuf";

#[derive(Clone, PartialEq, Message)]
struct ParentReference {
    #[prost(string, optional, tag = "1")]
    group: Option<String>,
    #[prost(string, optional, tag = "2")]
    resource: Option<String>,
    #[prost(string, optional, tag = "3")]
    namespace: Option<String>,
    #[prost(string, optional, tag = "4")]
    name: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct IpAddressSpec {
    #[prost(message, optional, tag = "1")]
    parent_ref: Option<ParentReference>,
}

#[derive(Clone, PartialEq, Message)]
struct IpAddress {
    #[prost(message, optional, tag = "1")]
    metadata: Option<ObjectMeta>,
    #[prost(message, optional, tag = "2")]
    spec: Option<IpAddressSpec>,
}

#[derive(Clone, PartialEq, Message)]
struct ServiceCidrSpec {
    #[prost(string, repeated, tag = "1")]
    cidrs: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
struct ServiceCidr {
    #[prost(message, optional, tag = "1")]
    metadata: Option<ObjectMeta>,
    #[prost(message, optional, tag = "2")]
    spec: Option<ServiceCidrSpec>,
}

#[derive(Clone, PartialEq, Message)]
struct VolumeAttributesClass {
    #[prost(message, optional, tag = "1")]
    metadata: Option<ObjectMeta>,
    #[prost(string, optional, tag = "2")]
    driver_name: Option<String>,
    #[prost(map = "string, string", tag = "3")]
    parameters: HashMap<String, String>,
}

#[derive(Clone, PartialEq, Message)]
struct ClusterTrustBundleSpec {
    #[prost(string, optional, tag = "1")]
    signer_name: Option<String>,
    #[prost(string, optional, tag = "2")]
    trust_bundle: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct ClusterTrustBundle {
    #[prost(message, optional, tag = "1")]
    metadata: Option<ObjectMeta>,
    #[prost(message, optional, tag = "2")]
    spec: Option<ClusterTrustBundleSpec>,
}

fn protobuf_get<M: Message + Default>(s: &Server, path: &str) -> (String, M) {
    let r = s.request("GET", path, &[("Accept", PB)], None);
    assert_eq!(r.status, 200, "{path}: {}", r.text());
    let (api_version, _, raw) = k8s_proto::unwrap(&r.body);
    (api_version, M::decode(raw.as_slice()).expect(path))
}

fn meta(name: &str) -> Option<ObjectMeta> {
    Some(ObjectMeta {
        name: Some(name.into()),
        ..ObjectMeta::default()
    })
}

#[test]
fn the_alpha_and_beta_kinds_speak_protobuf() {
    let s = start();
    let pem = ca_certificate();
    let ip = IpAddress {
        metadata: meta("2001:db8::7"),
        spec: Some(IpAddressSpec {
            parent_ref: Some(ParentReference {
                resource: Some("services".into()),
                namespace: Some("default".into()),
                name: Some("web".into()),
                ..ParentReference::default()
            }),
        }),
    };
    let cidr = ServiceCidr {
        metadata: meta("pb"),
        spec: Some(ServiceCidrSpec {
            cidrs: vec!["10.98.0.0/16".into()],
        }),
    };
    let class = VolumeAttributesClass {
        metadata: meta("silver"),
        driver_name: Some("csi.example.com".into()),
        parameters: HashMap::from([("iops".into(), "500".into())]),
    };
    let bundle = ClusterTrustBundle {
        metadata: meta("pb-roots"),
        spec: Some(ClusterTrustBundleSpec {
            signer_name: None,
            trust_bundle: Some(pem.clone()),
        }),
    };
    let posts: [(&str, &str, &str, Vec<u8>); 4] = [
        (
            "/apis/networking.k8s.io/v1beta1/ipaddresses",
            "networking.k8s.io/v1beta1",
            "IPAddress",
            ip.encode_to_vec(),
        ),
        (
            "/apis/networking.k8s.io/v1beta1/servicecidrs",
            "networking.k8s.io/v1beta1",
            "ServiceCIDR",
            cidr.encode_to_vec(),
        ),
        (
            "/apis/storage.k8s.io/v1alpha1/volumeattributesclasses",
            "storage.k8s.io/v1alpha1",
            "VolumeAttributesClass",
            class.encode_to_vec(),
        ),
        (
            CTB,
            "certificates.k8s.io/v1alpha1",
            "ClusterTrustBundle",
            bundle.encode_to_vec(),
        ),
    ];
    for (path, api_version, kind, raw) in posts {
        let mut body = k8s_proto::MAGIC.to_vec();
        body.extend(
            k8s_proto::Unknown {
                type_meta: Some(k8s_proto::TypeMeta {
                    api_version: Some(api_version.into()),
                    kind: Some(kind.into()),
                }),
                raw: Some(raw),
                ..k8s_proto::Unknown::default()
            }
            .encode_to_vec(),
        );
        let r = s.request(
            "POST",
            path,
            &[("Content-Type", PB), ("Accept", "application/json")],
            Some(&body),
        );
        assert_eq!(r.status, 201, "{kind}: {}", r.text());
    }

    let json_ip = s
        .get("/apis/networking.k8s.io/v1beta1/ipaddresses/2001:db8::7")
        .json();
    assert_eq!(
        json_ip["spec"]["parentRef"],
        json!({"resource": "services", "namespace": "default", "name": "web"})
    );
    let (_, got): (_, IpAddress) = protobuf_get(
        &s,
        "/apis/networking.k8s.io/v1beta1/ipaddresses/2001:db8::7",
    );
    assert_eq!(got.spec, ip.spec);
    let (_, got): (_, ServiceCidr) =
        protobuf_get(&s, "/apis/networking.k8s.io/v1beta1/servicecidrs/pb");
    assert_eq!(got.spec, cidr.spec);
    // Stored once, in v1beta1; read in either version.
    let (api_version, got): (_, VolumeAttributesClass) = protobuf_get(
        &s,
        "/apis/storage.k8s.io/v1beta1/volumeattributesclasses/silver",
    );
    assert_eq!(api_version, "storage.k8s.io/v1beta1");
    assert_eq!(
        (got.driver_name, got.parameters),
        (class.driver_name, class.parameters)
    );
    let (_, got): (_, ClusterTrustBundle) = protobuf_get(&s, &format!("{CTB}/pb-roots"));
    assert_eq!(got.spec.and_then(|s| s.trust_bundle), Some(pem));
}
