//! Start-up and shutdown: open storage, build the registry, run the
//! post-start hooks and controllers, serve until SIGTERM/SIGINT, then drain.

use std::sync::Arc;

use cairn_transform::Transformers;
use tokio::sync::watch;

use crate::api::kinds;
use crate::api::store::Store;
use crate::app_admission::admission_chain;
use crate::app_serving::{anonymous, bearer_tokens, endpoints};
use crate::config::Config;
use crate::controllers;
use crate::http::{self, health::Health, openapi};
use crate::metrics::metered::MeteredStorage;
use crate::metrics::operations::OperationsCollector;
use crate::request::admission::configuration::AdmissionSettings;
use crate::request::audit::Auditor;
use crate::request::authn::jwt;
use crate::request::authn::service_account::TokenIssuer;
use crate::request::authz::configured as authz_configured;
use crate::request::authz::reviews;
use crate::request::authz::setup as authz_setup;
use crate::request::overload::Overload;
use crate::storage::Storage;
use crate::storage::encryption::{Encryption, KMS_CHECK};
use crate::storage::transform::TransformingStorage;

/// How often `apiserver_storage_objects` and `apiserver_storage_size_bytes`
/// are refreshed.
const STORAGE_COUNT_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// `storage_cluster_id` of the embedded store: a stable FNV-1a hash of its
/// data directory (etcd reports its cluster ID there).
fn storage_cluster_id(config: &Config) -> String {
    let dir = std::fs::canonicalize(&config.data_dir).unwrap_or_else(|_| config.data_dir.clone());
    let hash = dir
        .to_string_lossy()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    format!("{hash:016x}")
}

