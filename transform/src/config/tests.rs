use std::sync::Arc;

use super::*;
use crate::{ENCRYPTED_MARK, Error, Plain, Transformer};

const K16: &str = "MTIzNDU2Nzg5MDEyMzQ1Ng=="; // 16 bytes
const K32: &str = "MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI="; // 32 bytes

fn doc(resources: &str) -> String {
    format!(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n{resources}"
    )
}

fn refused(resources: &str) -> String {
    match parse(doc(resources).as_bytes(), "k8s.io") {
        Ok(_) => panic!("accepted: {resources}"),
        Err(Problem::Decode(e) | Problem::Invalid(e)) => e,
    }
}

struct NoKms;

impl Transformer for NoKms {
    fn transform_to_storage<'a>(
        &self,
        _: &[u8],
        _: &'a [u8],
    ) -> Result<std::borrow::Cow<'a, [u8]>, Error> {
        Err(Error::new("no kms"))
    }
    fn transform_from_storage<'a>(&self, _: &[u8], _: &'a [u8]) -> Result<Plain<'a>, Error> {
        Err(Error::new("no kms"))
    }
}

fn built(resources: &str) -> crate::Transformers {
    parse(doc(resources).as_bytes(), "k8s.io")
        .expect("valid")
        .transformers(&mut |_| Arc::new(NoKms))
}

#[test]
fn every_local_provider_round_trips_under_its_prefix() {
    for (provider, key, prefix) in [
        ("aesgcm", K16, "k8s:enc:aesgcm:v1:k1:"),
        ("aesgcm", K32, "k8s:enc:aesgcm:v1:k1:"),
        ("aescbc", K32, "k8s:enc:aescbc:v1:k1:"),
        ("secretbox", K32, "k8s:enc:secretbox:v1:k1:"),
    ] {
        let t = built(&format!(
            "- resources: [secrets]\n  providers:\n  - {provider}:\n      keys:\n      - name: k1\n        secret: {key}\n"
        ));
        let key = b"/registry/secrets/ns/a";
        let stored = t.transform_to_storage(key, b"top secret").expect("seal");
        assert!(stored.starts_with(prefix.as_bytes()), "{provider}");
        assert!(
            !stored.windows(10).any(|w| w == b"top secret"),
            "{provider}"
        );
        let back = t.transform_from_storage(key, &stored).expect("open");
        assert_eq!(&back.value[..], b"top secret");
        assert!(!back.stale);
        // Other resources are not covered.
        let other = t
            .transform_to_storage(b"/registry/configmaps/ns/a", b"x")
            .expect("to");
        assert_eq!(&other[..], b"x");
    }
}

#[test]
fn aes_gcm_binds_the_value_to_its_key() {
    let t = built(&format!(
        "- resources: [secrets]\n  providers:\n  - aesgcm:\n      keys:\n      - name: k1\n        secret: {K32}\n"
    ));
    let stored = t
        .transform_to_storage(b"/registry/secrets/ns/a", b"v")
        .expect("seal");
    assert!(
        t.transform_from_storage(b"/registry/secrets/ns/b", &stored)
            .is_err()
    );
}

#[test]
fn later_keys_read_and_mark_values_stale_unprefixed_values_read_as_identity() {
    let old = built(&format!(
        "- resources: [secrets]\n  providers:\n  - aescbc:\n      keys:\n      - name: old\n        secret: {K32}\n"
    ));
    let rotated = built(&format!(
        "- resources: [secrets]\n  providers:\n  - secretbox:\n      keys:\n      - name: new\n        secret: {K32}\n  - aescbc:\n      keys:\n      - name: old\n        secret: {K32}\n  - identity: {{}}\n"
    ));
    let key = b"/registry/secrets/ns/a";
    let by_old = old.transform_to_storage(key, b"v").expect("seal");
    let read = rotated.transform_from_storage(key, &by_old).expect("open");
    assert_eq!((&read.value[..], read.stale), (&b"v"[..], true));
    let plain = rotated
        .transform_from_storage(key, b"{}")
        .expect("identity");
    assert_eq!((&plain.value[..], plain.stale), (&b"{}"[..], true));
    let fresh = rotated.transform_to_storage(key, b"v").expect("seal");
    assert!(fresh.starts_with(b"k8s:enc:secretbox:v1:new:"));
    assert!(
        !rotated
            .transform_from_storage(key, &fresh)
            .expect("open")
            .stale
    );
    // A key no longer listed: the value cannot be read, and the error names
    // the key's name, not its material.
    let err = built("- resources: [secrets]\n  providers:\n  - identity: {}\n")
        .transform_from_storage(key, &by_old)
        .expect_err("unreadable");
    assert!(err.reason.contains("aescbc:old"), "{err}");
    assert!(by_old.starts_with(ENCRYPTED_MARK));
}

