//! JWT authentication on the real binary over TLS: the test serves its own
//! OIDC issuer (discovery and JWKS over HTTPS on loopback, with its own CA),
//! configures it with `--authentication-config`, and uses its tokens with
//! HTTPS requests and kubectl; then rewrites the file to see it reloaded,
//! and an invalid rewrite kept out.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use cairn_tests::{Server, kubectl_present, wait_until};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, SanType};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use serde_json::{Value, json};

/// An OIDC issuer on loopback: one ES256 key, discovery and JWKS over HTTPS.
struct TestIssuer {
    url: String,
    ca_pem: String,
    key: KeyPair,
}

impl TestIssuer {
    fn start() -> TestIssuer {
        let ca_key = KeyPair::generate().expect("key");
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("params");
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca_cert = ca_params.self_signed(&ca_key).expect("CA");
        let ca = Issuer::new(ca_params, ca_key);
        let mut leaf = CertificateParams::new(vec!["localhost".to_owned()]).expect("params");
        leaf.subject_alt_names
            .push(SanType::IpAddress("127.0.0.1".parse().expect("ip")));
        let leaf_key = KeyPair::generate().expect("key");
        let leaf_cert = leaf.signed_by(&leaf_key, &ca).expect("leaf");
        let tls = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from(leaf_cert.der().to_vec())],
            PrivateKeyDer::from_pem_slice(leaf_key.serialize_pem().as_bytes()).expect("key"),
        )
        .expect("TLS");
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!(
            "https://127.0.0.1:{}",
            listener.local_addr().expect("addr").port()
        );
        let key = KeyPair::generate().expect("signing key");
        let raw = key.public_key_raw().to_vec();
        let jwks = json!({"keys": [{
            "kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": "k1",
            "x": URL_SAFE_NO_PAD.encode(&raw[1..33]),
            "y": URL_SAFE_NO_PAD.encode(&raw[33..65]),
        }]});
        let discovery = json!({"issuer": url, "jwks_uri": format!("{url}/jwks")});
        let tls = Arc::new(tls);
        std::thread::spawn(move || {
            for tcp in listener.incoming().flatten() {
                let tls = Arc::clone(&tls);
                let (discovery, jwks) = (discovery.clone(), jwks.clone());
                std::thread::spawn(move || {
                    let Ok(conn) = rustls::ServerConnection::new(tls) else {
                        return;
                    };
                    let mut stream = rustls::StreamOwned::new(conn, tcp);
                    let mut request = Vec::new();
                    let mut buf = [0u8; 1024];
                    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                        match stream.read(&mut buf) {
                            Ok(0) | Err(_) => return,
                            Ok(n) => request.extend_from_slice(&buf[..n]),
                        }
                    }
                    let text = String::from_utf8_lossy(&request);
                    let path = text.split_whitespace().nth(1).unwrap_or("");
                    let body = match path {
                        "/.well-known/openid-configuration" => discovery.to_string(),
                        "/jwks" => jwks.to_string(),
                        _ => "{}".to_owned(),
                    };
                    let response = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = stream.write_all(response.as_bytes());
                    let _ = stream.flush();
                    stream.conn.send_close_notify();
                    let _ = stream.flush();
                });
            }
        });
        TestIssuer {
            url,
            ca_pem: ca_cert.pem(),
            key,
        }
    }

    /// A token for `sub` valid for ten minutes, with `extra` claims.
    fn token(&self, sub: &str, extra: &Value) -> String {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("clock")
            .as_secs();
        let mut claims =
            json!({"iss": self.url, "aud": ["cairn"], "sub": sub, "iat": now, "exp": now + 600});
        for (k, v) in extra.as_object().expect("object") {
            claims[k] = v.clone();
        }
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some("k1".into());
        let key = EncodingKey::from_ec_pem(self.key.serialize_pem().as_bytes()).expect("key");
        jsonwebtoken::encode(&header, &claims, &key).expect("sign")
    }

    /// This issuer's `jwt[]` entry.
    fn entry(&self) -> Value {
        json!({
            "issuer": {"url": self.url, "audiences": ["cairn"], "certificateAuthority": self.ca_pem},
            "claimMappings": {
                "username": {"claim": "sub", "prefix": ""},
                "groups": {"expression": "has(claims.groups) ? claims.groups : []"}
            },
            "userValidationRules": [{
                "expression": "!user.username.startsWith('system:')",
                "message": "no system users"
            }]
        })
    }
}

