//! A cairn watch: one connection streaming `{"type":"ADDED","object":...}`
//! lines, scanned for the created Event's name only.
//!
//! Watchers read their socket directly (one task, one 64 KiB read per wake-up,
//! chunked framing decoded in place) rather than through hyper's client, whose
//! connection task hands each HTTP chunk to the body reader through a channel:
//! at 1,000 watchers that hand-off made the bench use as much CPU as the
//! server it measures on a 2-core machine.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::chunked::{Chunked, parse_head};
use crate::Result;
use crate::load::WatchStream;
use crate::parse::{LineHeads, added_name, trailing_index};

/// Bytes of each line kept for finding the name (it sits within the first ~100).
const HEAD: usize = 256;
const READ_BUF: usize = 64 * 1024;
const MAX_HEAD: usize = 16 * 1024;

pub struct CairnWatch {
    tcp: TcpStream,
    buf: Vec<u8>,
    /// `None`: the body runs to the end of the connection.
    chunked: Option<Chunked>,
    lines: LineHeads,
    /// Body bytes at the start of `buf` not decoded yet (those read with the head).
    pending: usize,
    received: u64,
}

/// Watches every Event in every namespace after revision `rv`; returns once
/// the server has answered (the watch is established).
pub async fn open(addr: SocketAddr, rv: u64) -> Result<CairnWatch> {
    open_path(
        addr,
        &format!("/api/v1/events?watch=true&resourceVersion={rv}"),
    )
    .await
}

/// Opens the watch `path` (with its query); returns once the server has
/// answered, or fails after `OPEN_TIMEOUT`.
pub async fn open_path(addr: SocketAddr, path: &str) -> Result<CairnWatch> {
    tokio::time::timeout(OPEN_TIMEOUT, open_inner(addr, path))
        .await
        .map_err(|_| format!("watch {path}: no response head within {OPEN_TIMEOUT:?}"))?
}

/// How long a server may take to answer a watch request.
const OPEN_TIMEOUT: Duration = Duration::from_secs(30);

async fn open_inner(addr: SocketAddr, path: &str) -> Result<CairnWatch> {
    let mut tcp = super::dial(addr).await?;
    let req = format!(
        "GET {path} HTTP/1.1\r\n\
         Host: {addr}\r\nAccept: application/json\r\nUser-Agent: cairn-bench\r\n\r\n"
    );
    tcp.write_all(req.as_bytes()).await?;
    let mut buf = vec![0u8; READ_BUF];
    let mut filled = 0;
    let head = loop {
        if let Some(h) = parse_head(&buf[..filled])? {
            break h;
        }
        if filled >= MAX_HEAD {
            return Err("watch: response head too large".into());
        }
        let n = tcp.read(&mut buf[filled..]).await?;
        if n == 0 {
            return Err("watch: connection closed before the response head".into());
        }
        filled += n;
    };
    if head.status != 200 {
        let body = String::from_utf8_lossy(&buf[head.len..filled]).into_owned();
        return Err(format!("watch {path}: status {}: {body}", head.status).into());
    }
    let mut watch = CairnWatch {
        tcp,
        buf,
        chunked: head.chunked.then(Chunked::default),
        lines: LineHeads::new(HEAD),
        pending: 0,
        received: 0,
    };
    // Bytes of the body that came with the head are kept for the first batch.
    watch.buf.copy_within(head.len..filled, 0);
    watch.pending = filled - head.len;
    watch.received = watch.pending as u64;
    Ok(watch)
}

impl CairnWatch {
    /// Decodes `n` bytes at the start of the buffer into event indexes.
    fn decode(&mut self, n: usize, out: &mut Vec<u64>) -> Result<bool> {
        let lines = &mut self.lines;
        let mut on_data = |data: &[u8]| {
            lines.feed(data, |head| {
                if let Some(i) = added_name(head).and_then(trailing_index) {
                    out.push(i);
                }
            })
        };
        match &mut self.chunked {
            Some(c) => Ok(!c.feed(&self.buf[..n], on_data)?),
            None => {
                on_data(&self.buf[..n]);
                Ok(true)
            }
        }
    }
}

impl WatchStream for CairnWatch {
    async fn next_batch(&mut self, out: &mut Vec<u64>) -> Result<bool> {
        if self.pending > 0 {
            let n = std::mem::take(&mut self.pending);
            return self.decode(n, out);
        }
        let n = self.tcp.read(&mut self.buf).await?;
        if n == 0 {
            return Ok(false);
        }
        self.received += n as u64;
        self.decode(n, out)
    }

    fn received_bytes(&self) -> u64 {
        self.received
    }
}
