//! A Service's backends, as Kubernetes' service proxy and aggregator
//! resolve them: the Service port a request names (by number or name),
//! then one ready address of the Service's Endpoints object carrying the
//! port of that name — or, with no Endpoints object, of its EndpointSlices
//! (`kubernetes.io/service-name`), chosen at random.

use std::net::IpAddr;
use std::sync::Arc;

use serde_json::Value;

use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::kinds::checks::{items_at, str_at};
use crate::api::selectors::LabelSelector;
use crate::api::store::{ListOptions, Store};

/// One address and port to dial.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backend {
    pub ip: String,
    pub port: u16,
}

/// Why a Service has no backend to offer.
#[derive(Debug)]
pub enum NoBackend {
    /// The Service does not exist.
    ServiceNotFound,
    /// The Service exists; no endpoint carries the port.
    EndpointsNotFound(String),
    /// The request names a port the Service does not have.
    NoSuchPort(String),
    Api(ApiError),
}

impl From<ApiError> for NoBackend {
    fn from(e: ApiError) -> NoBackend {
        NoBackend::Api(e)
    }
}

fn kind(store: &Store, group: &str, resource: &str) -> Result<Arc<KindSpec>, NoBackend> {
    store
        .registry
        .lookup(group, "v1", resource)
        .ok_or_else(|| NoBackend::Api(ApiError::Internal(format!("{resource} are not served"))))
}

/// The Service's port name for `port` (a number or a name; `""` the
/// unnamed port): Kubernetes matches endpoint ports by name.
fn port_name(service: &Value, port: &str) -> Result<String, NoBackend> {
    let name = str_at(service, "/metadata/name");
    let Ok(number) = port.parse::<i64>() else {
        return Ok(port.to_string());
    };
    items_at(service, "/spec/ports")
        .iter()
        .find(|p| p.get("port").and_then(Value::as_i64) == Some(number))
        .map(|p| str_at(p, "/name").to_string())
        .ok_or_else(|| {
            NoBackend::NoSuchPort(format!(
                "no service port {number} found for service {name:?}"
            ))
        })
}

/// A backend of Service `ns/name` for `port` (see `port_name`).
pub async fn service_backend(
    store: &Store,
    ns: &str,
    name: &str,
    port: &str,
) -> Result<Backend, NoBackend> {
    let services = kind(store, "", "services")?;
    let service = match store.get(&services, Some(ns), name, None).await {
        Ok(s) => s,
        Err(ApiError::NotFound { .. }) => return Err(NoBackend::ServiceNotFound),
        Err(e) => return Err(e.into()),
    };
    let wanted = port_name(&service, port)?;
    let none =
        || NoBackend::EndpointsNotFound(format!("no endpoints available for service {name:?}"));
    let endpoints = kind(store, "", "endpoints")?;
    let candidates = match store.get(&endpoints, Some(ns), name, None).await {
        Ok(eps) => endpoints_candidates(&eps, &wanted),
        Err(ApiError::NotFound { .. }) => slice_candidates(store, ns, name, &wanted).await?,
        Err(e) => return Err(e.into()),
    };
    pick(&candidates).ok_or_else(none)
}

fn port_of(p: &Value) -> Option<u16> {
    p.get("port")
        .and_then(Value::as_u64)
        .and_then(|n| u16::try_from(n).ok())
}

/// Ready addresses of an Endpoints object's subsets that carry the port.
fn endpoints_candidates(eps: &Value, wanted: &str) -> Vec<Backend> {
    let mut out = Vec::new();
    for subset in items_at(eps, "/subsets") {
        let Some(port) = items_at(subset, "/ports")
            .iter()
            .find(|p| str_at(p, "/name") == wanted)
            .and_then(port_of)
        else {
            continue;
        };
        for address in items_at(subset, "/addresses") {
            let ip = str_at(address, "/ip");
            if !ip.is_empty() {
                out.push(Backend {
                    ip: ip.to_string(),
                    port,
                });
            }
        }
    }
    out
}

