//! One keep-alive HTTP/1.1 connection to cairn (hyper's client connection
//! API), plain or over TLS with the endpoint's credentials.

use std::net::SocketAddr;

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;

use super::endpoint::Endpoint;
use crate::Result;

pub struct Conn {
    send: SendRequest<Full<Bytes>>,
    host: HeaderValue,
    authorization: Option<HeaderValue>,
}

impl Conn {
    pub async fn connect(addr: SocketAddr) -> Result<Self> {
        Self::open(&Endpoint::plain(addr)).await
    }

    /// A connection to `endpoint` (TLS and credentials as it says).
    pub async fn open(endpoint: &Endpoint) -> Result<Self> {
        let stream = endpoint.dial().await?;
        let (send, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        let authorization = match &endpoint.authorization {
            Some(a) => Some(HeaderValue::from_str(a)?),
            None => None,
        };
        Ok(Self {
            send,
            host: HeaderValue::from_str(&endpoint.addr.to_string())?,
            authorization,
        })
    }

    /// Sends a request and returns the response with its body unread.
    pub async fn send(
        &mut self,
        method: Method,
        path: &str,
        body: Option<Bytes>,
    ) -> Result<Response<Incoming>> {
        self.send_accepting(method, path, "application/json", body)
            .await
    }

    /// `send` with another Accept header.
    pub async fn send_accepting(
        &mut self,
        method: Method,
        path: &str,
        accept: &str,
        body: Option<Bytes>,
    ) -> Result<Response<Incoming>> {
        let mut req = Request::builder()
            .method(method)
            .uri(path)
            .header(header::HOST, self.host.clone())
            .header(header::ACCEPT, accept)
            .header(header::USER_AGENT, "cairn-bench");
        if body.is_some() {
            req = req.header(header::CONTENT_TYPE, "application/json");
        }
        if let Some(a) = &self.authorization {
            req = req.header(header::AUTHORIZATION, a.clone());
        }
        let req = req.body(Full::new(body.unwrap_or_default()))?;
        self.send.ready().await?;
        Ok(self.send.send_request(req).await?)
    }

    /// Sends a request and reads the whole response.
    pub async fn call(
        &mut self,
        method: Method,
        path: &str,
        body: Option<Bytes>,
    ) -> Result<(StatusCode, Bytes)> {
        let resp = self.send(method, path, body).await?;
        let status = resp.status();
        let body = resp.into_body().collect().await?.to_bytes();
        Ok((status, body))
    }

    /// Like `call`, but anything but `want` is an error naming the request.
    pub async fn expect(
        &mut self,
        want: StatusCode,
        method: Method,
        path: &str,
        body: Option<Bytes>,
    ) -> Result<Bytes> {
        let (status, bytes) = self.call(method.clone(), path, body).await?;
        if status != want {
            let text = String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned();
            return Err(format!("{method} {path}: {status} (wanted {want}): {text}").into());
        }
        Ok(bytes)
    }
}
