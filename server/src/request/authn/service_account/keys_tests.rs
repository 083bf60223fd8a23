//! Key loading: every PEM form Kubernetes accepts, key ids as Kubernetes
//! derives them (checked against ids computed with openssl), the generated
//! key, and start-up errors that name the flag and file but no key.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use super::*;
use crate::config::ServiceAccountFlags;

const RSA: &str = include_str!("testdata/rsa.pem");
const RSA_PUBLIC: &str = include_str!("testdata/rsa.pub.pem");
const EC: &str = include_str!("testdata/ec.pem");
const EC_PUBLIC: &str = include_str!("testdata/ec.pub.pem");
/// `openssl pkey -pubout -outform DER | sha256 | base64url` of each key.
const RSA_KID: &str = "hotvDDIMFwHlJXJT4XpRZYNVz6tNviL2IM5pRANh6L0";
const EC_KID: &str = "w3kiUFRVGaSaaqTtapceOrxU7fuZdIvb2QIsrR4BuLY";

struct Dir(tempfile::TempDir);

impl Dir {
    fn new() -> Dir {
        Dir(tempfile::tempdir().expect("tempdir"))
    }

    fn file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.path().join(name);
        std::fs::write(&path, text).expect("write");
        path
    }
}

fn config(signing: Option<PathBuf>, key_files: Vec<PathBuf>) -> ServiceAccountConfig {
    ServiceAccountConfig {
        signing_key_file: signing,
        key_files,
        ..ServiceAccountConfig::from(ServiceAccountFlags::default())
    }
}

fn kids(keys: &Keys) -> Vec<&str> {
    keys.verifying.iter().map(|k| k.kid.as_str()).collect()
}

#[test]
fn rsa_and_ec_keys_in_every_pem_form_get_kubernetes_key_ids() {
    let dir = Dir::new();
    let keys = Keys::load(
        &config(Some(dir.file("rsa.pem", RSA)), vec![]),
        dir.0.path(),
    )
    .expect("PKCS#1 RSA key");
    assert_eq!(keys.signing.public.kid, RSA_KID);
    assert_eq!(keys.signing.public.algorithm, Algorithm::RS256);
    let jwk = &keys.signing.public.jwk;
    assert_eq!(
        jwk.as_object().expect("object").keys().collect::<Vec<_>>(),
        ["use", "kty", "kid", "alg", "n", "e"]
    );
    assert_eq!(
        (jwk["kty"].as_str(), jwk["e"].as_str()),
        (Some("RSA"), Some("AQAB"))
    );
    // 2048 bits, no leading zero byte.
    assert_eq!(
        URL_SAFE_NO_PAD
            .decode(jwk["n"].as_str().expect("n"))
            .map(|n| n.len()),
        Ok(256)
    );
    assert_eq!(kids(&keys), [RSA_KID], "the signing key verifies too");

    let keys = Keys::load(&config(Some(dir.file("ec.pem", EC)), vec![]), dir.0.path())
        .expect("SEC1 EC key");
    assert_eq!(keys.signing.public.kid, EC_KID);
    assert_eq!(keys.signing.public.jwk["crv"], "P-256");
    assert_eq!(keys.signing.public.jwk["alg"], "ES256");

    let both = dir.file("both.pub", &format!("{RSA_PUBLIC}{EC_PUBLIC}"));
    let keys = Keys::load(
        &config(
            Some(dir.file("ec2.pem", EC)),
            vec![both, dir.file("rsa2.pem", RSA)],
        ),
        dir.0.path(),
    )
    .expect("public keys and a private key as verification keys");
    assert_eq!(kids(&keys), [RSA_KID, EC_KID, RSA_KID]);
}

#[test]
fn a_pkcs8_key_and_a_certificate_are_keys_too() {
    let dir = Dir::new();
    let pair = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P384_SHA384).expect("P-384");
    let cert = rcgen::CertificateParams::new(vec!["x".into()])
        .expect("params")
        .self_signed(&pair)
        .expect("certificate");
    let keys = Keys::load(
        &config(
            Some(dir.file("p384.pem", &pair.serialize_pem())),
            vec![dir.file("cert.pem", &cert.pem())],
        ),
        dir.0.path(),
    )
    .expect("PKCS#8 and certificate");
    assert_eq!(keys.signing.public.algorithm, Algorithm::ES384);
    assert_eq!(
        kids(&keys),
        [keys.signing.public.kid.as_str()],
        "one key, listed once"
    );
}

#[test]
fn without_a_signing_key_one_is_generated_once_and_kept_private() {
    let dir = Dir::new();
    let first = Keys::load(&config(None, vec![]), dir.0.path()).expect("generated");
    let path = dir.0.path().join(GENERATED_KEY_FILE);
    let mode = std::fs::metadata(&path)
        .expect("written")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    assert!(
        std::fs::read_to_string(&path)
            .expect("pem")
            .starts_with("-----BEGIN PRIVATE KEY-----")
    );
    let again = Keys::load(&config(None, vec![]), dir.0.path()).expect("reused");
    assert_eq!(first.signing.public.kid, again.signing.public.kid);
    assert_eq!(first.signing.public.algorithm, Algorithm::ES256);
}

#[test]
fn bad_key_files_stop_the_start_with_a_line_naming_flag_and_file() {
    let dir = Dir::new();
    let public_only = dir.file("public.pem", EC_PUBLIC);
    let err = Keys::load(&config(Some(public_only.clone()), vec![]), dir.0.path())
        .err()
        .expect("a public key cannot sign");
    assert_eq!(
        err,
        format!(
            "--service-account-signing-key-file {}: no RSA or ECDSA private key found",
            public_only.display()
        )
    );
    let missing = dir.0.path().join("missing.pem");
    let err = Keys::load(&config(None, vec![missing.clone()]), dir.0.path())
        .err()
        .expect("missing file");
    assert!(
        err.starts_with(&format!(
            "--service-account-key-file {}: cannot read",
            missing.display()
        )),
        "{err}"
    );
    let garbage = dir.file(
        "garbage.pem",
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    );
    let err = Keys::load(&config(Some(garbage), vec![]), dir.0.path())
        .err()
        .expect("garbage");
    assert!(
        err.ends_with("not a valid RSA or ECDSA private key"),
        "{err}"
    );
    assert!(!err.contains("AAAA"));
    let empty = dir.file("empty.pem", "nothing here\n");
    let err = Keys::load(&config(None, vec![empty]), dir.0.path())
        .err()
        .expect("empty");
    assert!(err.ends_with("no public or private key found"), "{err}");
    let secret = EC.lines().nth(1).expect("key line");
    assert!(!err.contains(secret));
}
