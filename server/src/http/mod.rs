//! The hyper front end: accept loop, routing, negotiation. Every request,
//! resource or not, passes the request pipeline (authentication, then
//! authorization) before anything answers it.

pub mod aggregated;
pub mod aggregated_discovery;
pub mod audited;
pub mod body;
pub mod cbor;
pub mod compress;
pub mod discovery;
pub mod discovery_merge;
pub mod encode;
pub mod etag;
pub mod forward;
pub mod health;
pub mod instrument;
pub mod issuer_discovery;
pub mod metrics;
pub mod negotiate;
pub mod openapi;
pub mod params;
pub mod protobuf;
pub mod proxy_headers;
pub mod proxy_verb;
pub mod resource;
pub mod respond;
pub mod router;
pub mod serve;
pub mod watch;

use std::sync::Arc;

use http::{Method, Request, Response, header};
use hyper::body::Incoming;

use crate::api::error::ApiError;
use crate::app::AppState;
use crate::request::audit::Trail;
use crate::request::authn::RequestHead;
use crate::request::info::RequestInfo;
use crate::request::overload::deadline;
use crate::request::overload::long_running::is_long_running;
use crate::trace;
use body::Body;
use params::Query;
use respond::Writer;
use router::Route;
pub use serve::{Connection, Endpoint, serve};

/// Handles one request on `conn`, audited and traced from arrival to
/// answer.
pub async fn handle(
    state: Arc<AppState>,
    conn: Arc<Connection>,
    req: Request<Incoming>,
) -> Response<Body> {
    let received = tokio::time::Instant::now();
    let query = Query::parse(req.uri().query());
    let info = RequestInfo::new(
        req.method(),
        req.uri().path().to_string(),
        query.get("watch"),
        query.get("fieldSelector"),
    );
    let request_uri = req.uri().path_and_query().map_or("/", |p| p.as_str());
    let mut trail = Trail::begin(
        state.auditor.as_ref(),
        req.headers(),
        request_uri,
        conn.remote.map(|a| a.ip()),
    );
    let content_type = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    let reported = instrument::Reported::of(&info, content_type, &query);
    let arrival = trace::request::Arrival {
        method: req.method(),
        target: request_uri,
        authority: req.uri().authority().map(http::uri::Authority::as_str),
        version: req.version(),
        headers: req.headers(),
        remote: conn.remote,
        https: conn.tls,
        audit_id: trail.id(),
    };
    let span = trace::request::start(&arrival, &info);
    let long_running = is_long_running(&info);
    let resp = trace::within(
        span.as_ref(),
        answer(
            state,
            &conn,
            req,
            query,
            &info,
            reported,
            &mut trail,
            received,
            long_running,
        ),
    )
    .await;
    trace::request::finish(span, resp.status());
    audited::finish(trail, resp, long_running).await
}

/// The answer to a request: a long-running one as it comes, any other
/// within its deadline (504 past it).
#[allow(clippy::too_many_arguments)]
async fn answer(
    state: Arc<AppState>,
    conn: &Connection,
    req: Request<Incoming>,
    query: Query,
    info: &RequestInfo,
    reported: instrument::Reported,
    trail: &mut Trail,
    received: tokio::time::Instant,
    long_running: bool,
) -> Response<Body> {
    if long_running {
        return respond(state, conn, req, query, info, reported, trail).await;
    }
    let list_timeout = (info.verb == "list")
        .then(|| query.get("timeoutSeconds"))
        .flatten();
    let limit = match deadline::request_deadline(
        query.get("timeout"),
        list_timeout,
        state.overload.request_timeout,
    ) {
        Ok(limit) => limit,
        Err(e) => return Writer::default().error(&e),
    };
    // The deadline counts from receipt; a budget spent before the work
    // starts is answered at once.
    let due = received + limit;
    if tokio::time::Instant::now() >= due {
        reported.refused(info, 504);
        return Writer::default().error(&deadline::timed_out());
    }

    // Past the deadline the request's work is dropped at its next await,
    // as when a client goes away: a write already handed to storage still
    // lands (as kube-apiserver's work may finish after its 504). Run in
    // place, not on a task of its own: moving the whole request future to
    // a new task cost more than the rest of the deadline's bookkeeping.
    match tokio::time::timeout_at(due, respond(state, conn, req, query, info, reported, trail))
        .await
    {
        Ok(resp) => resp,
        Err(_) => {
            reported.refused(info, 504);
            Writer::default().error(&deadline::timed_out())
        }
    }
}

