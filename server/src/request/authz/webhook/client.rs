//! POSTing a review to the webhook: HTTP/1.1 through hyper over TCP (or
//! rustls for `https`), idle connections kept for the next review, the
//! whole exchange bounded by the webhook's timeout. Transient failures
//! (429, 5xx, a connection lost mid-exchange) are retried with a growing
//! pause, as Kubernetes' webhook backoff does, at most `MAX_ATTEMPTS` times
//! and never past the timeout.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use parking_lot::Mutex;
use rustls::pki_types::ServerName;
use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::trace;
use crate::util::url::UrlTarget;
use opentelemetry::KeyValue;
use opentelemetry::trace::SpanKind;
use tokio_rustls::TlsConnector;

use super::kubeconfig::Settings;
use super::tls;

/// Largest answer read from a webhook.
const MAX_ANSWER_BYTES: usize = 1024 * 1024;
/// Attempts per review, the first included.
const MAX_ATTEMPTS: u32 = 5;
/// The pause before the first retry; each later one is 1.5 times longer.
const FIRST_PAUSE: Duration = Duration::from_millis(500);
/// Idle connections kept per webhook.
const MAX_IDLE: usize = 16;

/// A client for one webhook.
pub struct Client {
    target: UrlTarget,
    tls: Option<(TlsConnector, ServerName<'static>)>,
    /// `Bearer <token>`; a secret, never logged.
    authorization: Option<http::HeaderValue>,
    idle: Mutex<Vec<Idle>>,
    /// Name the call's timeout in the query (`?timeout=10s`), as kube's
    /// admission webhook client does.
    timeout_query: bool,
}

/// An idle connection and the address it was dialled at (`None`: the
/// URL's host).
type Idle = (Option<SocketAddr>, SendRequest<Full<Bytes>>);

/// Why one attempt failed, and whether another may succeed.
enum Failure {
    Transient(String),
    Final(String),
}

impl Client {
    /// A client for the server `settings` name; the error is one line.
    pub fn new(settings: &Settings) -> Result<Client, String> {
        let target = UrlTarget::parse(&settings.server)?;
        let tls = if target.https {
            let host = settings
                .tls_server_name
                .clone()
                .unwrap_or_else(|| target.host.clone());
            let name = ServerName::try_from(host)
                .map_err(|e| format!("{}: bad host name: {e}", settings.server))?;
            let config = tls::client_config(settings)?;
            Some((TlsConnector::from(Arc::new(config)), name))
        } else {
            None
        };
        let credential = match (&settings.token, &settings.basic) {
            (Some(token), _) => Some(format!("Bearer {token}")),
            (None, Some((user, password))) => {
                use base64::Engine as _;
                let pair = format!("{user}:{password}");
                Some(format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(pair)
                ))
            }
            (None, None) => None,
        };
        let authorization = match credential {
            Some(credential) => {
                let mut value = http::HeaderValue::try_from(credential).map_err(|_| {
                    "the webhook credentials are not a valid header value".to_string()
                })?;
                value.set_sensitive(true);
                Some(value)
            }
            None => None,
        };
        Ok(Client {
            target,
            tls,
            authorization,
            idle: Mutex::new(Vec::new()),
            timeout_query: false,
        })
    }

    /// The client, naming each call's timeout in the request's query.
    #[must_use]
    pub fn with_timeout_query(mut self) -> Client {
        self.timeout_query = true;
        self
    }

    /// The server URL, for messages.
    pub fn url(&self) -> &str {
        &self.target.url
    }

    /// POSTs `body` and returns the answer's bytes (2xx only), retrying
    /// transient failures until `timeout` has passed since the call.
    pub async fn post(&self, body: Bytes, timeout: Duration) -> Result<Bytes, String> {
        self.post_via(None, body, timeout).await
    }

    /// As `post`, dialling `via` (a resolved Service endpoint) instead of
    /// the URL's host, whose name the TLS certificate is still checked
    /// against.
    pub async fn post_via(
        &self,
        via: Option<SocketAddr>,
        body: Bytes,
        timeout: Duration,
    ) -> Result<Bytes, String> {
        let deadline = Instant::now() + timeout;
        let mut pause = FIRST_PAUSE;
        let mut attempt = 1;
        loop {
            let outcome =
                tokio::time::timeout_at(deadline, self.attempt(via, body.clone(), timeout)).await;
            let error = match outcome {
                Err(_) => return Err(format!("POST {}: timed out after {timeout:?}", self.url())),
                Ok(Ok(answer)) => return Ok(answer),
                Ok(Err(Failure::Final(e))) => return Err(e),
                Ok(Err(Failure::Transient(e))) => e,
            };
            if attempt >= MAX_ATTEMPTS || Instant::now() + pause >= deadline {
                return Err(error);
            }
            tracing::debug!(url = %self.url(), attempt, "webhook authorizer retrying: {error}");
            tokio::time::sleep(pause).await;
            pause = pause.mul_f64(1.5);
            attempt += 1;
        }
    }

