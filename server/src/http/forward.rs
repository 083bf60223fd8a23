//! A reverse proxy over hyper: one request forwarded to one host and port
//! (plain TCP or rustls), its body streamed up, the answer's body streamed
//! back without buffering, and an upgrade (WebSocket, SPDY) spliced both
//! ways once the target answers 101. Bytes only: what to reach and which
//! headers to add are the caller's.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use http::{Request, Response, StatusCode};
use http_body::{Body as HttpBody, Frame};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use rustls::ClientConfig;
use rustls::pki_types::ServerName;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use crate::http::body::Body;

/// How long a connection to the target may take, as Kubernetes' proxy
/// transport dials.
const DIAL_TIMEOUT: Duration = Duration::from_secs(30);

/// Headers that describe one hop and are not passed on (RFC 9110 7.6.1).
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
];

/// Where a request goes.
pub struct Target {
    /// An IP address or host name, without brackets.
    pub host: String,
    pub port: u16,
    /// TLS when set.
    pub tls: Option<Arc<ClientConfig>>,
    /// The name the certificate is checked against, when not `host`.
    pub server_name: Option<String>,
    /// The request target: path and query.
    pub path_and_query: String,
}

impl Target {
    /// `host:port`, the host bracketed when it is an IPv6 address.
    #[must_use]
    pub fn authority(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// Why a request did not reach its target (connecting, the handshake, or
/// the exchange), worded as Go's errors are.
#[derive(Debug)]
pub struct Unreachable(pub String);

/// Forwards `req` to `target`: the request's own headers but hop-by-hop
/// ones, those named in `remove` dropped, and `add` set. The answer comes
/// back as it streams.
pub async fn forward(
    mut req: Request<Incoming>,
    target: &Target,
    remove: &[HeaderName],
    add: HeaderMap,
) -> Result<Response<Body>, Unreachable> {
    let upgrade = wants_upgrade(req.headers());
    let client_upgrade = upgrade.then(|| hyper::upgrade::on(&mut req));
    let (parts, body) = req.into_parts();
    let mut headers = parts.headers;
    strip_hop_by_hop(&mut headers, upgrade);
    for name in remove {
        headers.remove(name);
    }
    for (name, value) in &add {
        headers.append(name, value.clone());
    }
    let authority = target.authority();
    if let Ok(host) = HeaderValue::try_from(authority.as_str()) {
        headers.insert(header::HOST, host);
    }
    let mut outgoing = Request::builder()
        .method(parts.method)
        .uri(target.path_and_query.as_str())
        .body(body)
        .map_err(|e| Unreachable(e.to_string()))?;
    *outgoing.headers_mut() = headers;

    let mut sender = connect(target, &authority).await?;
    let mut resp = sender
        .send_request(outgoing)
        .await
        .map_err(|e| Unreachable(format!("{e}")))?;
    if resp.status() == StatusCode::SWITCHING_PROTOCOLS
        && let Some(client_upgrade) = client_upgrade
    {
        let target_upgrade = hyper::upgrade::on(&mut resp);
        tokio::spawn(async move {
            let (Ok(client), Ok(upstream)) = tokio::join!(client_upgrade, target_upgrade) else {
                return;
            };
            let mut client = TokioIo::new(client);
            let mut upstream = TokioIo::new(upstream);
            let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
        });
        let (parts, _) = resp.into_parts();
        return Ok(Response::from_parts(
            parts,
            crate::http::body::full(Bytes::new()),
        ));
    }
    let (mut parts, body) = resp.into_parts();
    strip_hop_by_hop(&mut parts.headers, false);
    Ok(Response::from_parts(parts, Relayed(body).boxed()))
}

/// `Connection: upgrade` with an `Upgrade` header.
#[must_use]
pub fn wants_upgrade(headers: &HeaderMap) -> bool {
    headers.contains_key(header::UPGRADE)
        && headers
            .get_all(header::CONNECTION)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|t| t.trim().eq_ignore_ascii_case("upgrade"))
}

/// Drops hop-by-hop headers and those `Connection` names; an upgrade keeps
/// `Connection: Upgrade` and `Upgrade`, which the target must see.
fn strip_hop_by_hop(headers: &mut HeaderMap, upgrade: bool) {
    let named: Vec<String> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().to_ascii_lowercase())
        .filter(|t| !t.is_empty() && t != "upgrade")
        .collect();
    for name in named {
        headers.remove(name.as_str());
    }
    for name in HOP_BY_HOP {
        headers.remove(name);
    }
    if upgrade {
        headers.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
    } else {
        headers.remove(header::UPGRADE);
    }
}

