//! The serving endpoints: listening sockets, and each port's
//! authenticators (the secure port's client certificates, bearer tokens and
//! anonymous; the plain port's fixed admin).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

use crate::app::AppState;
use crate::config::Config;
use crate::http::Endpoint;
use crate::request::Pipeline;
use crate::request::authn::anonymous::Anonymous;
use crate::request::authn::front_proxy::FrontProxy;
use crate::request::authn::jwt::startup::Configured;
use crate::request::authn::service_account::ServiceAccountAuthenticator;
use crate::request::authn::setup;
use crate::request::authn::token::{Bearer, TokenAuthenticator};
use crate::request::authn::x509::ClientCertificates;
use crate::request::authn::{Authenticator, Authenticators};
use crate::request::authz::setup::Authorization;
use crate::tls::{self, kubeconfig};

/// Pending connections the kernel queues before the server accepts them:
/// Go's listeners (kube-apiserver's) ask for the system's maximum, and a
/// thousand watchers reconnecting at once overflowed tokio's default of 1024
/// (their connections were reset). The kernel caps it at `somaxconn`.
const LISTEN_BACKLOG: u32 = 4096;

async fn listen(ip: IpAddr, port: u16) -> Result<TcpListener, String> {
    let addr = SocketAddr::new(ip, port);
    let socket = match ip {
        IpAddr::V4(_) => tokio::net::TcpSocket::new_v4(),
        IpAddr::V6(_) => tokio::net::TcpSocket::new_v6(),
    };
    socket
        .and_then(|s| {
            s.set_reuseaddr(true)?;
            s.bind(addr)?;
            s.listen(LISTEN_BACKLOG)
        })
        .map_err(|e| format!("cannot listen on {addr}: {e}"))
}

/// How requests' bearer tokens are checked: the cached union of token
/// authenticators (what TokenReview asks too) and the API audiences.
pub(crate) struct BearerTokens {
    tokens: Arc<dyn TokenAuthenticator>,
    api_audiences: Vec<String>,
}

/// The bearer-token authenticators in kube-apiserver's order (static token
/// file, service accounts, the JWT issuers of `--authentication-config`),
/// as one cached union; TokenReview and SelfSubjectReview are served with
/// it.
pub(crate) fn bearer_tokens(
    config: &Config,
    state: &AppState,
    authentication: Option<&Configured>,
) -> Result<BearerTokens, String> {
    let issuer = &state.token_issuer;
    let api_audiences = issuer.api_audiences().to_vec();
    let static_tokens = setup::token_file(config, &api_audiences)?;
    let mut chain: Vec<Arc<dyn TokenAuthenticator>> = Vec::new();
    chain.push(ServiceAccountAuthenticator::start(
        Arc::clone(issuer),
        &state.store,
        &state.shutdown,
    ));
    if let Some(configured) = authentication {
        chain.push(Arc::clone(&configured.jwt) as Arc<dyn TokenAuthenticator>);
    }
    let bearer = BearerTokens {
        tokens: setup::cached_tokens(static_tokens, chain),
        api_audiences,
    };
    setup::register_reviews(
        &state.store.registry,
        &config.api_domain,
        Arc::clone(&bearer.tokens),
        bearer.api_audiences.clone(),
    );
    Ok(bearer)
}

/// The anonymous fallback: the configuration file's `anonymous` section
/// when it has one, else `--anonymous-auth`.
pub(crate) fn anonymous(
    config: &Config,
    authentication: Option<&Configured>,
) -> Option<Arc<dyn Authenticator>> {
    match authentication.and_then(|a| a.anonymous.as_ref()) {
        Some(section) => section.enabled.then(|| {
            Arc::new(Anonymous::new(section.conditions.clone())) as Arc<dyn Authenticator>
        }),
        None => setup::anonymous_by_flag(config),
    }
}

/// The secure port's authenticators, in kube-apiserver's order: the
/// front proxy's headers (with `--requestheader-client-ca-file`), client
/// certificates, bearer tokens (one cached union), then anonymous as the
/// fallback.
fn secure_authenticators(
    config: &Config,
    serving: &tls::Serving,
    bearer: &BearerTokens,
    anonymous: Option<Arc<dyn Authenticator>>,
) -> Result<Authenticators, String> {
    let mut chain: Vec<Arc<dyn Authenticator>> = Vec::new();
    if let Some(request_header) = config.request_header.load()? {
        chain.push(Arc::new(FrontProxy::new(&request_header)?));
    }
    let x509 = ClientCertificates::new(&serving.client_cas)
        .map_err(|e| format!("--client-ca-file: {e}"))?;
    let tokens = Bearer::new(Arc::clone(&bearer.tokens), bearer.api_audiences.clone());
    chain.push(Arc::new(x509));
    chain.push(Arc::new(tokens));
    Ok(Authenticators::new(chain, anonymous))
}

/// The HTTPS port (TLS material made or loaded, the admin kubeconfig
/// written) and the plain-HTTP port, as configured.
pub(crate) async fn endpoints(
    config: &Config,
    bearer: &BearerTokens,
    anonymous: Option<Arc<dyn Authenticator>>,
    authorization: &Authorization,
) -> Result<Vec<Endpoint>, String> {
    let mut endpoints = Vec::new();
    if config.secure_port != 0 {
        let serving = tls::serving(config).map_err(|e| e.to_string())?;
        let listener = listen(config.bind_address, config.secure_port).await?;
        let bound = listener.local_addr().map_err(|e| e.to_string())?;
        *config.bound.lock() = Some(bound);
        if config.client_ca_file.is_none() {
            let url = format!("https://127.0.0.1:{}", bound.port());
            kubeconfig::ensure(
                &config.data_dir,
                &serving.cluster_ca,
                &url,
                serving.generated_serving,
            )
            .map_err(|e| format!("admin kubeconfig: {e}"))?;
        }
        let authenticators = secure_authenticators(config, &serving, bearer, anonymous)?;
        let pipeline = Arc::new(Pipeline::secure_port(
            authenticators,
            Arc::clone(&authorization.authorizers),
        ));
        tracing::info!(address = %bound, "serving HTTPS");
        endpoints.push(Endpoint {
            listener,
            tls: Some(TlsAcceptor::from(Arc::clone(&serving.config))),
            pipeline,
        });
    }
    if config.insecure_port != 0 {
        let listener = listen(config.insecure_bind_address, config.insecure_port).await?;
        let bound = listener.local_addr().map_err(|e| e.to_string())?;
        if config.secure_port == 0 {
            *config.bound.lock() = Some(bound);
        }
        tracing::warn!(
            address = %bound,
            "serving plain HTTP on http://{bound}: every request on this port acts as user system:admin in group system:masters (local use only)"
        );
        endpoints.push(Endpoint {
            listener,
            tls: None,
            pipeline: Arc::new(Pipeline::insecure_port()),
        });
    }
    if endpoints.is_empty() {
        return Err("--secure-port and --insecure-port are both 0: nothing to serve".into());
    }
    Ok(endpoints)
}
