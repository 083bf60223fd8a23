//! A do-nothing HTTP/1.1 server (tokio with two workers and hyper, as
//! cairn-apiserver serves): it answers every POST with 201 and the request's
//! own body padded to a create response's size. Driven by the create load,
//! it is the most any HTTP/1.1 server could answer on this machine.

use std::convert::Infallible;
use std::net::SocketAddr;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use crate::Result;

/// Bytes of cairn's answer to an Event create (the object with its server
/// fields), which the null server matches.
pub const RESPONSE_BYTES: usize = 900;

/// Binds `addr`, prints the bound address on stdout, and serves until killed.
pub fn serve(addr: SocketAddr) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = TcpListener::bind(addr).await?;
        println!("{}", listener.local_addr()?);
        loop {
            let (tcp, _) = listener.accept().await?;
            tcp.set_nodelay(true)?;
            tokio::spawn(async move {
                let conn =
                    http1::Builder::new().serve_connection(TokioIo::new(tcp), service_fn(answer));
                let _ = conn.await;
            });
        }
    })
}

async fn answer(
    req: Request<hyper::body::Incoming>,
) -> std::result::Result<Response<Full<Bytes>>, Infallible> {
    let body = match req.into_body().collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => Bytes::new(),
    };
    // Leading whitespace keeps it JSON and keeps the created name in it.
    let mut out = vec![b' '; RESPONSE_BYTES.saturating_sub(body.len())];
    out.extend_from_slice(&body);
    let mut response = Response::new(Full::new(Bytes::from(out)));
    *response.status_mut() = StatusCode::CREATED;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    Ok(response)
}
