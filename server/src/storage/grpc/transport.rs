//! Where a gRPC client connects: a unix socket (a KMS plugin) or TCP
//! endpoints tried in order, optionally under TLS with rustls (etcd), each
//! opened as one HTTP/2 connection with keep-alive pings so a peer that
//! vanished is noticed even while only a watch is open.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hyper::client::conn::http2::{self, SendRequest};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};

use super::body::RequestBody;
use super::status::{RpcError, UNAVAILABLE};

/// How often an idle connection is pinged, and how long a ping may take.
const KEEP_ALIVE_INTERVAL: Duration = Duration::from_secs(10);
const KEEP_ALIVE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one endpoint may take to connect (TCP, TLS and the HTTP/2
/// handshake) before the next is tried: a member whose host vanished drops
/// packets rather than refusing, and must not hold every call for the
/// whole request timeout.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// One server a TCP client may use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// `host:port` as given.
    pub authority: String,
    /// The host, the name a TLS certificate must carry.
    pub host: String,
    pub tls: bool,
}

impl Endpoint {
    /// An endpoint from `http://host:port` or `https://host:port`.
    pub fn parse(url: &str) -> Result<Endpoint, String> {
        let uri: http::Uri = url.parse().map_err(|_| format!("{url:?} is not a URL"))?;
        let tls = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            _ => return Err(format!("{url:?}: the scheme must be http or https")),
        };
        let authority = uri
            .authority()
            .filter(|a| a.port_u16().is_some())
            .ok_or_else(|| format!("{url:?}: a host and port are required"))?;
        if !matches!(uri.path(), "" | "/") {
            return Err(format!("{url:?}: a path is not allowed"));
        }
        Ok(Endpoint {
            authority: authority.to_string(),
            host: authority.host().trim_matches(['[', ']']).to_string(),
            tls,
        })
    }
}

/// Where connections go.
#[derive(Clone)]
pub enum Transport {
    Unix(PathBuf),
    Tcp {
        endpoints: Vec<Endpoint>,
        /// Required when an endpoint is `https`.
        tls: Option<Arc<rustls::ClientConfig>>,
    },
}

impl Transport {
    /// The `:authority` requests carry.
    pub fn authority(&self) -> &str {
        match self {
            Transport::Unix(_) => "localhost",
            Transport::Tcp { endpoints, .. } => endpoints
                .first()
                .map_or("localhost", |e| e.authority.as_str()),
        }
    }

    /// A fresh HTTP/2 connection: the first endpoint that answers, trying
    /// them in order from the `start`-th (wrapping), and that endpoint's
    /// index.
    pub async fn connect(
        &self,
        start: usize,
    ) -> Result<(SendRequest<RequestBody>, usize), RpcError> {
        match self {
            Transport::Unix(socket) => {
                let stream = tokio::net::UnixStream::connect(socket)
                    .await
                    .map_err(|e| dial_error("unix", &socket.display().to_string(), &e))?;
                Ok((handshake(stream).await?, 0))
            }
            Transport::Tcp { endpoints, tls } => {
                let mut last = RpcError::new(UNAVAILABLE, "no endpoints");
                for offset in 0..endpoints.len() {
                    let index = (start + offset) % endpoints.len();
                    let endpoint = &endpoints[index];
                    let attempt = connect_tcp(endpoint, tls.as_ref());
                    match tokio::time::timeout(CONNECT_TIMEOUT, attempt).await {
                        Ok(Ok(sender)) => return Ok((sender, index)),
                        Ok(Err(e)) => last = e,
                        Err(_) => {
                            last = RpcError::new(
                                UNAVAILABLE,
                                format!(
                                    "connection error: desc = \"transport: Error while dialing: dial tcp {}: i/o timeout\"",
                                    endpoint.authority
                                ),
                            );
                        }
                    }
                }
                Err(last)
            }
        }
    }
}