    async fn attempt(
        &self,
        via: Option<SocketAddr>,
        body: Bytes,
        timeout: Duration,
    ) -> Result<Bytes, Failure> {
        let url = self.url();
        let mut sender = self.connection(via).await?;
        let target = if self.timeout_query {
            let joint = if self.target.path_and_query.contains('?') {
                '&'
            } else {
                '?'
            };
            let seconds = timeout.as_secs();
            format!("{}{joint}timeout={seconds}s", self.target.path_and_query)
        } else {
            self.target.path_and_query.clone()
        };
        let mut request = http::Request::post(target)
            .header(http::header::HOST, &self.target.authority)
            .header(http::header::CONTENT_TYPE, "application/json")
            .header(http::header::ACCEPT, "application/json");
        if let Some(value) = &self.authorization {
            request = request.header(http::header::AUTHORIZATION, value.clone());
        }
        let span = self.span();
        for (name, value) in span.iter().flat_map(trace::Span::propagation_headers) {
            request = request.header(name, value);
        }
        let request = request
            .body(Full::new(body))
            .map_err(|e| Failure::Final(format!("POST {url}: {e}")))?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| Failure::Transient(format!("POST {url}: {e}")))?;
        let status = response.status();
        if let Some(span) = &span {
            span.set(KeyValue::new(
                "http.status_code",
                i64::from(status.as_u16()),
            ));
        }
        let answer = Limited::new(response.into_body(), MAX_ANSWER_BYTES)
            .collect()
            .await
            .map_err(|e| Failure::Transient(format!("POST {url}: reading the answer: {e}")))?
            .to_bytes();
        self.keep(via, sender);
        if status.is_success() {
            return Ok(answer);
        }
        let error = format!("POST {url}: the webhook answered {status}");
        if status.is_server_error() || status == http::StatusCode::TOO_MANY_REQUESTS {
            Err(Failure::Transient(error))
        } else {
            Err(Failure::Final(error))
        }
    }

    /// The exchange's client span (its context goes to the webhook as
    /// `traceparent`), when the request is traced.
    fn span(&self) -> Option<trace::Span> {
        trace::child(SpanKind::Client, |_| {
            let attributes = vec![
                KeyValue::new("http.method", "POST"),
                KeyValue::new("http.url", self.url().to_string()),
            ];
            ("HTTP POST".into(), attributes)
        })
    }

    /// An idle connection that is still open, or a new one, ready to send.
    async fn connection(
        &self,
        via: Option<SocketAddr>,
    ) -> Result<SendRequest<Full<Bytes>>, Failure> {
        loop {
            let taken = {
                let mut idle = self.idle.lock();
                let at = idle.iter().rposition(|(dialled, _)| *dialled == via);
                at.map(|i| idle.swap_remove(i).1)
            };
            let Some(mut sender) = taken else {
                break;
            };
            if sender.ready().await.is_ok() {
                return Ok(sender);
            }
        }
        let url = self.url();
        let tcp = match via {
            Some(address) => TcpStream::connect(address).await,
            None => TcpStream::connect((self.target.host.as_str(), self.target.port)).await,
        }
        .map_err(|e| Failure::Final(format!("POST {url}: {e}")))?;
        let _ = tcp.set_nodelay(true);
        let handshake = |e: hyper::Error| Failure::Final(format!("POST {url}: {e}"));
        let sender = match &self.tls {
            Some((connector, name)) => {
                let stream = connector
                    .connect(name.clone(), tcp)
                    .await
                    .map_err(|e| Failure::Final(format!("POST {url}: {e}")))?;
                let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
                    .await
                    .map_err(handshake)?;
                // The connection's end or error shows in its requests.
                tokio::spawn(conn);
                sender
            }
            None => {
                let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
                    .await
                    .map_err(handshake)?;
                tokio::spawn(conn);
                sender
            }
        };
        let mut sender = sender;
        sender
            .ready()
            .await
            .map_err(|e| Failure::Transient(format!("POST {url}: {e}")))?;
        Ok(sender)
    }

    fn keep(&self, via: Option<SocketAddr>, sender: SendRequest<Full<Bytes>>) {
        let mut idle = self.idle.lock();
        if idle.len() < MAX_IDLE && !sender.is_closed() {
            idle.push((via, sender));
        }
    }
}
