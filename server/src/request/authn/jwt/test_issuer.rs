//! A JWT issuer for tests: serves discovery and a JWKS over HTTPS on
//! loopback with its own CA (rcgen), and signs tokens (ES256/ES384 with
//! fresh keys; RS*/PS* with a fixed 2048-bit test key, as ring cannot make
//! RSA keys) with its current key; `rotate` publishes a new key and signs
//! with it.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http_body_util::Full;
use hyper::body::Bytes;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use parking_lot::Mutex;
use rcgen::{KeyPair, PublicKeyData};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

/// An RSA key made once per test run (ring cannot generate RSA keys; the
/// `rsa` crate, already in the tree for jsonwebtoken, can).
fn rsa_pem() -> &'static str {
    use rsa::pkcs8::{EncodePrivateKey, LineEnding};
    static PEM: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PEM.get_or_init(|| {
        let key = rsa::RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 2048).expect("RSA key");
        key.to_pkcs8_pem(LineEnding::LF)
            .expect("PKCS#8")
            .to_string()
    })
}

struct SigningKey {
    kid: String,
    alg: Algorithm,
    pair: KeyPair,
}

impl SigningKey {
    fn generate(kid: &str, alg: Algorithm) -> SigningKey {
        let pair = match alg {
            Algorithm::ES384 => KeyPair::generate_for(&rcgen::PKCS_ECDSA_P384_SHA384),
            Algorithm::ES256 => KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256),
            _ => KeyPair::from_pem(rsa_pem()),
        };
        SigningKey {
            kid: kid.to_owned(),
            alg,
            pair: pair.expect("key"),
        }
    }

    fn is_rsa(&self) -> bool {
        !matches!(self.alg, Algorithm::ES256 | Algorithm::ES384)
    }

    fn jwk(&self) -> Value {
        if self.is_rsa() {
            return self.rsa_jwk();
        }
        // An uncompressed point: 0x04, then x and y of equal length.
        let raw = self.pair.public_key_raw();
        let half = (raw.len() - 1) / 2;
        let (crv, alg) = match self.alg {
            Algorithm::ES384 => ("P-384", "ES384"),
            _ => ("P-256", "ES256"),
        };
        json!({
            "kty": "EC", "crv": crv, "alg": alg, "use": "sig", "kid": self.kid,
            "x": URL_SAFE_NO_PAD.encode(&raw[1..=half]),
            "y": URL_SAFE_NO_PAD.encode(&raw[half + 1..]),
        })
    }

    fn rsa_jwk(&self) -> Value {
        use x509_parser::prelude::FromDer;
        use x509_parser::public_key::PublicKey;
        let spki = self.pair.subject_public_key_info();
        let (_, info) = x509_parser::x509::SubjectPublicKeyInfo::from_der(&spki).expect("SPKI");
        let Ok(PublicKey::RSA(rsa)) = info.parsed() else {
            panic!("not an RSA key");
        };
        let strip = |b: &[u8]| {
            let start = b.iter().position(|x| *x != 0).unwrap_or(b.len());
            URL_SAFE_NO_PAD.encode(&b[start..])
        };
        json!({
            "kty": "RSA", "use": "sig", "kid": self.kid,
            "n": strip(rsa.modulus), "e": strip(rsa.exponent),
        })
    }

    fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.kid = Some(self.kid.clone());
        let pem = self.pair.serialize_pem();
        let key = if self.is_rsa() {
            EncodingKey::from_rsa_pem(pem.as_bytes())
        } else {
            EncodingKey::from_ec_pem(pem.as_bytes())
        }
        .expect("key");
        jsonwebtoken::encode(&header, claims, &key).expect("sign")
    }
}

struct State {
    url: String,
    published: Mutex<Vec<Arc<SigningKey>>>,
    signer: Mutex<Arc<SigningKey>>,
    jwks_fetches: AtomicUsize,
}

/// A running test issuer.
pub struct TestIssuer {
    pub url: String,
    /// The PEM of the CA that signed the issuer's serving certificate.
    pub ca_pem: String,
    state: Arc<State>,
    stop: tokio::task::JoinHandle<()>,
}

impl Drop for TestIssuer {
    fn drop(&mut self) {
        self.stop.abort();
    }
}

impl TestIssuer {
    pub async fn start() -> TestIssuer {
        let (tls, ca_pem) = crate::tls::test_pki::loopback_server();
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!(
            "https://127.0.0.1:{}",
            listener.local_addr().expect("addr").port()
        );
        let first = Arc::new(SigningKey::generate("key-1", Algorithm::ES256));
        let state = Arc::new(State {
            url: url.clone(),
            published: Mutex::new(vec![Arc::clone(&first)]),
            signer: Mutex::new(first),
            jwks_fetches: AtomicUsize::new(0),
        });
        let acceptor = TlsAcceptor::from(Arc::new(tls));
        let serving = Arc::clone(&state);
        let stop = tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    continue;
                };
                let acceptor = acceptor.clone();
                let state = Arc::clone(&serving);
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let service = service_fn(move |req| {
                        let state = Arc::clone(&state);
                        async move { Ok::<_, Infallible>(answer(&state, req.uri().path())) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(tls), service)
                        .await;
                });
            }
        });
        TestIssuer {
            url,
            ca_pem,
            state,
            stop,
        }
    }

    /// Publishes a new key (`alg`) beside the old ones and signs with it.
    pub fn rotate(&self, kid: &str, alg: Algorithm) {
        let key = Arc::new(SigningKey::generate(kid, alg));
        self.state.published.lock().push(Arc::clone(&key));
        *self.state.signer.lock() = key;
    }

    /// A token signed with the current key.
    pub fn sign(&self, claims: &Value) -> String {
        self.state.signer.lock().sign(claims)
    }

    /// A token signed with a key the issuer never published, under the
    /// current key's id.
    pub fn forge(&self, claims: &Value) -> String {
        let kid = self.state.signer.lock().kid.clone();
        self.forge_as(&kid, claims)
    }

    /// A token signed with an unpublished key, naming key id `kid`.
    pub fn forge_as(&self, kid: &str, claims: &Value) -> String {
        SigningKey::generate(kid, Algorithm::ES256).sign(claims)
    }

    /// How many times the JWKS was fetched.
    pub fn jwks_fetches(&self) -> usize {
        self.state.jwks_fetches.load(Ordering::SeqCst)
    }

    /// Claims valid now for `aud`, with `extra` merged in.
    pub fn claims(&self, aud: &str, extra: &Value) -> Value {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .as_secs();
        let mut claims =
            json!({"iss": self.url, "aud": [aud], "sub": "jane", "iat": now, "exp": now + 600});
        if let (Some(c), Some(e)) = (claims.as_object_mut(), extra.as_object()) {
            for (k, v) in e {
                c.insert(k.clone(), v.clone());
            }
        }
        claims
    }
}

fn answer(state: &State, path: &str) -> hyper::Response<Full<Bytes>> {
    let body = match path {
        "/.well-known/openid-configuration" | "/discovery" => {
            json!({"issuer": state.url, "jwks_uri": format!("{}/jwks", state.url)})
        }
        "/jwks" => {
            state.jwks_fetches.fetch_add(1, Ordering::SeqCst);
            let keys: Vec<Value> = state.published.lock().iter().map(|k| k.jwk()).collect();
            json!({ "keys": keys })
        }
        _ => {
            let mut response = hyper::Response::new(Full::new(Bytes::from_static(b"not found")));
            *response.status_mut() = http::StatusCode::NOT_FOUND;
            return response;
        }
    };
    let mut response = hyper::Response::new(Full::new(Bytes::from(body.to_string())));
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    response
}
