//! Kubernetes' CSR validation rules.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rcgen::{CertificateParams, KeyPair};
use serde_json::json;

use super::*;

fn good() -> Value {
    let key = KeyPair::generate().expect("key");
    let pem = CertificateParams::default()
        .serialize_request(&key)
        .expect("csr")
        .pem()
        .expect("pem");
    json!({"spec": {"request": STANDARD.encode(pem), "signerName": "example.com/x",
        "usages": ["client auth"]}})
}

fn fields(obj: &Value) -> Vec<String> {
    checks(obj).into_iter().map(|c| c.field).collect()
}

#[test]
fn a_signed_request_with_signer_and_usages_is_valid() {
    assert!(checks(&good()).is_empty(), "{:?}", checks(&good()));
}

#[test]
fn spec_rules_follow_kube() {
    let mut bad = good();
    bad["spec"]["request"] = json!(STANDARD.encode("not pem"));
    bad["spec"]["signerName"] = json!(LEGACY_UNKNOWN);
    bad["spec"]["usages"] = json!(["client auth", "client auth", "teleport"]);
    bad["spec"]["expirationSeconds"] = json!(599);
    assert_eq!(
        fields(&bad),
        [
            "spec.request",
            "spec.signerName",
            "spec.usages[1]",
            "spec.usages[2]",
            "spec.expirationSeconds"
        ]
    );
    let mut bare = good();
    bare["spec"]
        .as_object_mut()
        .expect("spec")
        .remove("signerName");
    bare["spec"]["usages"] = json!([]);
    assert_eq!(fields(&bare), ["spec.signerName", "spec.usages"]);
    bare["spec"]["signerName"] = json!("no-slash");
    assert_eq!(fields(&bare), ["spec.signerName", "spec.usages"]);
}

#[test]
fn a_tampered_request_fails_its_signature() {
    let mut obj = good();
    let pem = pem_text(&obj, "/spec/request").expect("pem");
    let parsed = blocks(&pem).expect("blocks");
    let mut der = parsed[0].der.clone();
    let last = der.len() - 1;
    der[last] ^= 1;
    let tampered = format!(
        "-----BEGIN CERTIFICATE REQUEST-----\n{}\n-----END CERTIFICATE REQUEST-----\n",
        STANDARD.encode(der)
    );
    obj["spec"]["request"] = json!(STANDARD.encode(tampered));
    assert_eq!(fields(&obj), ["spec.request"]);
}

#[test]
fn status_rules_follow_kube() {
    let mut obj = good();
    obj["status"] = json!({"conditions": [
        {"type": "Approved", "status": "True"}, {"type": "Denied", "status": "True"},
        {"type": "Approved", "status": "True"}, {"type": "Failed", "status": "False"}],
        "certificate": STANDARD.encode("-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n")});
    assert_eq!(
        fields(&obj),
        [
            "status.conditions[2].type",
            "status.conditions[3].status",
            "status.conditions",
            "status.certificate"
        ]
    );
    let mut issued = good();
    issued["status"] = json!({"certificate": "AAAA"});
    let mut changed = issued.clone();
    changed["status"]["certificate"] = json!("BBBB");
    changed["spec"]["usages"] = json!(["server auth"]);
    let causes: Vec<String> = update_checks(&changed, &issued)
        .into_iter()
        .map(|c| c.field)
        .collect();
    assert_eq!(causes, ["spec", "status.certificate"]);
}