/// Authenticates, authorizes and admits (in-flight limits) a request,
/// then answers it.
async fn respond(
    state: Arc<AppState>,
    conn: &Connection,
    mut req: Request<Incoming>,
    query: Query,
    info: &RequestInfo,
    reported: instrument::Reported,
    trail: &mut Trail,
) -> Response<Body> {
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
        peer: conn.peer.as_ref(),
    };
    let admitted = async {
        let user = conn
            .pipeline
            .authenticate_request(&head, info, &state.config.api_domain, trail)
            .await?;
        let permit = state.overload.inflight.admit(info, &user)?;
        conn.pipeline.authorize(&user, info, trail).await?;
        Ok::<_, ApiError>((user, permit))
    }
    .await;
    // Held until the answer is made.
    let (user, _permit) = match admitted {
        Ok(admitted) => {
            conn.pipeline
                .authenticators
                .clear_headers(req.headers_mut());
            admitted
        }
        Err(e) => {
            if matches!(e, ApiError::TooManyRequests { .. }) {
                reported.refused(info, 429);
            }
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
    if let Some(route) = aggregated::route_of(&state, &info.path) {
        let client = conn.remote.map(|a| a.ip());
        return Box::pin(aggregated::serve(&state, req, &route, &user, client)).await;
    }
    if let Some(target) = &info.resource
        && target.subresource.as_deref() == Some(crate::request::info::PROXY)
    {
        let measured = instrument::Measured::start(info, target, reported);
        let client = conn.remote.map(|a| a.ip());
        let resp = Box::pin(proxy_verb::serve(&state, req, &info.path, target, client)).await;
        return measured.finish(resp);
    }
    let path = info.path.as_str();
    let route = router::route(info);
    if let Route::Health { endpoint, check } = &route {
        return state.health.respond(
            endpoint,
            check.as_deref(),
            &query,
            state.store.storage.as_ref(),
        );
    }
    if route == Route::Metrics && req.method() == Method::GET {
        return metrics::serve(accept.as_deref());
    }
    if req.method() == Method::GET {
        let domain = &state.config.api_domain;
        let registry = &state.store.registry;
        let published = state
            .openapi
            .serve(registry, domain, path, &query, req.headers())
            .or_else(|| {
                aggregated_discovery::serve(registry, domain, &route, req.headers(), |items| {
                    items.extend(discovery_merge::discovery_items(&state.aggregated));
                    discovery_merge::order(items, &state.aggregated, domain);
                })
            });
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
            let call = resource::Caller {
                user,
                authorizers: Arc::clone(&conn.pipeline.authorizers),
                audit: trail.context().clone(),
            };
            let measured = instrument::Measured::start(info, target, reported);
            let audit = call.audit.clone();
            // Boxed, as are the other large answers: a future is moved by
            // copying its largest state, and this one is kilobytes that every
            // enclosing future (deadline, audit, hyper's service) would copy
            // again on each request.
            let handled = Box::pin(resource::handle(&state, req, target, call, query, writer));
            let (mut resp, notes) = crate::request::notes::gathering(handled).await;
            respond::add_warnings(&mut resp, &notes.warnings);
            for (key, value) in &notes.annotations {
                audit.annotate(key, value);
            }
            if audit.level() >= crate::request::audit::policy::Level::Request {
                for (key, value) in &notes.request_level_annotations {
                    audit.annotate(key, value);
                }
            }
            return measured.finish(resp);
        }
        _ if req.method() != Method::GET => Err(ApiError::MethodNotAllowed {
            action: req.method().to_string(),
            resource: path.to_string(),
        }),
        Route::Version => Ok(discovery::version()),
        Route::CoreVersions => Ok(discovery::core_versions(&state.config.advertise_address())),
        Route::CoreResources { version } => discovery::resources(registry, "", &version),
        Route::Groups => {
            let mut doc = discovery::groups(registry);
            let domain = &state.config.api_domain;
            discovery_merge::merge_group_list(&mut doc, &state.aggregated, domain);
            Ok(doc)
        }
        Route::Group { group } => discovery::group(registry, &group)
            .or_else(|e| discovery_merge::group_document(&state.aggregated, &group).ok_or(e)),
        Route::GroupResources { group, version } => {
            discovery::resources(registry, &group, &version)
        }
        Route::Health { .. }
        | Route::Metrics
        | Route::OpenIdConfiguration
        | Route::Jwks
        | Route::NotFound => Err(ApiError::PathNotFound),
    };
    match doc {
        Ok(v) => writer.object(200, &v, &[]),
        Err(e) => writer.error(&e),
    }
}

#[cfg(test)]
mod authn_tests;
#[cfg(test)]
mod authz_reviews_tests;
#[cfg(test)]
mod deprecation_tests;
#[cfg(test)]
mod pipeline_tests;
#[cfg(test)]
mod test_server;
