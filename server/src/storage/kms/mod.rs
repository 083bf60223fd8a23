//! KMS v2 providers of encryption at rest, as Kubernetes 1.32 runs them: a
//! seed per server start (and per key-id change) wrapped once by the
//! plugin's Encrypt over gRPC on a unix socket; every write seals locally
//! under a key derived from that seed; reads unwrap other starts' seeds with
//! the plugin's Decrypt, once each. The plugin's Status drives health.
//!
//! All plugin I/O runs on the provider's own one-thread runtime, so the
//! synchronous `Transformer` can wait for it from anywhere (a tokio worker
//! included) without deadlocking, and never longer than the timeout.

mod cache;
mod envelope;
mod proto;
mod provider;
mod seal;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use cairn_transform::{Error, Plain};

use crate::storage::grpc::{GrpcClient, Transport};
use provider::Provider;
pub use provider::Timing;

/// A `kms` provider with `apiVersion: v2`, as the configuration names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KmsSpec {
    /// `name`: unique among the configuration's KMS providers.
    pub name: String,
    /// `endpoint`: `unix:///path/to/socket`.
    pub endpoint: String,
    /// `timeout` (default 3 s).
    pub timeout: Duration,
}

/// A connected KMS v2 provider: a `cairn_transform::Transformer` for the
/// values of the resources it covers, and the health of its plugin.
pub struct KmsV2 {
    spec: KmsSpec,
    provider: Arc<Provider>,
    /// Where the plugin's calls run; shut down with the provider.
    runtime: Option<tokio::runtime::Runtime>,
}

impl KmsV2 {
    /// Connects to the plugin named by `spec` and obtains this start's
    /// data-encryption key. As in Kubernetes, a plugin that is down or
    /// unhealthy does not stop the start: the provider keeps asking (every
    /// 10 s), `health()` says why, and values cannot be written or read
    /// until it answers. Only a malformed endpoint is an error.
    pub async fn connect(spec: &KmsSpec) -> Result<Arc<KmsV2>, String> {
        KmsV2::connect_with(spec, Timing::KUBERNETES).await
    }

    /// `connect` with other intervals than kube-apiserver's.
    pub async fn connect_with(spec: &KmsSpec, timing: Timing) -> Result<Arc<KmsV2>, String> {
        let socket = socket_path(&spec.endpoint)
            .map_err(|e| format!("kms provider {:?}: {e}", spec.name))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name(format!("kms-{}", spec.name))
            .enable_io()
            .enable_time()
            .build()
            .map_err(|e| {
                format!(
                    "kms provider {:?}: cannot start its runtime: {e}",
                    spec.name
                )
            })?;
        let client = GrpcClient::new(Transport::Unix(socket), spec.timeout);
        let provider = Arc::new(Provider::new(&spec.name, client, spec.timeout, timing));
        let first = runtime.spawn(Arc::clone(&provider).probe()).await;
        match first {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                tracing::warn!(provider = %spec.name, error = %e, "KMS v2 plugin failed its first health check; retrying");
            }
            Err(e) => return Err(format!("kms provider {:?}: {e}", spec.name)),
        }
        runtime.spawn(Arc::clone(&provider).poll());
        Ok(Arc::new(KmsV2 {
            spec: spec.clone(),
            provider,
            runtime: Some(runtime),
        }))
    }

    /// The provider's `name`.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// The prefix of the values this provider writes.
    #[must_use]
    pub fn prefix(&self) -> &[u8] {
        &self.provider.prefix
    }

    /// The plugin's health (the `kms-providers` check of /readyz and
    /// /healthz): the latest Status verdict while it holds (20 s healthy,
    /// 3 s not), else a new Status call, waited for at most the timeout.
    pub fn health(&self) -> Result<(), String> {
        if let Some(verdict) = self.provider.fresh_health() {
            return verdict;
        }
        // A probe may also wrap a new seed: Status and Encrypt, each bounded.
        let limit = self.spec.timeout * 2 + Duration::from_millis(500);
        self.wait(Arc::clone(&self.provider).probe(), limit, "status check")
    }

    /// Asks the plugin for its status now (for callers on a runtime that
    /// would rather await than block).
    pub async fn check(&self) -> Result<(), String> {
        let handle = self.runtime_handle()?;
        handle
            .spawn(Arc::clone(&self.provider).probe())
            .await
            .map_err(|e| {
                format!(
                    "kms provider {:?}: status check failed: {e}",
                    self.spec.name
                )
            })?
    }

    /// How many unwrapped DEK sources this provider holds.
    #[must_use]
    pub fn cached_deks(&self) -> usize {
        self.provider.cache.len()
    }

    fn runtime_handle(&self) -> Result<tokio::runtime::Handle, String> {
        self.runtime
            .as_ref()
            .map(|r| r.handle().clone())
            .ok_or_else(|| format!("kms provider {:?} is shut down", self.spec.name))
    }

    /// Runs `work` on the provider's runtime and waits for it, at most
    /// `limit`. Inside a multi-threaded tokio runtime the wait tells tokio
    /// this worker blocks, so its other tasks move elsewhere.
    fn wait<T: Send + 'static>(
        &self,
        work: impl Future<Output = Result<T, String>> + Send + 'static,
        limit: Duration,
        what: &str,
    ) -> Result<T, String> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.runtime_handle()?.spawn(async move {
            let _ = tx.send(work.await);
        });
        let receive = || rx.recv_timeout(limit);
        let received = match tokio::runtime::Handle::try_current() {
            Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(receive)
            }
            _ => receive(),
        };
        match received {
            Ok(result) => result,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                Err(format!("{what} did not finish within {limit:?}"))
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(format!(
                "{what} was abandoned: the provider is shutting down"
            )),
        }
    }

    fn fail(&self, step: &str, why: String) -> Error {
        Error::new(format!("kms provider {:?}: {step}: {why}", self.spec.name))
    }
}