#[test]
fn wildcards_cover_groups_and_later_resources_exact_names_win() {
    let t = built(&format!(
        "- resources: [configmaps]\n  providers:\n  - identity: {{}}\n- resources: ['*.apps']\n  providers:\n  - aescbc:\n      keys:\n      - name: a\n        secret: {K32}\n- resources: ['*.*']\n  providers:\n  - aesgcm:\n      keys:\n      - name: g\n        secret: {K32}\n"
    ));
    let stored = |k: &[u8]| t.transform_to_storage(k, b"v").expect("seal").into_owned();
    assert_eq!(stored(b"/registry/configmaps/ns/a"), b"v");
    assert!(stored(b"/registry/apps/deployments/ns/a").starts_with(b"k8s:enc:aesgcm:v1:g:"));
    assert!(stored(b"/registry/secrets/ns/a").starts_with(b"k8s:enc:aesgcm:v1:g:"));
    assert!(stored(b"/registry/stable.example.com/crontabs/ns/a").starts_with(b"k8s:enc:aesgcm:"));
    let apps = built(&format!(
        "- resources: ['*.apps.example.com']\n  providers:\n  - aescbc:\n      keys:\n      - name: a\n        secret: {K32}\n"
    ));
    let v = apps
        .transform_to_storage(b"/registry/apps.example.com/widgets/ns/a", b"v")
        .expect("seal");
    assert!(v.starts_with(b"k8s:enc:aescbc:v1:a:"));
}

#[test]
fn key_problems_name_the_field_and_never_the_key() {
    let e = refused(
        "- resources: [secrets]\n  providers:\n  - aesgcm:\n      keys:\n      - name: k\n        secret: MTIzNDU2Nzg=\n",
    );
    assert_eq!(
        e,
        "resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: \"REDACTED\": secret is not of the expected length, got 8, expected one of [16 24 32]"
    );
    let e = refused(&format!(
        "- resources: [secrets]\n  providers:\n  - aescbc:\n      keys:\n      - name: k\n        secret: {K16}\n"
    ));
    assert!(
        e.contains("aescbc.keys[0].secret") && e.contains("expected one of [32]"),
        "{e}"
    );
    let e = refused(
        "- resources: [secrets]\n  providers:\n  - secretbox:\n      keys:\n      - name: k\n        secret: '%%%'\n",
    );
    assert!(
        e.contains(
            "secretbox.keys[0].secret: Invalid value: \"REDACTED\": secrets must be base64 encoded"
        ),
        "{e}"
    );
    let e = refused("- resources: [secrets]\n  providers:\n  - aesgcm:\n      keys: []\n");
    assert!(e.contains("aesgcm.keys: Required value"), "{e}");
}

