//! The accept loops: plain HTTP or TLS (HTTP/2 or HTTP/1.1 by ALPN, the
//! protocol then found by hyper's auto builder), each endpoint with its own
//! request pipeline; graceful shutdown bounded in time.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::watch as signal;
use tokio_rustls::TlsAcceptor;

use crate::app::AppState;
use crate::http::{compress, handle};
use crate::request::Pipeline;
use crate::request::authn::x509::PeerCertificates;

/// A client that does not finish its TLS handshake in this long is dropped.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// One listening socket and how its requests are authenticated.
pub struct Endpoint {
    pub listener: TcpListener,
    /// TLS when set; plain HTTP otherwise.
    pub tls: Option<TlsAcceptor>,
    pub pipeline: Arc<Pipeline>,
}

/// What a request knows of its connection.
pub struct Connection {
    pub pipeline: Arc<Pipeline>,
    pub peer: Option<PeerCertificates>,
    /// The client's address (audit events' source IPs).
    pub remote: Option<SocketAddr>,
    /// Served over TLS.
    pub tls: bool,
}

fn serve_connection<S>(state: &Arc<AppState>, stream: S, conn: Connection, graceful: Watcher)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let state = Arc::clone(state);
    let conn = Arc::new(conn);
    let svc = service_fn(move |req| {
        let state = Arc::clone(&state);
        let conn = Arc::clone(&conn);
        let gzip = compress::wanted(&req, &state.config);
        async move { Ok::<_, Infallible>(compress::apply(handle(state, conn, req).await, gzip).await) }
    });
    let served = auto::Builder::new(TokioExecutor::new())
        .serve_connection_with_upgrades(TokioIo::new(stream), svc)
        .into_owned();
    let served = graceful.watch(served);
    tokio::spawn(async move {
        let _ = served.await;
    });
}

/// Serves `endpoint` until `stop` flips, then waits (bounded) for open
/// requests to finish.
pub async fn serve(state: Arc<AppState>, endpoint: Endpoint, mut stop: signal::Receiver<bool>) {
    let graceful = GracefulShutdown::new();
    loop {
        tokio::select! {
            accepted = endpoint.listener.accept() => {
                let Ok((stream, remote)) = accepted else { continue };
                let _ = stream.set_nodelay(true);
                let pipeline = Arc::clone(&endpoint.pipeline);
                match &endpoint.tls {
                    None => serve_connection(&state, stream, Connection { pipeline, peer: None, remote: Some(remote), tls: false }, graceful.watcher()),
                    Some(acceptor) => {
                        let (acceptor, state, watcher) = (acceptor.clone(), Arc::clone(&state), graceful.watcher());
                        // The handshake runs on its own task: a slow client
                        // must not hold up the accept loop.
                        tokio::spawn(async move {
                            let Ok(Ok(tls)) = tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await else {
                                return;
                            };
                            let peer = PeerCertificates::new(tls.get_ref().1.peer_certificates());
                            serve_connection(&state, tls, Connection { pipeline, peer, remote: Some(remote), tls: true }, watcher);
                        });
                    }
                }
            }
            _ = stop.changed() => break,
        }
    }
    drop(endpoint.listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(Duration::from_secs(30)) => tracing::warn!("some connections did not finish within 30s of shutdown"),
    }
}
