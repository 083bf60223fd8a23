//! Where the proxy subresource of a Service, Pod or Node leads, as
//! Kubernetes' `ResourceLocation` of each works it out from the name in
//! the path (`name`, `name:port` or `scheme:name:port`).

use serde_json::Value;

use super::endpoints::{NoBackend, proxyable, service_backend};
use crate::api::error::ApiError;
use crate::api::kinds::checks::{items_at, str_at};
use crate::api::store::Store;

/// The kubelet's port when a Node does not say (kube-apiserver's
/// `--kubelet-port`).
const KUBELET_PORT: u16 = 10250;

/// The address types tried for a Node, in order.
const NODE_ADDRESS_TYPES: [&str; 5] = [
    "InternalIP",
    "ExternalIP",
    "Hostname",
    "InternalDNS",
    "ExternalDNS",
];

/// A proxy target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub https: bool,
    pub host: String,
    /// `None`: the scheme's default port.
    pub port: Option<u16>,
    /// The kubelet's own port of a Node: Kubernetes reaches it with the
    /// kubelet's client transport.
    pub kubelet: bool,
}

/// `name`, `name:port` or `scheme:name:port` read as Kubernetes'
/// `SplitSchemeNamePort` does; `None` when malformed.
#[must_use]
pub fn split_scheme_name_port(id: &str) -> Option<(&str, &str, &str)> {
    let parts: Vec<&str> = id.split(':').collect();
    let (scheme, name, port) = match parts.as_slice() {
        [name] => ("", *name, ""),
        [name, port] => ("", *name, *port),
        [scheme, name, port] => (*scheme, *name, *port),
        _ => return None,
    };
    let valid = !name.is_empty() && matches!(scheme, "" | "http" | "https");
    valid.then_some((scheme, name, port))
}

fn bad_request(resource: &str, id: &str) -> ApiError {
    let what = match resource {
        "services" => "service",
        "pods" => "pod",
        _ => "node",
    };
    ApiError::BadRequest(format!("invalid {what} request {id:?}"))
}

fn numeric_port(port: &str) -> Result<Option<u16>, ApiError> {
    if port.is_empty() {
        return Ok(None);
    }
    port.parse()
        .map(Some)
        .map_err(|_| ApiError::BadRequest(format!("invalid port {port:?}")))
}

/// Where `resource` (`services`, `pods` or `nodes`) named `id` in `ns`
/// leads.
pub async fn resolve(
    store: &Store,
    resource: &str,
    ns: Option<&str>,
    id: &str,
) -> Result<Location, ApiError> {
    let (scheme, name, port) =
        split_scheme_name_port(id).ok_or_else(|| bad_request(resource, id))?;
    let https = scheme == "https";
    match resource {
        "services" => service(store, ns.unwrap_or_default(), name, port, https).await,
        "pods" => pod(store, ns.unwrap_or_default(), name, port, https).await,
        "nodes" => node(store, name, port, https).await,
        _ => Err(ApiError::PathNotFound),
    }
}

async fn service(
    store: &Store,
    ns: &str,
    name: &str,
    port: &str,
    https: bool,
) -> Result<Location, ApiError> {
    let backend = match service_backend(store, ns, name, port).await {
        Ok(b) => b,
        Err(NoBackend::ServiceNotFound) => {
            return Err(ApiError::NotFound {
                group: String::new(),
                resource: "services".into(),
                name: name.into(),
            });
        }
        Err(NoBackend::EndpointsNotFound(m) | NoBackend::NoSuchPort(m)) => {
            return Err(ApiError::ServiceUnavailable(m));
        }
        Err(NoBackend::Api(e)) => return Err(e),
    };
    proxyable(&backend.ip)?;
    Ok(Location {
        https,
        host: backend.ip,
        port: Some(backend.port),
        kubelet: false,
    })
}