const HOOKS: [&str; 8] = [
    "bootstrap-namespaces",
    controllers::rbac::HOOK,
    controllers::flowcontrol::HOOK,
    controllers::priority_classes::HOOK,
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
    /// The in-flight limits and request time limits.
    pub overload: Overload,
    /// Signs service-account tokens (TokenRequest) and publishes the
    /// issuer's discovery documents.
    pub token_issuer: Arc<TokenIssuer>,
    /// The audit policy and log, when `--audit-policy-file` and
    /// `--audit-log-path` are both given.
    pub auditor: Option<Arc<Auditor>>,
    /// The group versions extension API servers serve (APIServices that
    /// name a service), kept by the APIService controller.
    pub aggregated: Arc<crate::api::proxy::aggregated::Routes>,
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

/// Runs the server until a stop signal; returns an error line on failure.
pub async fn run(config: Config) -> Result<(), String> {
    let config = Arc::new(config);
    config.feature_gates.log_warnings();
    kinds::versions::enablement(&config)?;
    crate::metrics::install(config.show_hidden_metrics);
    // Read first: invalid flags, keys, --authentication-config or
    // --authorization-config (and its webhooks' kubeconfigs) stop the
    // start before anything is written.
    authz_configured::check(&config.authorization, &config.api_domain)?;
    let admission_settings = AdmissionSettings::load(&config.admission, &config.api_domain)?;
    crate::storage::backend::check(&config)?;
    config.leader_election.check()?;
    config.proxy_client.load()?;
    config.cluster_signing.load()?;
    let auditor = Auditor::from_config(&config)?;
    let tracing_settings = match &config.tracing_config_file {
        Some(path) => Some(crate::config::tracing::load(path, &config.api_domain)?),
        None => None,
    };
    let encryption = match &config.encryption.encryption_provider_config {
        Some(path) => Some(Arc::new(Encryption::load(path, &config.api_domain).await?)),
        None => None,
    };
    let authentication = jwt::startup::from_config(
        &config,
        config.service_accounts.api_audiences.clone(),
        config.service_accounts.issuers.clone(),
    )?;
    let token_issuer = TokenIssuer::load(&config.service_accounts, &config.data_dir)?;
    if let Some(settings) = &tracing_settings {
        crate::trace::install(settings)?;
    }
    let opened = crate::storage::backend::open(&config).await?;
    let backend = opened.storage;
    // Backend latency as kube's etcd request metrics (and spans), below
    // encryption.
    let backend: Arc<dyn Storage> = Arc::new(MeteredStorage::new(
        backend,
        &crate::metrics::global().storage,
        opened.name,
    ));
    // Above the metrics, which count only what reaches etcd; below
    // encryption, so the cache holds values as they are stored.
    let backend = crate::storage::backend::cached(&config, opened.readiness.is_some(), backend);
    let storage: Arc<dyn Storage> = Arc::new(match &encryption {
        Some(e) => TransformingStorage::shared(backend, e.transformers()),
        None => TransformingStorage::new(backend, Transformers::identity()),
    });
    let registry = Arc::new(kinds::builtin(&config));
    let (stop_tx, stop_rx) = watch::channel(false);
    let authorization = authz_setup::authorization(&config, &storage, &registry, &stop_rx).await?;
    reviews::register(
        &registry,
        &config.api_domain,
        Arc::clone(&authorization.authorizers),
    );
    let admission = Arc::new(admission_chain(
        &storage,
        &registry,
        Some(&authorization),
        &config.api_domain,
        &admission_settings,
        Some(&stop_rx),
    ));
    let health = Arc::new(Health::new(config.livez_grace_period, &HOOKS));
    if let Some((name, backend)) = opened.readiness {
        health.add_check(name, Box::new(move || backend.health()));
    }
    if let Some(e) = encryption.as_ref().filter(|e| e.has_kms()) {
        let e = Arc::clone(e);
        health.add_check(KMS_CHECK, Box::new(move || e.kms_health()));
    }
    if let Some(e) = encryption
        .as_ref()
        .filter(|_| config.encryption.automatic_reload())
    {
        Arc::clone(e).spawn_reload(stop_rx.clone());
    }
    let state = Arc::new(AppState {
        store: Store::new(Arc::clone(&storage), registry, admission)
            .with_authorizers(Arc::clone(&authorization.authorizers)),
        config: Arc::clone(&config),
        health: Arc::clone(&health),
        shutdown: stop_rx.clone(),
        openapi: Default::default(),
        overload: Overload::new(&config.overload),
        token_issuer,
        auditor: auditor.clone(),
        aggregated: Arc::default(),
    });
    crate::metrics::global().register_collector(Box::new(OperationsCollector {
        registry: Arc::clone(&state.store.registry),
        inflight: Arc::clone(&state.overload.inflight),
        auditor: auditor.clone(),
        watch_lag: Arc::clone(&state.store.watch_lag),
    }));
    let bearer = bearer_tokens(&config, &state, authentication.as_ref())?;
    let endpoints = endpoints(
        &config,
        &bearer,
        anonymous(&config, authentication.as_ref()),
        &authorization,
    )
    .await?;

    controllers::namespace::bootstrap(&state.store)
        .await
        .map_err(|e| format!("bootstrap of namespaces failed: {e}"))?;
    health.hook_done("bootstrap-namespaces");
    controllers::kubernetes_service::recover_allocations(&state.store)
        .await
        .map_err(|e| format!("reading the stored services failed: {e}"))?;
    let kubernetes_service = tokio::spawn(controllers::kubernetes_service::run(Arc::clone(&state)));
    let kubernetes_endpoints =
        tokio::spawn(controllers::kubernetes_endpoints::run(Arc::clone(&state)));
    // The cluster CA exists before the controllers that read it (the
    // published client CA, the CSR signer) start, also when no HTTPS port
    // made it: one CA, and no ConfigMap rewritten once it appears.
    if let Err(e) = crate::tls::pki::ClusterCa::load_or_create(&state.config.data_dir) {
        tracing::warn!(error = %e, "no cluster CA in the data directory");
    }
    let extension_auth = tokio::spawn(controllers::extension_auth::run(Arc::clone(&state)));
    let storage_counts = tokio::spawn(crate::metrics::storage::track(
        &crate::metrics::global().storage,
        Arc::clone(&state.store.storage),
        Arc::clone(&state.store.registry),
        storage_cluster_id(&config),
        STORAGE_COUNT_EVERY,
        stop_rx.clone(),
    ));
    let election = controllers::leader_election::start(&state);
    let (leading, elector) = election.map_or((None, None), |(l, e)| (Some(l), Some(e)));
    let singletons = tokio::spawn(controllers::singletons::run(Arc::clone(&state), leading));
    health.hook_done("start-namespace-controller");
    let crds = controllers::crd::Controller::start(&state.store, &config.api_domain)
        .await
        .map_err(|e| format!("listing CustomResourceDefinitions failed: {e}"))?;
    let crd_controller = tokio::spawn(crds.run(Arc::clone(&state)));
    health.hook_done("start-apiextensions-controllers");
    health.hook_done("start-garbage-collector");
    health.hook_done("start-compaction");
    let rbac_bootstrap = tokio::spawn(controllers::rbac::reconcile::run(
        Arc::clone(&state),
        authorization.rbac.clone(),
    ));
    let flowcontrol = tokio::spawn(controllers::flowcontrol::run(Arc::clone(&state)));
    let flowcontrol_status = tokio::spawn(controllers::flowcontrol_status::run(Arc::clone(&state)));
    let priority_classes = tokio::spawn(controllers::priority_classes::run(Arc::clone(&state)));
    // Another API server on the same etcd may write them at the same
    // time: what fails here the controller retries.
    if let Err(e) = controllers::api_services::bootstrap(&state).await {
        tracing::warn!(error = %e, "creating the local APIServices failed; the controller retries");
    }
    let api_services = tokio::spawn(controllers::api_services::run(Arc::clone(&state)));

    let servers: Vec<_> = endpoints
        .into_iter()
        .map(|e| tokio::spawn(http::serve(Arc::clone(&state), e, stop_rx.clone())))
        .collect();
    // Serving while the default policy is written (readyz says so), but
    // "started" only once every hook has run; a stop signal meanwhile is
    // honoured (the hook retries for as long as storage refuses it).
    let stop = stop_signal();
    tokio::pin!(stop);
    let stopped_early = tokio::select! {
        _ = rbac_bootstrap => false,
        () = &mut stop => true,
    };
    if !stopped_early {
        tracing::info!(data_dir = %config.data_dir.display(), api_domain = %config.api_domain, "cairn-apiserver started");
        stop.await;
    }
    tracing::info!(delay = ?config.shutdown_delay, "shutting down: readyz now fails");
    health.begin_shutdown();
    tokio::time::sleep(config.shutdown_delay).await;
    let _ = stop_tx.send(true);
    for s in servers {
        let _ = s.await;
    }
    let _ = singletons.await;
    if let Some(elector) = elector {
        let _ = elector.await;
    }
    let _ = storage_counts.await;
    let _ = crd_controller.await;
    let _ = flowcontrol.await;
    let _ = flowcontrol_status.await;
    let _ = kubernetes_service.await;
    let _ = kubernetes_endpoints.await;
    let _ = extension_auth.await;
    let _ = priority_classes.await;
    let _ = api_services.await;
    storage.close();
    if let Some(auditor) = &auditor {
        auditor.close();
    }
    let _ = tokio::task::spawn_blocking(crate::trace::shutdown).await;
    tracing::info!("stopped");
    Ok(())
}