/// Ready endpoints of the Service's EndpointSlices that carry the port.
async fn slice_candidates(
    store: &Store,
    ns: &str,
    service: &str,
    wanted: &str,
) -> Result<Vec<Backend>, NoBackend> {
    let group = store
        .registry
        .snapshot()
        .iter()
        .find(|k| k.resource == "endpointslices" && k.group.starts_with("discovery."))
        .map(|k| k.group.clone());
    let Some(group) = group else {
        return Ok(Vec::new());
    };
    let slices = kind(store, &group, "endpointslices")?;
    let selector = LabelSelector::parse(&format!("kubernetes.io/service-name={service}"))
        .map_err(|e| NoBackend::Api(ApiError::Internal(e)))?;
    let opts = ListOptions {
        label: Some(selector),
        ..ListOptions::default()
    };
    let page = store.list(&slices, Some(ns), &opts).await?;
    let mut out = Vec::new();
    for slice in &page.items {
        let Some(port) = items_at(slice, "/ports")
            .iter()
            .find(|p| str_at(p, "/name") == wanted)
            .and_then(port_of)
        else {
            continue;
        };
        for endpoint in items_at(slice, "/endpoints") {
            let ready = endpoint
                .pointer("/conditions/ready")
                .and_then(Value::as_bool)
                .unwrap_or(true);
            if !ready {
                continue;
            }
            if let Some(ip) = items_at(endpoint, "/addresses")
                .first()
                .and_then(Value::as_str)
            {
                out.push(Backend {
                    ip: ip.to_string(),
                    port,
                });
            }
        }
    }
    Ok(out)
}

/// One of `candidates`, at random as Kubernetes picks.
fn pick(candidates: &[Backend]) -> Option<Backend> {
    if candidates.is_empty() {
        return None;
    }
    let mut seed = [0u8; 4];
    let _ = getrandom::fill(&mut seed);
    let i = u32::from_le_bytes(seed) as usize % candidates.len();
    candidates.get(i).cloned()
}

/// Whether `ip` may be dialled: Kubernetes refuses link-local and
/// unspecified addresses (cloud metadata services live there). Loopback is
/// allowed here, unlike Kubernetes, whose targets are never on its own host.
pub fn proxyable(ip: &str) -> Result<IpAddr, ApiError> {
    let not_allowed = || ApiError::BadRequest("address not allowed".into());
    let addr: IpAddr = ip.parse().map_err(|_| not_allowed())?;
    let link_local = match addr {
        IpAddr::V4(v4) => v4.is_link_local() || v4.is_unspecified() || v4.is_multicast(),
        IpAddr::V6(v6) => {
            (v6.segments()[0] & 0xffc0) == 0xfe80 || v6.is_unspecified() || v6.is_multicast()
        }
    };
    if link_local {
        return Err(not_allowed());
    }
    Ok(addr)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn ports_are_matched_by_the_service_port_name() {
        let svc = json!({"metadata": {"name": "web"}, "spec": {"ports": [
            {"name": "http", "port": 80}, {"name": "admin", "port": 9000}]}});
        assert_eq!(port_name(&svc, "80").unwrap(), "http");
        assert_eq!(port_name(&svc, "admin").unwrap(), "admin");
        assert_eq!(port_name(&svc, "").unwrap(), "");
        let Err(NoBackend::NoSuchPort(message)) = port_name(&svc, "81") else {
            panic!("port 81 is not the service's");
        };
        assert_eq!(message, "no service port 81 found for service \"web\"");
        let eps = json!({"subsets": [{"addresses": [{"ip": "10.0.0.1"}],
            "ports": [{"name": "http", "port": 8080}, {"name": "admin", "port": 9090}]}]});
        assert_eq!(
            endpoints_candidates(&eps, "http"),
            vec![Backend {
                ip: "10.0.0.1".into(),
                port: 8080
            }]
        );
        assert!(endpoints_candidates(&eps, "").is_empty());
    }

    #[test]
    fn link_local_addresses_are_refused() {
        assert!(proxyable("169.254.169.254").is_err());
        assert!(proxyable("fe80::1").is_err());
        assert!(proxyable("0.0.0.0").is_err());
        assert!(proxyable("nonsense").is_err());
        assert!(proxyable("10.1.2.3").is_ok());
        assert!(proxyable("127.0.0.1").is_ok());
    }
}
