//! The `Available` condition of APIServices that name a service, as
//! kube-aggregator's availability controller keeps it: the service must
//! exist, have an endpoint carrying the port, and answer its discovery
//! document (`/apis/{group}/{version}`) with a 2xx within five seconds.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use http_body_util::{BodyExt, Empty, Limited};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use super::{available_condition, write};
use crate::api::kind::KindSpec;
use crate::api::proxy::aggregated::Route;
use crate::api::proxy::endpoints::{Backend, NoBackend, service_backend};
use crate::api::store::Subresource;
use crate::app::AppState;
use crate::util::time::rfc3339;

/// How long the discovery document may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Largest discovery document read from an extension server.
const MAX_DISCOVERY_BYTES: usize = 4 * 1024 * 1024;

/// The condition's status, reason and message.
type Verdict = (&'static str, &'static str, String);

/// Probes every APIService in `objects` that names a service and records
/// what changed.
pub async fn probe_all<'a>(
    state: &Arc<AppState>,
    kind: &Arc<KindSpec>,
    objects: impl Iterator<Item = &'a Value>,
) {
    let remote: Vec<(Value, Route)> = objects
        .filter_map(|o| Route::of(o).map(|r| (o.clone(), r)))
        .collect();
    for (obj, route) in remote {
        let verdict = check(state, &route).await;
        if let Err(e) = record(state, kind, obj, verdict).await {
            tracing::debug!(error = %e, "recording an APIService's availability failed");
        }
    }
}

async fn check(state: &AppState, route: &Route) -> Verdict {
    let (ns, name) = (&route.namespace, &route.service);
    let backend = match service_backend(&state.store, ns, name, &route.port.to_string()).await {
        Ok(b) => b,
        Err(NoBackend::ServiceNotFound) => {
            return (
                "False",
                "ServiceNotFound",
                format!("service/{name} in {ns:?} is not present"),
            );
        }
        Err(NoBackend::NoSuchPort(_)) => {
            return (
                "False",
                "ServicePortError",
                format!(
                    "service/{name} in {ns:?} is not listening on port {}",
                    route.port
                ),
            );
        }
        Err(NoBackend::EndpointsNotFound(_)) => {
            return (
                "False",
                "EndpointsNotFound",
                format!("cannot find endpoints for service/{name} in {ns:?}"),
            );
        }
        Err(NoBackend::Api(e)) => return ("Unknown", "ServiceAccessError", e.to_string()),
    };
    let url = format!(
        "https://{}:{}/apis/{}/{}",
        backend.ip, backend.port, route.group, route.version
    );
    match tokio::time::timeout(PROBE_TIMEOUT, discovery_status(state, route, &backend)).await {
        Ok(Ok((status, body))) if (200..300).contains(&status) => {
            if let Ok(list) = serde_json::from_slice::<Value>(&body) {
                state
                    .aggregated
                    .set_discovered(&route.group, &route.version, list);
            }
            ("True", "Passed", "all checks passed".to_string())
        }
        Ok(Ok((status, _))) => (
            "False",
            "FailedDiscoveryCheck",
            format!("failing or missing response from {url}: bad status from {url}: {status}"),
        ),
        Ok(Err(e)) => (
            "False",
            "FailedDiscoveryCheck",
            format!("failing or missing response from {url}: {e}"),
        ),
        Err(_) => (
            "False",
            "FailedDiscoveryCheck",
            format!("failing or missing response from {url}: context deadline exceeded"),
        ),
    }
}

/// The status code and body of GET `/apis/{group}/{version}` at `backend`.
async fn discovery_status(
    state: &AppState,
    route: &Route,
    backend: &Backend,
) -> Result<(u16, Bytes), String> {
    let config = crate::tls::upstream::client(
        &state.config,
        route.ca_bundle.clone(),
        route.insecure_skip_tls_verify,
    )?;
    let tcp = TcpStream::connect((backend.ip.as_str(), backend.port))
        .await
        .map_err(|e| format!("dial tcp {}:{}: {e}", backend.ip, backend.port))?;
    let server_name = format!("{}.{}.svc", route.service, route.namespace);
    let name = ServerName::try_from(server_name).map_err(|e| e.to_string())?;
    let tls = TlsConnector::from(config)
        .connect(name, tcp)
        .await
        .map_err(|e| format!("tls: {e}"))?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .map_err(|e| e.to_string())?;
    tokio::spawn(conn);
    let request = http::Request::get(format!("/apis/{}/{}", route.group, route.version))
        .header(
            http::header::HOST,
            format!("{}:{}", backend.ip, backend.port),
        )
        .header(http::header::ACCEPT, "application/json")
        .body(Empty::<Bytes>::new())
        .map_err(|e| e.to_string())?;
    let resp = sender
        .send_request(request)
        .await
        .map_err(|e| e.to_string())?;
    let status = resp.status().as_u16();
    let body = Limited::new(resp.into_body(), MAX_DISCOVERY_BYTES)
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    Ok((status, body))
}

/// Writes the condition when its status, reason or message changed (its
/// transition time only when the status did).
async fn record(
    state: &AppState,
    kind: &Arc<KindSpec>,
    mut obj: Value,
    (status, reason, message): Verdict,
) -> Result<(), crate::api::error::ApiError> {
    let old = available_condition(&obj).cloned();
    let same = |field: &str, want: &str| {
        old.as_ref()
            .and_then(|c| c.get(field))
            .and_then(Value::as_str)
            == Some(want)
    };
    if same("status", status) && same("reason", reason) && same("message", &message) {
        return Ok(());
    }
    let since = match &old {
        Some(c) if same("status", status) => c.get("lastTransitionTime").cloned(),
        _ => None,
    }
    .unwrap_or_else(|| json!(rfc3339(SystemTime::now())));
    let condition = json!({
        "type": "Available",
        "status": status,
        "lastTransitionTime": since,
        "reason": reason,
        "message": message,
    });
    let mut conditions: Vec<Value> = obj
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    conditions.retain(|c| c.get("type").and_then(Value::as_str) != Some("Available"));
    conditions.push(condition);
    obj["status"] = json!({"conditions": conditions});
    let name = crate::api::object::name(&obj).to_string();
    write(&state.store, kind, &name, obj, Some(Subresource::Status)).await?;
    Ok(())
}