impl Drop for KmsV2 {
    fn drop(&mut self) {
        // Dropping a runtime may happen inside another one: do not block.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl cairn_transform::Transformer for KmsV2 {
    fn transform_to_storage<'a>(
        &self,
        key: &[u8],
        plain: &'a [u8],
    ) -> Result<Cow<'a, [u8]>, Error> {
        let state = self
            .provider
            .current_state()
            .map_err(|e| self.fail("encrypt", e))?;
        state
            .check_writable()
            .map_err(|e| self.fail("encrypt", e))?;
        let stored = state
            .seal(&self.provider.prefix, key, plain)
            .map_err(|e| self.fail("encrypt", e))?;
        Ok(Cow::Owned(stored))
    }

    fn transform_from_storage<'a>(&self, key: &[u8], stored: &'a [u8]) -> Result<Plain<'a>, Error> {
        let (mut object, source_type) =
            envelope::parse(&self.provider.prefix, stored).map_err(|e| self.fail("decode", e))?;
        let state = self
            .provider
            .current_state()
            .map_err(|e| self.fail("decrypt", e))?;
        let dek_key = cache::cache_key(
            source_type,
            &object.encrypted_dek_source,
            &object.key_id,
            &object.annotations,
        );
        let sealed = std::mem::take(&mut object.encrypted_data);
        let stale = object.key_id != state.key_id || source_type != state.source_type;
        let dek = match self.provider.known_dek(&state, &dek_key) {
            Some(dek) => dek,
            None => {
                let unwrap = Arc::clone(&self.provider).unwrap_dek(object, source_type, dek_key);
                let limit = self.spec.timeout + Duration::from_millis(500);
                self.wait(unwrap, limit, "Decrypt")
                    .map_err(|e| self.fail("decrypt", e))?
            }
        };
        let value = dek
            .open(key, &sealed)
            .map_err(|e| self.fail("decrypt", e))?;
        Ok(Plain {
            value: Cow::Owned(value),
            stale,
        })
    }
}

/// The socket path of a `unix:///path` endpoint.
fn socket_path(endpoint: &str) -> Result<PathBuf, String> {
    let Some(path) = endpoint.strip_prefix("unix://") else {
        let scheme = endpoint.split_once("://").map_or("", |(s, _)| s);
        return Err(format!(
            "invalid endpoint {endpoint:?} for remote KMS provider, error: unsupported scheme {scheme:?} for remote KMS provider"
        ));
    };
    if path.is_empty() {
        return Err(format!(
            "invalid endpoint {endpoint:?} for remote KMS provider, error: path is not specified"
        ));
    }
    Ok(PathBuf::from(path))
}
