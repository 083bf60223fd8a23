//! Where a cairn connection goes and how: plain HTTP, or TLS (rustls on
//! ring, trusting the cluster CA, optionally presenting a client
//! certificate), with an optional `Authorization` header on every request.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rustls::ClientConfig;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

use crate::Result;

/// A connection to cairn: a plain socket or TLS over one.
pub enum Stream {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

impl Stream {
    /// "TLSv1_3 TLS13_AES_256_GCM_SHA384" for TLS, "plain" otherwise.
    pub fn describe(&self) -> String {
        match self {
            Stream::Plain(_) => "plain".into(),
            Stream::Tls(t) => {
                let c = t.get_ref().1;
                let version = c.protocol_version().map(|v| format!("{v:?}"));
                let suite = c
                    .negotiated_cipher_suite()
                    .map(|s| format!("{:?}", s.suite()));
                format!(
                    "{} {}",
                    version.unwrap_or_default(),
                    suite.unwrap_or_default()
                )
            }
        }
    }
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

/// An address, and how to talk to it.
#[derive(Clone)]
pub struct Endpoint {
    pub addr: SocketAddr,
    tls: Option<TlsConnector>,
    /// The whole `Authorization` header value, e.g. `Bearer abc`.
    pub authorization: Option<String>,
}

impl Endpoint {
    /// Plain HTTP (the insecure port: no authentication).
    pub fn plain(addr: SocketAddr) -> Self {
        Self {
            addr,
            tls: None,
            authorization: None,
        }
    }

    /// TLS with `config` (which decides the CA and any client certificate).
    pub fn tls(addr: SocketAddr, config: Arc<ClientConfig>) -> Self {
        Self {
            addr,
            tls: Some(TlsConnector::from(config)),
            authorization: None,
        }
    }

    /// The same endpoint sending `Authorization: Bearer <token>`.
    pub fn with_bearer(mut self, token: &str) -> Self {
        self.authorization = Some(format!("Bearer {token}"));
        self
    }

    /// Connects (and finishes the TLS handshake, if any).
    pub async fn dial(&self) -> Result<Stream> {
        let tcp = super::dial(self.addr).await?;
        let Some(tls) = &self.tls else {
            return Ok(Stream::Plain(tcp));
        };
        let name = ServerName::IpAddress(self.addr.ip().into());
        let stream = tls
            .connect(name, tcp)
            .await
            .map_err(|e| format!("TLS handshake with cairn at {}: {e}", self.addr))?;
        Ok(Stream::Tls(Box::new(stream)))
    }
}
