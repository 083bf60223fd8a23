//! ClusterTrustBundle's rules against kube's messages.

use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
use serde_json::{Value, json};

use super::*;

fn certificate(ca: bool) -> String {
    let mut params = CertificateParams::new(vec!["anchor.example.com".into()]).expect("params");
    if ca {
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    }
    let key = KeyPair::generate().expect("key");
    params.self_signed(&key).expect("self-signed").pem()
}

fn bundle(name: &str, signer: &str, pem: &str) -> Value {
    json!({"metadata": {"name": name}, "spec": {"signerName": signer, "trustBundle": pem}})
}

fn messages(obj: &Value) -> Vec<String> {
    checks(obj)
        .into_iter()
        .map(|c| format!("{}: {}", c.field, c.message))
        .collect()
}

#[test]
fn a_bundle_of_ca_certificates_under_its_signers_prefix_is_valid() {
    let pem = format!("{}{}", certificate(true), certificate(true));
    assert_eq!(
        messages(&bundle(
            "example.com:signer:one",
            "example.com/signer",
            &pem
        )),
        Vec::<String>::new()
    );
    assert_eq!(
        messages(&bundle("plain", "", &certificate(true))),
        Vec::<String>::new()
    );
}

#[test]
fn names_follow_the_signer() {
    let pem = certificate(true);
    assert_eq!(
        messages(&bundle("other", "example.com/signer", &pem)),
        [
            "metadata.name: Invalid value: \"other\": ClusterTrustBundle for signerName example.com/signer must be named with prefix example.com:signer:"
        ]
    );
    assert_eq!(
        messages(&bundle("a:b", "", &pem)),
        [
            "metadata.name: Invalid value: \"a:b\": ClusterTrustBundle without signer name must not have \":\" in its name"
        ]
    );
    let bad_signer = messages(&bundle("nodomain:x", "nodomain", &pem));
    assert!(
        bad_signer[0].starts_with(
            "spec.signerName: Invalid value: \"nodomain\": must be a fully qualified domain"
        ),
        "{bad_signer:?}"
    );
}

#[test]
fn only_distinct_plain_ca_certificates_anchor_trust() {
    let ca = certificate(true);
    assert_eq!(
        messages(&bundle("b", "", &certificate(false))),
        [
            "spec.trustBundle: Invalid value: \"<value omitted>\": entry 0 does not have the CA bit set"
        ]
    );
    let key = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
    assert_eq!(
        messages(&bundle("b", "", &format!("{ca}{key}"))),
        [
            "spec.trustBundle: Invalid value: \"<value omitted>\": entry 1 has bad block type: PRIVATE KEY"
        ]
    );
    assert_eq!(
        messages(&bundle("b", "", &format!("{ca}{ca}"))),
        [
            "spec.trustBundle: Invalid value: \"<value omitted>\": duplicate trust anchor (indices [0 1])"
        ]
    );
    assert_eq!(
        messages(&bundle("b", "", "")),
        [
            "spec.trustBundle: Invalid value: \"<value omitted>\": at least one trust anchor must be provided"
        ]
    );
    let garbage = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    assert_eq!(
        messages(&bundle("b", "", garbage)),
        ["spec.trustBundle: Invalid value: \"<value omitted>\": entry 0 does not parse as X.509"]
    );
}

#[test]
fn the_signer_is_fixed() {
    let ca = certificate(true);
    let old = bundle("example.com:signer:one", "example.com/signer", &ca);
    let mut new = old.clone();
    assert!(update_checks(&new, &old).is_empty());
    new["spec"]["signerName"] = json!("example.com/other");
    let causes = update_checks(&new, &old);
    assert_eq!(causes[0].field, "spec.signerName");
    assert!(causes[0].message.ends_with("field is immutable"));
}
