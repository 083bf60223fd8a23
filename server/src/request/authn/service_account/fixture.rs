//! An in-process server for the service-account tests: storage in a
//! temporary directory, the token issuer of the given flags, and a
//! pipeline whose bearer tokens go to the service-account authenticator
//! (requests without one act as the plain-HTTP port's admin), authorizing
//! everyone and remembering who asked.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Parser;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use super::{ServiceAccountAuthenticator, TokenIssuer};
use crate::api::decode::Decoded;
use crate::api::kinds;
use crate::api::store::{DeleteOptions, Store, WriteOptions};
use crate::app::AppState;
use crate::config::{Config, Flags};
use crate::http::health::Health;
use crate::http::{Endpoint, openapi, serve};
use crate::request::Pipeline;
use crate::request::admission::Chain;
use crate::request::authn::Authenticators;
use crate::request::authn::insecure::InsecurePort;
use crate::request::authn::token::{Bearer, Tokens};
use crate::request::authz::{Attributes, Authorizer, Authorizers, Decision};
use crate::request::overload::Overload;
use crate::request::user::UserInfo;
use crate::storage::Storage;
use crate::storage::embedded::Embedded;
use crate::util::maybe_async::MaybeAsync;

/// Allows everything; remembers the last user.
struct Everyone(Arc<Mutex<Option<UserInfo>>>);

impl Authorizer for Everyone {
    fn authorize<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
    ) -> MaybeAsync<'a, Result<Decision, crate::api::error::ApiError>> {
        *self.0.lock().expect("lock") = Some(attrs.user.clone());
        MaybeAsync::Ready(Ok(Decision::Allow))
    }
}

pub struct Fixture {
    pub state: Arc<AppState>,
    pub authenticator: Arc<ServiceAccountAuthenticator>,
    pub last_user: Arc<Mutex<Option<UserInfo>>>,
    addr: SocketAddr,
    stop: watch::Sender<bool>,
    pub dir: tempfile::TempDir,
}

/// A server with these flags (its data directory is the fixture's).
pub async fn start(flags: &[&str]) -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut args = vec!["cairn-apiserver"];
    args.extend_from_slice(flags);
    let config = Arc::new(Config::from(Flags::parse_from(args)));
    let issuer = TokenIssuer::load(&config.service_accounts, dir.path()).expect("keys");
    let storage: Arc<dyn Storage> = Arc::new(Embedded::open(dir.path()).expect("store"));
    let registry = Arc::new(kinds::builtin(&config));
    let store = Store::new(storage, registry, Arc::new(Chain::default()));
    let (stop, shutdown) = watch::channel(false);
    let authenticator = ServiceAccountAuthenticator::start(Arc::clone(&issuer), &store, &shutdown);
    let bearer = Bearer::new(
        Arc::new(Tokens::new(vec![authenticator.clone()])),
        issuer.api_audiences().to_vec(),
    );
    let last_user = Arc::new(Mutex::new(None));
    let overload = Overload::new(&config.overload);
    let state = Arc::new(AppState {
        store,
        config,
        health: Arc::new(Health::new(Duration::ZERO, &[])),
        shutdown: shutdown.clone(),
        openapi: openapi::Documents::default(),
        overload,
        token_issuer: issuer,
        auditor: None,
        aggregated: Arc::default(),
    });
    let pipeline = Pipeline {
        authenticators: Authenticators::new(
            vec![Arc::new(bearer)],
            Some(Arc::new(InsecurePort::new())),
        ),
        authorizers: Arc::new(Authorizers::new(vec![Arc::new(Everyone(Arc::clone(
            &last_user,
        )))])),
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let endpoint = Endpoint {
        listener,
        tls: None,
        pipeline: Arc::new(pipeline),
    };
    tokio::spawn(serve(Arc::clone(&state), endpoint, shutdown));
    Fixture {
        state,
        authenticator,
        last_user,
        addr,
        stop,
        dir,
    }
}

/// An HTTP/1.1 answer: status, headers (lower-case names), body.
pub struct Answer {
    pub code: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

impl Fixture {
    pub async fn request(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Answer {
        let mut stream = TcpStream::connect(self.addr).await.expect("connect");
        let body = body.map(Value::to_string).unwrap_or_default();
        let auth = token
            .map(|t| format!("Authorization: Bearer {t}\r\n"))
            .unwrap_or_default();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: cairn\r\nConnection: close\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).await.expect("send");
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await.expect("read");
        let text = String::from_utf8_lossy(&raw).into_owned();
        let (head, body) = text.split_once("\r\n\r\n").expect("a response");
        let mut lines = head.lines();
        let code = lines
            .next()
            .and_then(|l| l.split(' ').nth(1))
            .and_then(|c| c.parse().ok())
            .expect("a status line");
        let headers = lines
            .filter_map(|l| l.split_once(": "))
            .map(|(n, v)| (n.to_ascii_lowercase(), v.to_string()))
            .collect();
        let body = if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            unchunk(body)
        } else {
            body.to_string()
        };
        Answer {
            code,
            headers,
            body,
        }
    }

    /// Creates an object as the server itself; returns it as stored.
    pub async fn create(&self, resource: &str, ns: Option<&str>, obj: Value) -> Value {
        let kind = self
            .state
            .store
            .registry
            .lookup("", "v1", resource)
            .expect("kind");
        let decoded = Decoded {
            value: obj,
            duplicates: Vec::new(),
        };
        self.state
            .store
            .create(&kind, ns, decoded, &WriteOptions::default())
            .await
            .expect("created")
            .object
    }

    /// Deletes an object at once (a pod without its grace period).
    pub async fn delete(&self, resource: &str, ns: Option<&str>, name: &str) {
        let kind = self
            .state
            .store
            .registry
            .lookup("", "v1", resource)
            .expect("kind");
        let now = DeleteOptions {
            grace_period_seconds: Some(0),
            ..DeleteOptions::default()
        };
        self.state
            .store
            .delete(&kind, ns, name, &now)
            .await
            .expect("deleted");
    }

    /// A ServiceAccount `name` in `ns`; returns its uid.
    pub async fn service_account(&self, ns: &str, name: &str) -> String {
        let sa = self
            .create(
                "serviceaccounts",
                Some(ns),
                json!({"metadata": {"name": name}}),
            )
            .await;
        sa["metadata"]["uid"].as_str().expect("uid").to_string()
    }

    /// A pod running as `sa`; returns its uid.
    pub async fn pod(&self, ns: &str, name: &str, sa: &str) -> String {
        let pod = self
            .create(
                "pods",
                Some(ns),
                json!({"metadata": {"name": name}, "spec": {"serviceAccountName": sa, "containers": [{"name": "c", "image": "busybox"}]}}),
            )
            .await;
        pod["metadata"]["uid"].as_str().expect("uid").to_string()
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

fn unchunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// Retries `check` until it holds (the informer caches follow storage a
/// moment behind); panics after a few seconds.
pub async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..250 {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("never: {what}");
}
