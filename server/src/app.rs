//! Start-up and shutdown: open storage, build the registry, run the
//! post-start hooks and controllers, serve until SIGTERM/SIGINT, then drain.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use cairn_transform::Transformers;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;

use crate::api::kinds;
use crate::api::registry::Registry;
use crate::api::store::Store;
use crate::config::Config;
use crate::controllers;
use crate::http::{self, Endpoint, health::Health, openapi};
use crate::request::Pipeline;
use crate::request::admission::{self, namespace_lifecycle::NamespaceLifecycle};
use crate::request::authn::jwt::{self, JwtAuthenticators};
use crate::request::authn::token::{Bearer, TokenAuthenticator, Tokens};
use crate::request::authn::x509::ClientCertificates;
use crate::request::authn::{Authenticator, Authenticators};
use crate::storage::Storage;
use crate::storage::embedded::Embedded;
use crate::storage::transform::TransformingStorage;
use crate::tls::{self, kubeconfig};

const HOOKS: [&str; 5] = [
    "bootstrap-namespaces",
    "start-namespace-controller",
    "start-apiextensions-controllers",
    "start-garbage-collector",
    "start-compaction",
];

/// The application's state: what request handlers and controllers share.
pub struct AppState {
    pub store: Store,
    pub config: Arc<Config>,
    pub health: Arc<Health>,
    /// Flips to `true` when the server stops: watches and controllers end on it.
    pub shutdown: watch::Receiver<bool>,
    /// `/openapi/v2` and `/openapi/v3`, cached per registry generation.
    pub openapi: openapi::Documents,
}

/// The admission plugins every write passes, in order.
#[must_use]
pub fn admission_chain(storage: &Arc<dyn Storage>, registry: &Registry) -> admission::Chain {
    let namespaces = registry
        .lookup("", "v1", "namespaces")
        .expect("namespaces are built in");
    let lifecycle = Arc::new(NamespaceLifecycle::new(Arc::clone(storage), namespaces));
    admission::Chain::new(Vec::new(), vec![lifecycle])
}

/// Resolves when the process is asked to stop.
async fn stop_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}

async fn listen(ip: IpAddr, port: u16) -> Result<TcpListener, String> {
    let addr = SocketAddr::new(ip, port);
    TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))
}

/// The secure port's authenticators, in kube-apiserver's order: client
/// certificates, then bearer tokens (the JWT issuers of
/// `--authentication-config`).
fn secure_authenticators(
    serving: &tls::Serving,
    jwt: Option<&Arc<JwtAuthenticators>>,
) -> Result<Authenticators, String> {
    let x509 = ClientCertificates::new(&serving.client_cas)
        .map_err(|e| format!("--client-ca-file: {e}"))?;
    let mut chain: Vec<Arc<dyn Authenticator>> = vec![Arc::new(x509)];
    let mut tokens: Vec<Arc<dyn TokenAuthenticator>> = Vec::new();
    if let Some(jwt) = jwt {
        tokens.push(Arc::clone(jwt) as Arc<dyn TokenAuthenticator>);
    }
    if !tokens.is_empty() {
        chain.push(Arc::new(Bearer::new(
            Arc::new(Tokens::new(tokens)),
            Vec::new(),
        )));
    }
    Ok(Authenticators::new(chain, None))
}

/// The HTTPS port (TLS material made or loaded, the admin kubeconfig
/// written) and the plain-HTTP port, as configured.
async fn endpoints(
    config: &Config,
    jwt: Option<&Arc<JwtAuthenticators>>,
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
        let pipeline = Arc::new(Pipeline::secure_port(secure_authenticators(&serving, jwt)?));
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

/// Runs the server until a stop signal; returns an error line on failure.
pub async fn run(config: Config) -> Result<(), String> {
    let config = Arc::new(config);
    // Read first: an invalid --authentication-config stops the start.
    let authentication = jwt::startup::from_config(&config, Vec::new(), Vec::new())?;
    let backend: Arc<dyn Storage> = Arc::new(
        Embedded::open(&config.data_dir)
            .map_err(|e| format!("cannot open the data directory: {e}"))?,
    );
    // Identity everywhere until encryption at rest is configured.
    let storage: Arc<dyn Storage> =
        Arc::new(TransformingStorage::new(backend, Transformers::identity()));
    let registry = Arc::new(kinds::builtin(&config));
    let admission = Arc::new(admission_chain(&storage, &registry));
    let (stop_tx, stop_rx) = watch::channel(false);
    let health = Arc::new(Health::new(config.livez_grace_period, &HOOKS));
    let state = Arc::new(AppState {
        store: Store::new(Arc::clone(&storage), registry, admission),
        config: Arc::clone(&config),
        health: Arc::clone(&health),
        shutdown: stop_rx.clone(),
        openapi: Default::default(),
    });
    let endpoints = endpoints(&config, authentication.as_ref().map(|a| &a.jwt)).await?;

    controllers::namespace::bootstrap(&state.store)
        .await
        .map_err(|e| format!("bootstrap of namespaces failed: {e}"))?;
    health.hook_done("bootstrap-namespaces");
    let namespace_controller = tokio::spawn(controllers::namespace::run(Arc::clone(&state)));
    health.hook_done("start-namespace-controller");
    let crds = controllers::crd::Controller::start(&state.store, &config.api_domain)
        .await
        .map_err(|e| format!("listing CustomResourceDefinitions failed: {e}"))?;
    let crd_controller = tokio::spawn(crds.run(Arc::clone(&state)));
    health.hook_done("start-apiextensions-controllers");
    let garbage_collector = tokio::spawn(controllers::gc::run(Arc::clone(&state)));
    health.hook_done("start-garbage-collector");
    let compactor = tokio::spawn(controllers::compaction::run(Arc::clone(&state)));
    health.hook_done("start-compaction");

    let servers: Vec<_> = endpoints
        .into_iter()
        .map(|e| tokio::spawn(http::serve(Arc::clone(&state), e, stop_rx.clone())))
        .collect();
    tracing::info!(data_dir = %config.data_dir.display(), api_domain = %config.api_domain, "cairn-apiserver started");

    stop_signal().await;
    tracing::info!(delay = ?config.shutdown_delay, "shutting down: readyz now fails");
    health.begin_shutdown();
    tokio::time::sleep(config.shutdown_delay).await;
    let _ = stop_tx.send(true);
    for s in servers {
        let _ = s.await;
    }
    let _ = namespace_controller.await;
    let _ = crd_controller.await;
    let _ = garbage_collector.await;
    let _ = compactor.await;
    storage.close();
    tracing::info!("stopped");
    Ok(())
}
