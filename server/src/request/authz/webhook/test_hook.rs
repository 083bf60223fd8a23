//! A webhook for tests: a hyper server on loopback (plain HTTP, or HTTPS
//! with its own rcgen CA) that records every review it is sent and answers
//! as the test says — a status, an error code, garbage, or never.

use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use parking_lot::Mutex;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

/// The bearer token the kubeconfig gives the client.
pub const TOKEN: &str = "hook-token";

/// How the webhook answers.
#[derive(Clone, Debug)]
pub enum Behaviour {
    /// 200 with a SubjectAccessReview carrying this `status`.
    Status(Value),
    /// This HTTP status with a text body.
    Code(u16),
    /// 200 with a body that is not JSON.
    Garbage,
    /// Never answers.
    Hang,
}

#[derive(Default)]
struct Seen {
    reviews: Vec<Value>,
    authorization: Vec<String>,
}

struct State {
    behaviour: Mutex<Behaviour>,
    seen: Mutex<Seen>,
}

pub struct TestHook {
    /// Where reviews are POSTed (`.../authorize`).
    pub url: String,
    ca_pem: Option<String>,
    dir: tempfile::TempDir,
    state: Arc<State>,
    serving: tokio::task::JoinHandle<()>,
}

impl Drop for TestHook {
    fn drop(&mut self) {
        self.serving.abort();
    }
}

impl TestHook {
    /// A webhook on plain HTTP.
    pub async fn http(behaviour: Behaviour) -> TestHook {
        TestHook::start(behaviour, None).await
    }

    /// A webhook on HTTPS with a certificate from a fresh CA.
    pub async fn https(behaviour: Behaviour) -> TestHook {
        let (tls, ca_pem) = crate::tls::test_pki::loopback_server();
        let mut hook = TestHook::start(behaviour, Some(TlsAcceptor::from(Arc::new(tls)))).await;
        hook.ca_pem = Some(ca_pem);
        hook
    }

    async fn start(behaviour: Behaviour, tls: Option<TlsAcceptor>) -> TestHook {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let scheme = if tls.is_some() { "https" } else { "http" };
        let state = Arc::new(State {
            behaviour: Mutex::new(behaviour),
            seen: Mutex::new(Seen::default()),
        });
        let serving_state = Arc::clone(&state);
        let serving = tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    continue;
                };
                let state = Arc::clone(&serving_state);
                let tls = tls.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |req| answer(Arc::clone(&state), req));
                    let http = hyper::server::conn::http1::Builder::new();
                    let _ = match tls {
                        Some(acceptor) => match acceptor.accept(tcp).await {
                            Ok(stream) => {
                                http.serve_connection(TokioIo::new(stream), service).await
                            }
                            Err(_) => return,
                        },
                        None => http.serve_connection(TokioIo::new(tcp), service).await,
                    };
                });
            }
        });
        TestHook {
            url: format!("{scheme}://127.0.0.1:{port}/authorize"),
            ca_pem: None,
            dir: tempfile::tempdir().expect("tempdir"),
            state,
            serving,
        }
    }

    /// Changes how the webhook answers from now on.
    pub fn set(&self, behaviour: Behaviour) {
        *self.state.behaviour.lock() = behaviour;
    }

    /// How many reviews the webhook was sent.
    pub fn calls(&self) -> usize {
        self.state.seen.lock().reviews.len()
    }

    /// The reviews it was sent, in order.
    pub fn reviews(&self) -> Vec<Value> {
        self.state.seen.lock().reviews.clone()
    }

    /// The `Authorization` headers it was sent.
    pub fn authorization_headers(&self) -> Vec<String> {
        self.state.seen.lock().authorization.clone()
    }

    /// A kubeconfig naming the webhook (its CA when on HTTPS, the bearer
    /// token `TOKEN`).
    pub fn kubeconfig(&self) -> PathBuf {
        let mut cluster = json!({"server": self.url});
        if let Some(ca) = &self.ca_pem {
            cluster["certificate-authority-data"] = json!(STANDARD.encode(ca));
        }
        let doc = json!({
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "hook", "cluster": cluster}],
            "users": [{"name": "apiserver", "user": {"token": TOKEN}}],
            "contexts": [{"name": "hook", "context": {"cluster": "hook", "user": "apiserver"}}],
            "current-context": "hook"
        });
        let path = self.dir.path().join("hook.kubeconfig");
        std::fs::write(&path, doc.to_string()).expect("write kubeconfig");
        path
    }
}

async fn answer(
    state: Arc<State>,
    req: hyper::Request<hyper::body::Incoming>,
) -> Result<hyper::Response<Full<Bytes>>, Infallible> {
    let authorization = req
        .headers()
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let body = req.into_body().collect().await.map(|b| b.to_bytes());
    let review: Value = body
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null);
    let api_version = review["apiVersion"].clone();
    {
        let mut seen = state.seen.lock();
        seen.reviews.push(review);
        seen.authorization.push(authorization);
    }
    let behaviour = state.behaviour.lock().clone();
    let (code, text) = match behaviour {
        Behaviour::Status(status) => (
            200,
            json!({"apiVersion": api_version, "kind": "SubjectAccessReview", "status": status})
                .to_string(),
        ),
        Behaviour::Code(code) => (code, "webhook trouble".to_owned()),
        Behaviour::Garbage => (200, "<html>surprise</html>".to_owned()),
        Behaviour::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            (200, String::new())
        }
    };
    let mut response = hyper::Response::new(Full::new(Bytes::from(text)));
    *response.status_mut() = http::StatusCode::from_u16(code).expect("status code");
    Ok(response)
}