async fn connect_tcp(
    endpoint: &Endpoint,
    tls: Option<&Arc<rustls::ClientConfig>>,
) -> Result<SendRequest<RequestBody>, RpcError> {
    let stream = tokio::net::TcpStream::connect(&endpoint.authority)
        .await
        .map_err(|e| dial_error("tcp", &endpoint.authority, &e))?;
    let _ = stream.set_nodelay(true);
    if !endpoint.tls {
        return handshake(stream).await;
    }
    let config = tls
        .ok_or_else(|| RpcError::new(UNAVAILABLE, "an https endpoint needs a TLS configuration"))?;
    let name = rustls::pki_types::ServerName::try_from(endpoint.host.clone())
        .map_err(|e| RpcError::new(UNAVAILABLE, format!("bad server name: {e}")))?;
    let stream = tokio_rustls::TlsConnector::from(Arc::clone(config))
        .connect(name, stream)
        .await
        .map_err(|e| {
            RpcError::new(
                UNAVAILABLE,
                format!(
                    "connection error: desc = \"transport: authentication handshake failed: {e}\""
                ),
            )
        })?;
    handshake(stream).await
}

async fn handshake<S>(stream: S) -> Result<SendRequest<RequestBody>, RpcError>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, driver) = http2::Builder::new(TokioExecutor::new())
        .timer(TokioTimer::new())
        .keep_alive_interval(KEEP_ALIVE_INTERVAL)
        .keep_alive_timeout(KEEP_ALIVE_TIMEOUT)
        .keep_alive_while_idle(true)
        .handshake(TokioIo::new(stream))
        .await
        .map_err(|e| RpcError::new(UNAVAILABLE, format!("connection error: {e}")))?;
    tokio::spawn(async move {
        if let Err(e) = driver.await {
            tracing::debug!(error = %e, "gRPC connection closed");
        }
    });
    sender
        .ready()
        .await
        .map_err(|e| RpcError::new(UNAVAILABLE, format!("connection error: {e}")))?;
    Ok(sender)
}

fn dial_error(network: &str, address: &str, e: &std::io::Error) -> RpcError {
    RpcError::new(
        UNAVAILABLE,
        format!(
            "connection error: desc = \"transport: Error while dialing: dial {network} {address}: {e}\""
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_endpoint_that_never_answers_a_connect_is_given_up_on() {
        // A listener whose accept queue is full drops further SYNs, as a
        // vanished host does: connects to it hang.
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let listener = socket.listen(0).unwrap();
        let address = listener.local_addr().unwrap();
        let mut queued = Vec::new();
        for _ in 0..8 {
            match tokio::time::timeout(
                Duration::from_millis(300),
                tokio::net::TcpStream::connect(address),
            )
            .await
            {
                Ok(Ok(stream)) => queued.push(stream),
                _ => break,
            }
        }
        let endpoint = Endpoint::parse(&format!("http://{address}")).unwrap();
        let transport = Transport::Tcp {
            endpoints: vec![endpoint],
            tls: None,
        };
        // The guard only keeps a regression from hanging the run.
        let outcome = tokio::time::timeout(Duration::from_secs(60), transport.connect(0))
            .await
            .expect("connect gave up on its own");
        let error = outcome.expect_err("nothing to connect to");
        assert!(error.message.contains("i/o timeout"), "{error}");
        drop((listener, queued));
    }

    #[test]
    fn endpoints_parse_like_etcd_urls() {
        let e = Endpoint::parse("http://127.0.0.1:2379").unwrap();
        assert_eq!(
            (e.authority.as_str(), e.host.as_str(), e.tls),
            ("127.0.0.1:2379", "127.0.0.1", false)
        );
        assert!(Endpoint::parse("https://etcd.local:2379").unwrap().tls);
        assert!(Endpoint::parse("127.0.0.1:2379").is_err());
        assert!(Endpoint::parse("ftp://h:1").is_err());
        assert!(Endpoint::parse("http://h").is_err());
    }
}
