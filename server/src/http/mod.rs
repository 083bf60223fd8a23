//! The hyper front end: accept loop, routing, negotiation. Every request,
//! resource or not, passes the request pipeline (authentication, then
//! authorization) before anything answers it.

pub mod aggregated_discovery;
pub mod body;
pub mod cbor;
pub mod compress;
pub mod discovery;
pub mod encode;
pub mod etag;
pub mod health;
pub mod issuer_discovery;
pub mod negotiate;
pub mod openapi;
pub mod params;
pub mod protobuf;
pub mod resource;
pub mod respond;
pub mod router;
pub mod watch;

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use http::{Method, Request, Response, header};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::sync::watch as signal;

use crate::api::error::ApiError;
use crate::app::AppState;
use crate::request::authn::RequestHead;
use crate::request::info::RequestInfo;
use body::Body;
use params::Query;
use respond::Writer;
use router::Route;

/// Handles one request.
pub async fn handle(state: Arc<AppState>, req: Request<Incoming>) -> Response<Body> {
    let query = Query::parse(req.uri().query());
    let info = RequestInfo::new(
        req.method(),
        req.uri().path().to_string(),
        query.get("watch"),
        query.get("fieldSelector"),
    );
    let user_agent = req
        .headers()
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let accept = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let pretty = negotiate::wants_pretty(query.get("pretty"), user_agent.as_deref());
    let offers = negotiate::Offers {
        domain: &state.config.api_domain,
        cbor: state.config.feature_gates.enabled("CBORServingAndStorage"),
    };
    let head = RequestHead {
        method: req.method(),
        path: &info.path,
        headers: req.headers(),
    };
    let user = match state.pipeline.authorize_request(&head, &info).await {
        Ok(user) => user,
        Err(e) => {
            // Refused before any handler: in the negotiated encoding, or
            // JSON when the Accept header offers none of ours.
            let writer = match negotiate::response_target(accept.as_deref(), &offers) {
                Ok(t) => Writer {
                    encoding: t.encoding,
                    pretty,
                    table: None,
                },
                Err(_) => Writer {
                    pretty,
                    ..Writer::default()
                },
            };
            return writer.error(&e);
        }
    };
    let path = info.path.as_str();
    let route = router::route(&info);
    if let Route::Health { endpoint, check } = &route {
        return state.health.respond(
            endpoint,
            check.as_deref(),
            &query,
            state.store.storage.as_ref(),
        );
    }
    if req.method() == Method::GET {
        let domain = &state.config.api_domain;
        let registry = &state.store.registry;
        let published = state
            .openapi
            .serve(registry, domain, path, &query, req.headers())
            .or_else(|| aggregated_discovery::serve(registry, domain, &route, req.headers()));
        if let Some(resp) = published {
            return resp;
        }
    }
    let writer = match negotiate::response_target(accept.as_deref(), &offers) {
        Ok(t) => Writer {
            encoding: t.encoding,
            pretty,
            table: t.table,
        },
        Err(e) => {
            return Writer {
                pretty,
                ..Writer::default()
            }
            .error(&e);
        }
    };
    if req.method() == Method::GET
        && let Some(answer) = issuer_discovery::serve(&state, &route)
    {
        return answer.unwrap_or_else(|e| writer.error(&e));
    }
    let registry = &state.store.registry;
    let doc = match route {
        Route::Resource(target) => {
            return resource::handle(&state, req, target, user, query, writer).await;
        }
        _ if req.method() != Method::GET => Err(ApiError::MethodNotAllowed {
            action: req.method().to_string(),
            resource: path.to_string(),
        }),
        Route::Version => Ok(discovery::version()),
        Route::CoreVersions => Ok(discovery::core_versions(&state.config.advertise_address())),
        Route::CoreResources { version } => discovery::resources(registry, "", &version),
        Route::Groups => Ok(discovery::groups(registry)),
        Route::Group { group } => discovery::group(registry, &group),
        Route::GroupResources { group, version } => {
            discovery::resources(registry, &group, &version)
        }
        Route::Health { .. } | Route::OpenIdConfiguration | Route::Jwks | Route::NotFound => {
            Err(ApiError::PathNotFound)
        }
    };
    match doc {
        Ok(v) => writer.object(200, &v, &[]),
        Err(e) => writer.error(&e),
    }
}

/// Serves connections until `stop` flips, then waits (bounded) for open
/// requests to finish.
pub async fn serve(state: Arc<AppState>, listener: TcpListener, mut stop: signal::Receiver<bool>) {
    let graceful = GracefulShutdown::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _peer)) = accepted else { continue };
                let _ = stream.set_nodelay(true);
                let state = Arc::clone(&state);
                let svc = service_fn(move |req| {
                    let state = Arc::clone(&state);
                    let gzip = compress::wanted(&req, &state.config);
                    async move { Ok::<_, Infallible>(compress::apply(handle(state, req).await, gzip).await) }
                });
                let conn = auto::Builder::new(TokioExecutor::new()).serve_connection_with_upgrades(TokioIo::new(stream), svc).into_owned();
                let conn = graceful.watch(conn);
                tokio::spawn(async move {
                    let _ = conn.await;
                });
            }
            _ = stop.changed() => break,
        }
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(Duration::from_secs(30)) => tracing::warn!("some connections did not finish within 30s of shutdown"),
    }
}

#[cfg(test)]
mod pipeline_tests;
