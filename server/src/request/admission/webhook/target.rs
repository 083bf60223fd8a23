//! Where one call goes: the webhook's client, and for a webhook behind a
//! Service, one ready endpoint of that Service (resolved at each call, as
//! the aggregator resolves an APIService's), dialled directly while the
//! certificate is still checked against `<name>.<namespace>.svc`.

use std::net::SocketAddr;
use std::sync::Arc;

use super::credentials::Credentials;
use super::hook::Hook;
use crate::api::proxy::endpoints::{NoBackend, service_backend};
use crate::api::store::Store;
use crate::request::authz::webhook::client::Client;

/// A call's client and the address it dials (`None`: the URL's host).
pub struct Target {
    pub client: Arc<Client>,
    pub via: Option<SocketAddr>,
}

impl Target {
    /// The target of a call to `hook`; the error says why it has none.
    pub async fn of(
        hook: &Hook,
        credentials: Option<&Credentials>,
        reads: &Store,
    ) -> Result<Target, String> {
        let client = hook.client(credentials)?;
        let service = match &hook.endpoint {
            Ok(endpoint) => endpoint.service.as_ref(),
            Err(e) => return Err(e.clone()),
        };
        let Some(service) = service else {
            return Ok(Target { client, via: None });
        };
        let url = client.url().to_string();
        let backend = service_backend(
            reads,
            &service.namespace,
            &service.name,
            &service.port.to_string(),
        )
        .await
        .map_err(|e| match e {
            NoBackend::ServiceNotFound => {
                format!("POST {url}: service {:?} not found", service.name)
            }
            NoBackend::EndpointsNotFound(m) | NoBackend::NoSuchPort(m) => {
                format!("POST {url}: {m}")
            }
            NoBackend::Api(e) => format!("POST {url}: resolving the service: {e}"),
        })?;
        let ip = backend
            .ip
            .parse()
            .map_err(|_| format!("POST {url}: endpoint address {:?} is not an IP", backend.ip))?;
        Ok(Target {
            client,
            via: Some(SocketAddr::new(ip, backend.port)),
        })
    }
}
