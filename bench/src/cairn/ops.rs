//! cairn requests: namespaces, Event creates, the full list and the paged list.

use std::net::SocketAddr;
use std::time::Instant;

use http::{Method, StatusCode};
use http_body_util::BodyExt;
use memchr::memmem;

use super::client::Conn;
use super::endpoint::Endpoint;
use super::lean::LeanConn;
use crate::Result;
use crate::event;
use crate::load::{ListOutcome, Writer};
use crate::parse::{StreamCounter, continue_token, query_escape, resource_version};

/// One per item of an Event list: the item's own name (involvedObject names are `pod-N`).
const ITEM_MARK: &[u8] = br#""name":"ev-"#;

/// Creates namespaces ns-0 .. ns-9 (existing ones are fine).
pub async fn setup(addr: SocketAddr) -> Result<()> {
    let mut c = Conn::connect(addr).await?;
    for n in 0..event::NAMESPACES {
        let name = event::namespace(n);
        let (status, body) = c
            .call(
                Method::POST,
                "/api/v1/namespaces",
                Some(event::namespace_body(&name)),
            )
            .await?;
        if status != StatusCode::CREATED && status != StatusCode::CONFLICT {
            let text = String::from_utf8_lossy(&body);
            return Err(format!("create namespace {name}: {status}: {text}").into());
        }
    }
    Ok(())
}

/// Creates Events over one keep-alive connection.
pub struct CairnWriter {
    conn: LeanConn,
}

impl Writer for CairnWriter {
    async fn create(&mut self, i: u64) -> Result<()> {
        let path = format!("/api/v1/namespaces/{}/events", event::namespace(i));
        let (status, body) = self.conn.post(&path, &event::body(i)).await?;
        if status != StatusCode::CREATED.as_u16() {
            let text = String::from_utf8_lossy(&body[..body.len().min(300)]);
            return Err(format!("POST {path}: {status} (wanted 201): {text}").into());
        }
        let quoted_name = format!("\"{}\"", event::name(i));
        if memmem::find(body, quoted_name.as_bytes()).is_none() || !body.ends_with(b"}") {
            return Err(format!("POST {path}: 201 without the created Event").into());
        }
        Ok(())
    }
}

impl CairnWriter {
    /// "plain", or the TLS version and cipher suite.
    pub fn transport(&self) -> String {
        self.conn.transport()
    }
}

/// `n` writers, each with its own connection to `endpoint`.
pub async fn writers(endpoint: &Endpoint, n: usize) -> Result<Vec<CairnWriter>> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(CairnWriter {
            conn: LeanConn::open(endpoint).await?,
        });
    }
    Ok(out)
}

/// One GET of every Event in every namespace, streamed and counted, never held whole.
pub async fn list_full(conn: &mut Conn) -> Result<ListOutcome> {
    list_full_query(conn, "").await
}

/// `list_full` with a query (`fieldSelector=…`, escaped; empty for none).
pub async fn list_full_query(conn: &mut Conn, query: &str) -> Result<ListOutcome> {
    let start = Instant::now();
    let path = if query.is_empty() {
        "/api/v1/events".to_string()
    } else {
        format!("/api/v1/events?{query}")
    };
    let resp = conn.send(Method::GET, &path, None).await?;
    if resp.status() != StatusCode::OK {
        return Err(format!("full list {path}: {}", resp.status()).into());
    }
    let mut body = resp.into_body();
    let mut counter = StreamCounter::new(ITEM_MARK);
    while let Some(frame) = body.frame().await {
        if let Ok(data) = frame?.into_data() {
            counter.feed(&data);
        }
    }
    Ok(ListOutcome {
        elapsed: start.elapsed(),
        items: counter.count(),
        bytes: counter.bytes(),
        pages: 1,
    })
}

/// Every Event, `limit` per page, following continue tokens to the end.
pub async fn list_paged(conn: &mut Conn, limit: u64, expected: u64) -> Result<ListOutcome> {
    list_paged_query(conn, "", limit, expected).await
}

/// `list_paged` with a query (`fieldSelector=…`, escaped; empty for none);
/// `expected` bounds the pages only by the items the server holds.
pub async fn list_paged_query(
    conn: &mut Conn,
    query: &str,
    limit: u64,
    expected: u64,
) -> Result<ListOutcome> {
    let query = if query.is_empty() {
        String::new()
    } else {
        format!("{query}&")
    };
    let start = Instant::now();
    let mark = memmem::Finder::new(ITEM_MARK);
    let (mut items, mut bytes, mut pages) = (0u64, 0u64, 0u64);
    let mut token: Option<String> = None;
    let max_pages = expected / limit.max(1) + 10;
    loop {
        let path = match &token {
            None => format!("/api/v1/events?{query}limit={limit}"),
            Some(t) => format!(
                "/api/v1/events?{query}limit={limit}&continue={}",
                query_escape(t)
            ),
        };
        let body = conn
            .expect(StatusCode::OK, Method::GET, &path, None)
            .await?;
        pages += 1;
        bytes += body.len() as u64;
        items += mark.find_iter(&body).count() as u64;
        token = continue_token(&body);
        if token.is_none() {
            break;
        }
        if pages >= max_pages {
            return Err(format!("paged list still going after {pages} pages").into());
        }
    }
    Ok(ListOutcome {
        elapsed: start.elapsed(),
        items,
        bytes,
        pages,
    })
}

/// The current resourceVersion of the Event collection.
pub async fn current_rv(conn: &mut Conn) -> Result<u64> {
    let body = conn
        .expect(StatusCode::OK, Method::GET, "/api/v1/events?limit=1", None)
        .await?;
    resource_version(&body).ok_or_else(|| "no resourceVersion in an Event list".into())
}
