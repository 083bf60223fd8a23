//! The kube-apiserver-client signer's rules.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rcgen::{CertificateParams, DistinguishedName, DnType, KeyPair};
use serde_json::{Value, json};

use super::*;

fn request_pem(cn: &str) -> String {
    let key = KeyPair::generate().expect("key");
    let mut params = CertificateParams::default();
    let mut name = DistinguishedName::new();
    name.push(DnType::CommonName, cn);
    params.distinguished_name = name;
    params
        .serialize_request(&key)
        .expect("csr")
        .pem()
        .expect("pem")
}

fn csr(usages: &[&str], conditions: Value) -> Value {
    json!({"apiVersion": "certificates.k8s.io/v1", "metadata": {"name": "a"},
        "spec": {"signerName": KUBE_APISERVER_CLIENT, "usages": usages,
            "request": STANDARD.encode(request_pem("alice")), "expirationSeconds": 3600},
        "status": {"conditions": conditions}})
}

#[test]
fn approved_client_requests_are_signed_for_the_shorter_duration() {
    let approved = json!([{"type": "Approved", "status": "True"}]);
    match decide(
        &csr(&["client auth", "digital signature"], approved),
        DEFAULT_SIGNING_DURATION,
    ) {
        Decision::Sign(params, lifetime) => {
            assert_eq!(lifetime, Duration::from_secs(3600));
            assert_eq!(
                params.extended_key_usages,
                [ExtendedKeyUsagePurpose::ClientAuth]
            );
            assert_eq!(params.key_usages, [KeyUsagePurpose::DigitalSignature]);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        decide(&csr(&["client auth"], json!([])), DEFAULT_SIGNING_DURATION),
        Decision::Skip
    ));
    let denied = json!([{"type": "Denied", "status": "True"}]);
    assert!(matches!(
        decide(&csr(&["client auth"], denied), DEFAULT_SIGNING_DURATION),
        Decision::Skip
    ));
}

#[test]
fn usages_outside_the_signers_set_fail_the_request() {
    let approved = json!([{"type": "Approved", "status": "True"}]);
    match decide(
        &csr(&["server auth", "client auth"], approved.clone()),
        DEFAULT_SIGNING_DURATION,
    ) {
        Decision::Fail(m) => assert_eq!(m, "invalid usage for client certificate: server auth"),
        other => panic!("{other:?}"),
    }
    match decide(
        &csr(&["digital signature"], approved),
        DEFAULT_SIGNING_DURATION,
    ) {
        Decision::Fail(m) => assert!(m.contains("missing required usage"), "{m}"),
        other => panic!("{other:?}"),
    }
}
