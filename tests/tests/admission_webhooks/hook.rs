//! An admission webhook served by the test over HTTPS on loopback: a CA of
//! its own signs a serving certificate for 127.0.0.1 (and any further
//! names); each AdmissionReview is kept with the `Authorization` it came
//! with, and answered by the test's function of the review's request.

use std::io::{BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use cairn_tests::tls::make;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ServerConfig, ServerConnection, StreamOwned};
use serde_json::{Value, json};

/// A review received, with the request target and `Authorization` header
/// it came with.
#[derive(Clone)]
pub struct Received {
    pub target: String,
    pub authorization: Option<String>,
    /// The W3C trace context the call carried.
    pub traceparent: Option<String>,
    pub review: Value,
}

/// What the webhook answers: the `response` fields besides `uid`.
pub type Decide = fn(&Value) -> Value;

pub struct Hook {
    pub url: String,
    /// The CA bundle (base64 PEM) a configuration's `caBundle` takes.
    pub ca_bundle: String,
    pub port: u16,
    reviews: Arc<Mutex<Vec<Received>>>,
}

impl Hook {
    pub fn start(decide: Decide) -> Hook {
        Hook::start_named(decide, &[])
    }

    /// A hook whose certificate also names `names` (a Service's
    /// `<name>.<namespace>.svc`).
    pub fn start_named(decide: Decide, names: &[&str]) -> Hook {
        let ca = make::ca("hook-ca");
        let mut all = vec!["127.0.0.1"];
        all.extend_from_slice(names);
        let leaf = make::Leaf {
            dns_or_ip: &all,
            ..make::Leaf::client("hook")
        };
        let serving = make::signed(&ca, &leaf);
        let chain = CertificateDer::pem_slice_iter(serving.cert_pem.as_bytes())
            .collect::<Result<Vec<_>, _>>()
            .expect("chain");
        let key = PrivateKeyDer::from_pem_slice(serving.key_pem.as_bytes()).expect("key");
        let config =
            ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .expect("versions")
                .with_no_client_auth()
                .with_single_cert(chain, key)
                .expect("serving cert");
        let config = Arc::new(config);
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let url = format!("https://127.0.0.1:{port}/admit");
        let reviews = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&reviews);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (config, kept) = (Arc::clone(&config), Arc::clone(&kept));
                std::thread::spawn(move || {
                    let Ok(conn) = ServerConnection::new(config) else {
                        return;
                    };
                    serve(StreamOwned::new(conn, stream), decide, &kept);
                });
            }
        });
        Hook {
            url,
            ca_bundle: STANDARD.encode(ca.cert_pem),
            port,
            reviews,
        }
    }

    /// The reviews received so far.
    pub fn reviews(&self) -> Vec<Value> {
        let reviews = self.reviews.lock().expect("lock");
        reviews.iter().map(|r| r.review.clone()).collect()
    }

    /// The reviews received so far, each with its target and credentials.
    pub fn received(&self) -> Vec<Received> {
        self.reviews.lock().expect("lock").clone()
    }

    /// A webhook entry calling this hook for `rules`, with `extra` fields.
    pub fn entry(&self, name: &str, rules: Value, extra: Value) -> Value {
        let mut entry = json!({
            "name": name,
            "clientConfig": {"url": self.url, "caBundle": self.ca_bundle},
            "rules": rules,
            "sideEffects": "None",
            "admissionReviewVersions": ["v1"],
        });
        if let (Some(e), Some(x)) = (entry.as_object_mut(), extra.as_object()) {
            e.extend(x.clone());
        }
        entry
    }
}

/// Answers reviews on one keep-alive connection until it closes.
fn serve(
    stream: StreamOwned<ServerConnection, std::net::TcpStream>,
    decide: Decide,
    reviews: &Mutex<Vec<Received>>,
) {
    let mut reader = BufReader::new(stream);
    loop {
        let Some(seen) = cairn_tests::http_request::read_request(&mut reader) else {
            return;
        };
        let review: Value = serde_json::from_slice(&seen.body).unwrap_or(Value::Null);
        reviews.lock().expect("lock").push(Received {
            authorization: seen
                .header_values("authorization")
                .first()
                .map(|v| v.to_string()),
            traceparent: seen
                .header_values("traceparent")
                .first()
                .map(|v| v.to_string()),
            target: seen.target.clone(),
            review: review.clone(),
        });
        let mut response = decide(&review["request"]);
        response["uid"] = review["request"]["uid"].clone();
        let answer = json!({
            "apiVersion": review["apiVersion"],
            "kind": "AdmissionReview",
            "response": response
        })
        .to_string();
        let reply = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{answer}",
            answer.len()
        );
        if reader.get_mut().write_all(reply.as_bytes()).is_err() {
            return;
        }
        let _ = reader.get_mut().flush();
    }
}

/// A JSONPatch answer, base64 as the review carries it.
pub fn patch(ops: &Value) -> Value {
    json!({"allowed": true, "patchType": "JSONPatch", "patch": STANDARD.encode(ops.to_string())})
}