fn write_config(path: &Path, entries: &[Value]) {
    let doc = json!({
        "apiVersion": "apiserver.config.k8s.io/v1",
        "kind": "AuthenticationConfiguration",
        "jwt": entries,
    });
    std::fs::write(path, doc.to_string()).expect("write config");
}

/// The status of `GET path` with `token`.
fn status_with(s: &Server, token: &str, path: &str) -> u16 {
    let bearer = format!("Bearer {token}");
    s.https(
        &s.tls_client(None),
        "GET",
        path,
        &[("Authorization", &bearer)],
        None,
    )
    .status
}

#[test]
fn a_jwt_of_the_configured_issuer_authenticates_over_tls() {
    let issuer = TestIssuer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("authn.json");
    write_config(&config, &[issuer.entry()]);
    let s = Server::start_secure(&["--authentication-config", config.to_str().expect("path")]);
    s.grant(
        &json!({"kind": "User", "name": "jane"}),
        "view",
        ("list", "namespaces"),
    );
    let token = issuer.token("jane", &json!({"groups": ["dev"]}));
    wait_until("the issuer's keys are fetched", || {
        status_with(&s, &token, "/api/v1/namespaces") == 200
    });
    let expired = issuer.token("jane", &json!({"exp": 1000}));
    let wrong_audience = issuer.token("jane", &json!({"aud": ["elsewhere"]}));
    let reserved = issuer.token("system:admin", &json!({}));
    for bad in [expired, wrong_audience, reserved, format!("{token}x")] {
        let bearer = format!("Bearer {bad}");
        let r = s.https(
            &s.tls_client(None),
            "GET",
            "/api/v1/namespaces",
            &[("Authorization", &bearer)],
            None,
        );
        assert_eq!(r.status, 401, "{}", r.text());
        let status = r.json();
        assert_eq!(
            (status["reason"].as_str(), status["message"].as_str()),
            (Some("Unauthorized"), Some("Unauthorized"))
        );
    }
    if kubectl_present() {
        let mut kubectl = cairn_tests::clients::kubectl_command(&s);
        let out = kubectl
            .args([
                "--server",
                &s.https_url(),
                "--token",
                &token,
                "get",
                "namespaces",
                "-o",
                "name",
            ])
            .arg("--certificate-authority")
            .arg(s.data_dir.join("pki/ca.crt"))
            .env("KUBECONFIG", "/dev/null")
            .output()
            .expect("kubectl");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("namespace/default"), "{stdout}");
    }
}

#[test]
fn the_configuration_is_reloaded_and_an_invalid_one_kept_out() {
    let first = TestIssuer::start();
    let second = TestIssuer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("authn.json");
    write_config(&config, &[first.entry()]);
    let s = Server::start_secure(&["--authentication-config", config.to_str().expect("path")]);
    let from_first = first.token("jane", &json!({}));
    let from_second = second.token("joe", &json!({}));
    wait_until("the first issuer works", || {
        status_with(&s, &from_first, "/api") == 200
    });
    assert_eq!(status_with(&s, &from_second, "/api"), 401);
    write_config(&config, &[first.entry(), second.entry()]);
    wait_until("the second issuer is added", || {
        status_with(&s, &from_second, "/api") == 200
    });
    std::fs::write(&config, "{\"apiVersion\": \"apiserver.config.k8s.io/v1\", \"kind\": \"AuthenticationConfiguration\", \"jwt\": [{\"issuer\": {\"url\": \"http://x\"}}]}").expect("write");
    wait_until("the invalid file is logged", || {
        s.log_text()
            .contains("authentication configuration not reloaded")
    });
    assert!(
        s.log_text().contains("URL scheme must be https"),
        "{}",
        s.log_text()
    );
    assert_eq!(status_with(&s, &from_second, "/api"), 200);
    assert_eq!(status_with(&s, &from_first, "/api"), 200);
}
