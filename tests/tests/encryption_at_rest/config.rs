//! Configurations the server refuses to start with: one line naming the
//! field, nothing written, no key material shown.

use cairn_tests::start_refused;

use super::{IDENTITY, KEY_16, KEY_A, keyed};

const FLAG: &str = "--encryption-provider-config";

fn refused(resources: &str) -> String {
    let text = format!(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n{resources}"
    );
    start_refused(FLAG, &text, &[])
}

fn secrets_with(providers: &str) -> String {
    format!("  - resources: [secrets]\n    providers:\n{providers}")
}

#[test]
fn wrong_key_sizes_and_bad_base64_are_refused_without_showing_the_key() {
    let line = refused(&secrets_with(&keyed("aesgcm", "k1", "MTIzNDU2Nzg=")));
    assert!(
        line.contains("resources[0].providers[0].aesgcm.keys[0].secret")
            && line.contains("got 8, expected one of [16 24 32]"),
        "{line}"
    );
    assert!(!line.contains("MTIzNDU2Nzg="), "{line}");
    let line = refused(&secrets_with(&keyed("aescbc", "k1", KEY_16)));
    assert!(
        line.contains("aescbc.keys[0].secret") && line.contains("expected one of [32]"),
        "{line}"
    );
    let line = refused(&secrets_with(&keyed("secretbox", "k1", KEY_16)));
    assert!(line.contains("secretbox.keys[0].secret"), "{line}");
    let line = refused(&secrets_with(&keyed("aesgcm", "k1", "not*base64")));
    assert!(
        line.contains("aesgcm.keys[0].secret") && line.contains("base64"),
        "{line}"
    );
}

#[test]
fn overlapping_wildcards_and_unknown_providers_are_refused() {
    let line = refused(&format!(
        "  - resources: ['*.*']\n    providers:\n{IDENTITY}  - resources: ['*.']\n    providers:\n{IDENTITY}"
    ));
    assert!(
        line.contains("resources[1].resources[0]") && line.contains("masked by earlier rule"),
        "{line}"
    );
    let line = refused(&format!(
        "  - resources: ['*.', secrets]\n    providers:\n{IDENTITY}"
    ));
    assert!(
        line.contains("resources[0].resources") && line.contains("overlapping"),
        "{line}"
    );
    let line = refused(&secrets_with("    - rot13: {}\n"));
    assert!(
        line.contains("resources[0].providers[0]")
            && line.contains("provider does not contain any of the expected providers"),
        "{line}"
    );
}

#[test]
fn kms_names_must_be_unique_and_v2_takes_no_cachesize() {
    let kms = |name: &str, extra: &str| {
        format!(
            "    - kms:\n        apiVersion: v2\n        name: {name}\n        endpoint: unix:///tmp/cairn-kms.sock\n{extra}"
        )
    };
    let line = refused(&secrets_with(&format!("{}{}", kms("p", ""), kms("p", ""))));
    assert!(
        line.contains("resources[0].providers[1].kms.name")
            && line.contains("duplicate KMS provider name p"),
        "{line}"
    );
    let line = refused(&secrets_with(&kms("p", "        cachesize: 10\n")));
    assert!(
        line.contains("kms.cachesize") && line.contains("cachesize is not supported in v2"),
        "{line}"
    );
}

#[test]
fn the_document_must_be_an_encryption_configuration() {
    let line = start_refused(FLAG, "apiVersion: v1\nkind: ConfigMap\n", &[]);
    assert!(
        line.contains("EncryptionConfiguration") || line.contains("ConfigMap"),
        "{line}"
    );
    let line = start_refused(
        FLAG,
        &format!(
            "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [secrets]\n    providers:\n{}",
            keyed("aesgcm", "k1", KEY_A)
        ),
        &["--api-domain", "svc.io"],
    );
    assert!(line.contains("apiserver.config.k8s.io/v1"), "{line}");
}
