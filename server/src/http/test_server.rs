//! An in-process server for the front end's tests: a fresh store, the
//! built-in kinds, and one plain-HTTP endpoint with the pipeline the test
//! builds (after the registry exists, so it may register kinds of its own).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use tokio::net::TcpListener;
use tokio::sync::watch as signal;

use crate::api::kinds;
use crate::api::registry::Registry;
use crate::api::store::Store;
use crate::app::AppState;
use crate::config::{Config, Flags};
use crate::http::health::Health;
use crate::http::{Endpoint, openapi, serve};
use crate::request::Pipeline;
use crate::request::admission::Chain;
use crate::request::authn::service_account::TokenIssuer;
use crate::request::overload::Overload;
use crate::storage::Storage;
use crate::storage::embedded::Embedded;

pub struct TestServer {
    pub addr: SocketAddr,
    pub stop: signal::Sender<bool>,
    _dir: tempfile::TempDir,
}

/// Starts a server with `flags` (after the program name) whose endpoint's
/// pipeline `pipeline` builds.
pub async fn start(
    flags: &[&str],
    pipeline: impl FnOnce(&Arc<Registry>) -> Pipeline,
) -> TestServer {
    let dir = tempfile::tempdir().expect("tempdir");
    let storage: Arc<dyn Storage> = Arc::new(Embedded::open(dir.path()).expect("store"));
    let args = std::iter::once("cairn-apiserver").chain(flags.iter().copied());
    let config = Arc::new(Config::from(Flags::parse_from(args)));
    let registry = Arc::new(kinds::builtin(&config));
    let pipeline = pipeline(&registry);
    let token_issuer = TokenIssuer::load(&config.service_accounts, dir.path()).expect("keys");
    let (stop, shutdown) = signal::channel(false);
    let overload = Overload::new(&config.overload);
    let state = Arc::new(AppState {
        store: Store::new(storage, registry, Arc::new(Chain::default())),
        config,
        health: Arc::new(Health::new(Duration::ZERO, &[])),
        shutdown: shutdown.clone(),
        openapi: openapi::Documents::default(),
        overload,
        token_issuer,
        auditor: None,
        aggregated: Arc::default(),
    });
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let endpoint = Endpoint {
        listener,
        tls: None,
        pipeline: Arc::new(pipeline),
    };
    tokio::spawn(serve(state, endpoint, shutdown));
    TestServer {
        addr,
        stop,
        _dir: dir,
    }
}

impl TestServer {
    /// One HTTP/1.1 request (`headers` as `Name: value` lines) on a fresh
    /// connection: the status code and the body as text.
    pub async fn exchange(
        &self,
        method: &str,
        path: &str,
        headers: &[&str],
        body: &str,
    ) -> (u16, String) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut stream = tokio::net::TcpStream::connect(self.addr)
            .await
            .expect("connect");
        let extra: String = headers.iter().map(|h| format!("{h}\r\n")).collect();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: cairn\r\nConnection: close\r\n{extra}Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).await.expect("send");
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await.expect("read");
        let text = String::from_utf8_lossy(&raw).into_owned();
        let code = text
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .expect("a status line");
        let body = text
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_string())
            .unwrap_or_default();
        (code, body)
    }
}
