//! Which backend a server runs on: etcd when `--etcd-servers` is given
//! (the embedded store is then not opened), else the embedded engine in
//! `--data-dir`, with its metrics collector.

use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use crate::storage::cache::WatchCache;
use crate::storage::embedded::Embedded;
use crate::storage::embedded::metrics::EngineCollector;
use crate::storage::etcd::Etcd;
use crate::storage::{KeyRange, Storage};

/// The readiness check of an etcd backend, as kube-apiserver names it.
pub const ETCD_CHECK: &str = "etcd";

/// How long start-up waits for etcd to answer before going on (requests
/// then fail with 503 until it does, as they do when it goes away later).
const ETCD_START_PATIENCE: Duration = Duration::from_secs(30);

/// The opened backend.
pub struct Backend {
    pub storage: Arc<dyn Storage>,
    /// How spans name it (`Create etcd3`, as kube-apiserver's).
    pub name: &'static str,
    /// Set for etcd: the `/readyz` check it adds.
    pub readiness: Option<(&'static str, Arc<dyn Storage>)>,
}

/// Checks the backend's settings before anything is written.
pub fn check(config: &Config) -> Result<(), String> {
    match config.etcd.options() {
        Some(options) => Etcd::check(&options),
        None => Ok(()),
    }
}

/// Opens the configured backend; errors are one line naming the flag or
/// directory.
pub async fn open(config: &Config) -> Result<Backend, String> {
    if let Some(options) = config.etcd.options() {
        let etcd = Etcd::start(&options)?;
        if let Err(e) = etcd.wait_healthy(ETCD_START_PATIENCE).await {
            tracing::warn!(error = %e, servers = ?options.servers, "etcd does not answer yet");
        }
        let storage: Arc<dyn Storage> = etcd;
        return Ok(Backend {
            name: "etcd3",
            readiness: Some((ETCD_CHECK, Arc::clone(&storage))),
            storage,
        });
    }
    let embedded = Arc::new(
        Embedded::open(&config.data_dir)
            .map_err(|e| format!("cannot open the data directory: {e}"))?,
    );
    let engine_figures = Arc::clone(&embedded);
    crate::metrics::global().register_collector(Box::new(EngineCollector::new(move || {
        engine_figures.figures()
    })));
    Ok(Backend {
        storage: embedded,
        name: "embedded",
        readiness: None,
    })
}

/// `backend` behind the watch cache when it is etcd and `--watch-cache` is
/// on: the cache holds every API object (`/registry/`).
pub fn cached(config: &Config, networked: bool, backend: Arc<dyn Storage>) -> Arc<dyn Storage> {
    if !networked || !config.etcd.watch_cache {
        return backend;
    }
    WatchCache::start(backend, KeyRange::prefix(b"/registry/"))
}