async fn get(
    store: &Store,
    resource: &str,
    ns: Option<&str>,
    name: &str,
) -> Result<Value, ApiError> {
    let kind = store
        .registry
        .lookup("", "v1", resource)
        .ok_or(ApiError::PathNotFound)?;
    store.get(&kind, ns, name, None).await
}

async fn pod(
    store: &Store,
    ns: &str,
    name: &str,
    port: &str,
    https: bool,
) -> Result<Location, ApiError> {
    let pod = get(store, "pods", Some(ns), name).await?;
    let mut port = numeric_port(port)?;
    if port.is_none() {
        // Kubernetes tries the first port a container declares.
        port = items_at(&pod, "/spec/containers")
            .iter()
            .find_map(|c| items_at(c, "/ports").first())
            .and_then(|p| p.get("containerPort").and_then(Value::as_u64))
            .and_then(|n| u16::try_from(n).ok());
    }
    let ip = match str_at(&pod, "/status/podIP") {
        "" => items_at(&pod, "/status/podIPs")
            .first()
            .map(|p| str_at(p, "/ip"))
            .unwrap_or_default(),
        ip => ip,
    };
    proxyable(ip)?;
    Ok(Location {
        https,
        host: ip.to_string(),
        port,
        kubelet: false,
    })
}

/// The Node's address of the first type in `NODE_ADDRESS_TYPES` it has.
fn node_address(node: &Value) -> Option<&str> {
    let addresses = items_at(node, "/status/addresses");
    NODE_ADDRESS_TYPES.iter().find_map(|t| {
        addresses
            .iter()
            .find(|a| str_at(a, "/type") == *t && !str_at(a, "/address").is_empty())
            .map(|a| str_at(a, "/address"))
    })
}

async fn node(store: &Store, name: &str, port: &str, https: bool) -> Result<Location, ApiError> {
    let node = get(store, "nodes", None, name).await?;
    let host = node_address(&node)
        .ok_or_else(|| {
            ApiError::BadRequest("no preferred addresses found; known addresses: []".to_string())
        })?
        .to_string();
    let kubelet_port = node
        .pointer("/status/daemonEndpoints/kubeletEndpoint/Port")
        .and_then(Value::as_u64)
        .and_then(|n| u16::try_from(n).ok())
        .filter(|p| *p > 0)
        .unwrap_or(KUBELET_PORT);
    let requested = numeric_port(port)?;
    if requested.is_none() || requested == Some(kubelet_port) {
        return Ok(Location {
            https: true,
            host,
            port: Some(kubelet_port),
            kubelet: true,
        });
    }
    if host.parse::<std::net::IpAddr>().is_ok() {
        proxyable(&host)?;
    }
    Ok(Location {
        https,
        host,
        port: requested,
        kubelet: false,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn ids_split_as_kubernetes_splits_them() {
        assert_eq!(split_scheme_name_port("web"), Some(("", "web", "")));
        assert_eq!(split_scheme_name_port("web:80"), Some(("", "web", "80")));
        assert_eq!(
            split_scheme_name_port("https:web:443"),
            Some(("https", "web", "443"))
        );
        assert_eq!(
            split_scheme_name_port("https:web:"),
            Some(("https", "web", ""))
        );
        assert_eq!(split_scheme_name_port("ftp:web:21"), None);
        assert_eq!(split_scheme_name_port(":80"), None);
        assert_eq!(split_scheme_name_port("a:b:c:d"), None);
    }

    #[test]
    fn nodes_are_reached_at_their_internal_ip_first() {
        let node = json!({"status": {"addresses": [
            {"type": "Hostname", "address": "n1"},
            {"type": "InternalIP", "address": "10.0.0.5"}]}});
        assert_eq!(node_address(&node), Some("10.0.0.5"));
        let named = json!({"status": {"addresses": [{"type": "Hostname", "address": "n1"}]}});
        assert_eq!(node_address(&named), Some("n1"));
        assert_eq!(node_address(&json!({})), None);
    }
}