type Sender = hyper::client::conn::http1::SendRequest<Incoming>;

async fn connect(target: &Target, authority: &str) -> Result<Sender, Unreachable> {
    let dial = TcpStream::connect((target.host.as_str(), target.port));
    let tcp = match tokio::time::timeout(DIAL_TIMEOUT, dial).await {
        Err(_) => return Err(Unreachable(format!("dial tcp {authority}: i/o timeout"))),
        Ok(Err(e)) => {
            return Err(Unreachable(format!(
                "dial tcp {authority}: {}",
                go_words(&e)
            )));
        }
        Ok(Ok(tcp)) => tcp,
    };
    let _ = tcp.set_nodelay(true);
    let handshake = |e: hyper::Error| Unreachable(e.to_string());
    match &target.tls {
        None => {
            let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
                .await
                .map_err(handshake)?;
            tokio::spawn(conn.with_upgrades());
            Ok(sender)
        }
        Some(config) => {
            let host = target.server_name.as_ref().unwrap_or(&target.host);
            let name = ServerName::try_from(host.clone())
                .map_err(|e| Unreachable(format!("bad host name {host}: {e}")))?;
            let stream = TlsConnector::from(Arc::clone(config))
                .connect(name, tcp)
                .await
                .map_err(|e| Unreachable(format!("tls: {e}")))?;
            let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
                .await
                .map_err(handshake)?;
            tokio::spawn(conn.with_upgrades());
            Ok(sender)
        }
    }
}

/// A connect error as Go words it (`connect: connection refused`).
fn go_words(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::ConnectionRefused => "connect: connection refused".into(),
        std::io::ErrorKind::HostUnreachable => "connect: no route to host".into(),
        std::io::ErrorKind::NetworkUnreachable => "connect: network is unreachable".into(),
        _ => format!("connect: {e}"),
    }
}

/// The target's answer body, passed on frame by frame; an error from the
/// target ends it (the client sees the answer cut short, as with Go's
/// proxy).
struct Relayed(Incoming);

impl HttpBody for Relayed {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match Pin::new(&mut self.0).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => Poll::Ready(Some(Ok(frame))),
            Poll::Ready(Some(Err(e))) => {
                tracing::debug!(error = %e, "the proxied answer ended early");
                Poll::Ready(None)
            }
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.0.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hop_by_hop_headers_stay_behind() {
        let mut h = HeaderMap::new();
        h.insert(
            header::CONNECTION,
            HeaderValue::from_static("keep-alive, x-a"),
        );
        h.insert("x-a", HeaderValue::from_static("1"));
        h.insert("x-b", HeaderValue::from_static("2"));
        h.insert(
            header::TRANSFER_ENCODING,
            HeaderValue::from_static("chunked"),
        );
        strip_hop_by_hop(&mut h, false);
        assert!(h.get("x-a").is_none());
        assert!(h.get(header::CONNECTION).is_none());
        assert!(h.get(header::TRANSFER_ENCODING).is_none());
        assert_eq!(h.get("x-b").unwrap(), "2");
    }

    #[test]
    fn an_upgrade_keeps_its_headers() {
        let mut h = HeaderMap::new();
        h.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
        h.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
        assert!(wants_upgrade(&h));
        strip_hop_by_hop(&mut h, true);
        assert_eq!(h.get(header::UPGRADE).unwrap(), "websocket");
        assert_eq!(h.get(header::CONNECTION).unwrap(), "Upgrade");
    }
}
