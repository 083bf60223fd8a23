//! `--cluster-signing-cert-file`, `--cluster-signing-key-file` and
//! `--cluster-signing-duration` (kube-controller-manager's flags): an
//! approved CertificateSigningRequest is signed by the given CA, for no
//! longer than the given duration, and a bad pair of files stops the start
//! with one line naming the flags.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use cairn_tests::tls::make::{self, Leaf};
use cairn_tests::{Identity, Server, free_port, wait_until};
use rcgen::KeyPair;
use serde_json::{Value, json};

const CSRS: &str = "/apis/certificates.k8s.io/v1/certificatesigningrequests";

fn csr_for(cn: &str) -> (KeyPair, Value) {
    let (key, pem) = make::request(cn, None, &[]);
    let body = json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
        "metadata": {"name": cn},
        "spec": {"request": STANDARD.encode(pem), "usages": ["client auth"],
            "signerName": "kubernetes.io/kube-apiserver-client", "expirationSeconds": 86400}});
    (key, body)
}

#[test]
fn the_given_ca_signs_for_at_most_the_given_duration() {
    let dir = tempfile::tempdir().expect("tempdir");
    let signing = make::ca("signing-ca");
    let (cert_file, key_file) = (dir.path().join("ca.crt"), dir.path().join("ca.key"));
    std::fs::write(&cert_file, &signing.cert_pem).expect("write");
    std::fs::write(&key_file, &signing.key_pem).expect("write");
    let secure = free_port();
    let secure_text = secure.to_string();
    // Client certificates are trusted only when the signing CA issued them.
    let mut s = Server::start(&[
        "--api-domain",
        "k8s.io",
        "--bind-address",
        "127.0.0.1",
        "--secure-port",
        &secure_text,
        "--client-ca-file",
        cert_file.to_str().expect("utf-8"),
        "--cluster-signing-cert-file",
        cert_file.to_str().expect("utf-8"),
        "--cluster-signing-key-file",
        key_file.to_str().expect("utf-8"),
        "--cluster-signing-duration",
        "2h",
    ]);
    s.secure_port = Some(secure);

    let (key, body) = csr_for("carol");
    let r = s.post(CSRS, &body);
    assert_eq!(r.status, 201, "{}", r.text());
    let mut approved = r.json();
    approved["status"] = json!({"conditions": [{"type": "Approved", "status": "True",
        "reason": "TestApproved", "message": "approved by the test"}]});
    let r = s.put(&format!("{CSRS}/carol/approval"), &approved);
    assert_eq!(r.status, 200, "{}", r.text());
    let mut issued = String::new();
    wait_until("the certificate is issued", || {
        let got = s.get(&format!("{CSRS}/carol")).json();
        issued = got["status"]["certificate"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        !issued.is_empty()
    });
    let cert_pem = String::from_utf8(STANDARD.decode(&issued).expect("base64")).expect("utf-8");

    // Issued by the given CA for at most two hours (plus the few minutes it
    // is backdated), though the request asked for a day.
    let (_, pem) = x509_parser::pem::parse_x509_pem(cert_pem.as_bytes()).expect("PEM");
    let cert = pem.parse_x509().expect("a certificate");
    assert_eq!(cert.issuer().to_string(), "CN=signing-ca");
    let validity = cert.validity();
    let seconds = validity.not_after.timestamp() - validity.not_before.timestamp();
    assert!(
        (3600..=2 * 3600 + 600).contains(&seconds),
        "lifetime {seconds} s"
    );

    // Signed by the given CA: the server, trusting only that CA for client
    // certificates, takes it as carol's.
    let carol = Identity {
        cert_pem,
        key_pem: key.serialize_pem(),
    };
    let client = s.tls_client(Some(&carol));
    let review = br#"{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}"#;
    let r = s.https(
        &client,
        "POST",
        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        &[("Content-Type", "application/json")],
        Some(review),
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let me: Value = serde_json::from_slice(&r.body).expect("json");
    assert_eq!(me["status"]["userInfo"]["username"], "carol");
}

#[test]
fn bad_signing_files_stop_the_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = |name: &str| dir.path().join(name).to_str().expect("utf-8").to_string();
    let ca = make::ca("signing-ca");
    let other = make::ca("other-ca");
    let leaf = make::signed(&ca, &Leaf::client("not-a-ca"));
    for (name, text) in [
        ("ca.crt", &ca.cert_pem),
        ("ca.key", &ca.key_pem),
        ("other.key", &other.key_pem),
        ("leaf.crt", &leaf.cert_pem),
        ("leaf.key", &leaf.key_pem),
        ("garbage", &"not pem".to_string()),
    ] {
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    let cert_flag = "--cluster-signing-cert-file";
    let key_flag = "--cluster-signing-key-file";
    let cases: [(Vec<String>, &str); 6] = [
        (
            vec![cert_flag.into(), path("ca.crt")],
            "--cluster-signing-key-file: required with --cluster-signing-cert-file",
        ),
        (
            vec![key_flag.into(), path("ca.key")],
            "--cluster-signing-cert-file: required with --cluster-signing-key-file",
        ),
        (
            vec![
                cert_flag.into(),
                path("ca.crt"),
                key_flag.into(),
                path("other.key"),
            ],
            "the private key does not match the certificate",
        ),
        (
            vec![
                cert_flag.into(),
                path("leaf.crt"),
                key_flag.into(),
                path("leaf.key"),
            ],
            "the certificate is not a CA",
        ),
        (
            vec![
                cert_flag.into(),
                path("garbage"),
                key_flag.into(),
                path("ca.key"),
            ],
            "no PEM certificate",
        ),
        (
            vec![
                cert_flag.into(),
                path("missing"),
                key_flag.into(),
                path("ca.key"),
            ],
            "--cluster-signing-cert-file:",
        ),
    ];
    for (args, expected) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let stderr = cairn_tests::start_refused_with(&args);
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{args:?}: {stderr}");
        assert!(lines[0].contains(expected), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("PRIVATE KEY"),
            "no key material in errors: {stderr}"
        );
    }
    let stderr = cairn_tests::start_refused_with(&["--cluster-signing-duration", "0s"]);
    assert!(
        stderr.contains("--cluster-signing-duration") && stderr.contains("greater than zero"),
        "{stderr}"
    );
}