#[test]
fn provider_problems_are_refused_in_kubernetes_words() {
    let e = refused("- resources: [secrets]\n  providers:\n  - rot13: {}\n");
    assert!(
        e.starts_with("resources[0].providers[0]: Invalid value:"),
        "{e}"
    );
    assert!(
        e.contains("provider does not contain any of the expected providers"),
        "{e}"
    );
    let e = refused(
        "- resources: [secrets]\n  providers:\n  - identity: {}\n    aesgcm:\n      keys: []\n",
    );
    assert!(
        e.contains("more than one provider specified in a single element"),
        "{e}"
    );
    let kms = |extra: &str| {
        format!(
            "- resources: [secrets]\n  providers:\n  - kms:\n      apiVersion: v2\n      name: p\n      endpoint: unix:///tmp/k.sock\n{extra}  - kms:\n      apiVersion: v2\n      name: p\n      endpoint: unix:///tmp/k.sock\n"
        )
    };
    let e = refused(&kms(""));
    assert!(e.contains("resources[0].providers[1].kms.name: Invalid value: \"p\": duplicate KMS provider name p, names must be unique"), "{e}");
    let e = refused(&kms("      cachesize: 100\n"));
    assert!(
        e.contains(
            "providers[0].kms.cachesize: Invalid value: \"100\": cachesize is not supported in v2"
        ),
        "{e}"
    );
    let e = refused(
        "- resources: [secrets]\n  providers:\n  - kms:\n      name: p\n      endpoint: unix:///tmp/k.sock\n",
    );
    assert!(e.contains("KMSv1 is deprecated"), "{e}");
    let e = refused(
        "- resources: [secrets]\n  providers:\n  - kms:\n      apiVersion: v2\n      name: p\n      endpoint: tcp://127.0.0.1:1\n",
    );
    assert!(
        e.contains("kms.endpoint") && e.contains("only unix is supported"),
        "{e}"
    );
}

#[test]
fn kms_providers_default_their_timeout() {
    let config = parse(
        doc("- resources: [secrets]\n  providers:\n  - kms:\n      apiVersion: v2\n      name: p\n      endpoint: unix:///tmp/k.sock\n  - kms:\n      apiVersion: v2\n      name: q\n      endpoint: unix:///tmp/q.sock\n      timeout: 10s\n").as_bytes(),
        "k8s.io",
    )
    .expect("valid");
    let kms: Vec<_> = config.kms_providers().collect();
    assert_eq!(kms[0].timeout, DEFAULT_KMS_TIMEOUT);
    assert_eq!(kms[1].timeout, Duration::from_secs(10));
    assert_eq!(kms[1].endpoint, "unix:///tmp/q.sock");
    assert_eq!(kms_prefix("p"), "k8s:enc:kms:v2:p:");
}

#[test]
fn overlapping_and_masked_resources_are_refused() {
    let e = refused("- resources: ['*.', secrets]\n  providers:\n  - identity: {}\n");
    assert_eq!(
        e,
        "resources[0].resources: Invalid value: \"*.,secrets\": using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked"
    );
    let e = refused(
        "- resources: ['*.*']\n  providers:\n  - identity: {}\n- resources: [secrets]\n  providers:\n  - identity: {}\n",
    );
    assert_eq!(
        e,
        "resources[1].resources[0]: resource \"secrets\" is masked by earlier rule \"*.*\""
    );
    let e = refused(
        "- resources: ['*.apps']\n  providers:\n  - identity: {}\n- resources: [deployments.apps]\n  providers:\n  - identity: {}\n",
    );
    assert!(e.contains("masked by earlier rule \"*.apps\""), "{e}");
    let e = refused("- resources: [secrets, secrets]\n  providers:\n  - identity: {}\n");
    assert!(
        e.contains("the same resource cannot be specified multiple times"),
        "{e}"
    );
    let e = refused("- resources: ['*']\n  providers:\n  - identity: {}\n");
    assert!(e.contains("use '*.' to encrypt all the resources"), "{e}");
    // A wildcard after an exact name is allowed: the exact name wins.
    built(
        "- resources: [secrets]\n  providers:\n  - identity: {}\n- resources: ['*.']\n  providers:\n  - identity: {}\n",
    );
}

#[test]
fn the_document_must_be_an_encryption_configuration_at_the_domain() {
    let wrong = "apiVersion: apiserver.config.k8s.io/v1\nkind: Other\nresources: []\n";
    assert!(matches!(
        parse(wrong.as_bytes(), "k8s.io"),
        Err(Problem::Decode(_))
    ));
    let ok = doc("- resources: [secrets]\n  providers:\n  - identity: {}\n");
    assert!(parse(ok.as_bytes(), "svc.io").is_err());
    assert!(parse(ok.replace("k8s.io", "svc.io").as_bytes(), "svc.io").is_ok());
    let e = refused("- resources: 3\n");
    assert!(e.contains("resources[0].resources: expected array"), "{e}");
    let empty = "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n";
    assert!(
        matches!(parse(empty.as_bytes(), "k8s.io"), Err(Problem::Invalid(e)) if e.contains("resources: Required value"))
    );
}
