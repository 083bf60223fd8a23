//! A keep-alive HTTP/1.1 connection for the create load: one task writes each
//! request with a single `write` and reads the response on the same task.
//!
//! hyper's client runs every connection as a second task fed through a
//! channel, two task hand-offs per request; at 64 writers the bench then spent
//! ≈10 µs of CPU per create on the 2-core machine the server is measured on.
//! As with the watchers (see `watch`), the bench reads the socket itself, and
//! still checks every response: the status, and a whole body as framed by
//! `Content-Length` or chunked encoding. The same over TLS (see `endpoint`).

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::chunked::{Chunked, parse_head};
use super::endpoint::{Endpoint, Stream};
use crate::Result;

const READ_BUF: usize = 16 * 1024;
const MAX_HEAD: usize = 16 * 1024;

pub struct LeanConn {
    tcp: Stream,
    host: String,
    /// `Authorization: ...\r\n`, or empty.
    auth_line: String,
    request: Vec<u8>,
    buf: Vec<u8>,
    /// Bytes of `buf` read but not yet consumed.
    filled: usize,
    body: Vec<u8>,
}

impl LeanConn {
    /// A connection to `endpoint` (TLS and credentials as it says).
    pub async fn open(endpoint: &Endpoint) -> Result<Self> {
        let tcp = endpoint.dial().await?;
        let auth_line = endpoint
            .authorization
            .as_ref()
            .map(|a| format!("Authorization: {a}\r\n"))
            .unwrap_or_default();
        Ok(Self {
            tcp,
            host: endpoint.addr.to_string(),
            auth_line,
            request: Vec::with_capacity(1024),
            buf: vec![0u8; READ_BUF],
            filled: 0,
            body: Vec::new(),
        })
    }

    /// POSTs a JSON `body` to `path`; returns the status and the whole
    /// response body.
    pub async fn post(&mut self, path: &str, body: &[u8]) -> Result<(u16, &[u8])> {
        self.request.clear();
        self.request.extend_from_slice(b"POST ");
        self.request.extend_from_slice(path.as_bytes());
        self.request.extend_from_slice(b" HTTP/1.1\r\nHost: ");
        self.request.extend_from_slice(self.host.as_bytes());
        self.request.extend_from_slice(
            b"\r\nAccept: application/json\r\nUser-Agent: cairn-bench\r\n\
              Content-Type: application/json\r\n",
        );
        self.request.extend_from_slice(self.auth_line.as_bytes());
        self.request.extend_from_slice(b"Content-Length: ");
        self.request
            .extend_from_slice(body.len().to_string().as_bytes());
        self.request.extend_from_slice(b"\r\n\r\n");
        self.request.extend_from_slice(body);
        self.tcp.write_all(&self.request).await?;
        self.tcp.flush().await?; // a no-op on a plain socket
        self.read_response().await
    }

    /// The connection's transport ("plain", or the TLS version and suite).
    pub fn transport(&self) -> String {
        self.tcp.describe()
    }

    async fn read_more(&mut self) -> Result<()> {
        if self.filled == self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        let n = self.tcp.read(&mut self.buf[self.filled..]).await?;
        if n == 0 {
            return Err("cairn closed the connection mid-response".into());
        }
        self.filled += n;
        Ok(())
    }

    async fn read_response(&mut self) -> Result<(u16, &[u8])> {
        let head = loop {
            if let Some(h) = parse_head(&self.buf[..self.filled])? {
                break h;
            }
            if self.filled >= MAX_HEAD {
                return Err("response head too large".into());
            }
            self.read_more().await?;
        };
        self.body.clear();
        let consumed = if head.chunked {
            let mut chunked = Chunked::default();
            let mut at = head.len;
            loop {
                let body = &mut self.body;
                let input = &self.buf[at..self.filled];
                let done = chunked.feed(input, |data| body.extend_from_slice(data))?;
                at = self.filled;
                if done {
                    break at;
                }
                self.read_more().await?;
            }
        } else {
            let len = head
                .content_length
                .ok_or("response without Content-Length or chunked framing")?;
            while self.filled < head.len + len {
                self.read_more().await?;
            }
            self.body
                .extend_from_slice(&self.buf[head.len..head.len + len]);
            head.len + len
        };
        if consumed != self.filled {
            return Err("bytes after the response to a single request".into());
        }
        self.filled = 0;
        Ok((head.status, &self.body))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::SocketAddr;
    use tokio::net::TcpListener;

    /// A server that reads each request whole and answers with `replies[k]`,
    /// sent in two pieces so responses arrive split.
    async fn serve(replies: Vec<&'static [u8]>) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut tcp, _) = listener.accept().await.unwrap();
            let mut buf = vec![0u8; 4096];
            for reply in replies {
                let mut got = Vec::new();
                loop {
                    let n = tcp.read(&mut buf).await.unwrap();
                    got.extend_from_slice(&buf[..n]);
                    let Some(h) = memchr::memmem::find(&got, b"\r\n\r\n") else {
                        continue;
                    };
                    let head = std::str::from_utf8(&got[..h]).unwrap().to_ascii_lowercase();
                    let len: usize = head
                        .split("content-length: ")
                        .nth(1)
                        .and_then(|v| v.split("\r\n").next())
                        .unwrap()
                        .parse()
                        .unwrap();
                    if got.len() >= h + 4 + len {
                        assert!(head.starts_with("post /p http/1.1\r\n"));
                        assert_eq!(&got[h + 4..], b"{\"x\":1}");
                        break;
                    }
                }
                let (a, b) = reply.split_at(reply.len() / 2);
                tcp.write_all(a).await.unwrap();
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                tcp.write_all(b).await.unwrap();
            }
        });
        addr
    }

    #[tokio::test]
    async fn reads_sized_and_chunked_responses_and_refuses_extra_bytes() {
        let addr = serve(vec![
            b"HTTP/1.1 201 Created\r\nContent-Length: 7\r\n\r\n{\"a\":1}",
            b"HTTP/1.1 409 Conflict\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"b\r\n4\r\n\":2}\r\n0\r\n\r\n",
            b"HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}{}",
        ])
        .await;
        let mut c = LeanConn::open(&Endpoint::plain(addr)).await.unwrap();
        let (status, body) = c.post("/p", b"{\"x\":1}").await.unwrap();
        assert_eq!((status, body), (201, &b"{\"a\":1}"[..]));
        let (status, body) = c.post("/p", b"{\"x\":1}").await.unwrap();
        assert_eq!((status, body), (409, &b"{\"b\":2}"[..]));
        assert!(c.post("/p", b"{\"x\":1}").await.is_err());
    }

    #[tokio::test]
    async fn a_response_cut_short_is_an_error() {
        let addr = serve(vec![
            b"HTTP/1.1 201 Created\r\nContent-Length: 70\r\n\r\n{}",
        ])
        .await;
        let mut c = LeanConn::open(&Endpoint::plain(addr)).await.unwrap();
        assert!(c.post("/p", b"{\"x\":1}").await.is_err());
    }
}
