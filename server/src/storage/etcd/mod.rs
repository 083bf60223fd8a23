//! etcd v3 as a storage backend (`--etcd-servers`): the `Storage` trait over
//! etcd's gRPC API, in kube-apiserver's key layout and transaction shapes.
//! Revisions are etcd's; TTL keys share leases as kube-apiserver's do;
//! compaction follows the `compact_rev_key` protocol; health comes from a
//! background probe; each watch is its own etcd Watch stream.

mod compact;
mod convert;
mod errors;
mod health;
mod keys;
mod lease;
mod proto;
mod store;
#[cfg(test)]
mod tests;
mod tls;
mod watch;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch as signal;

use crate::storage::grpc::{Endpoint, GrpcClient, Transport};

/// How long one call to etcd may take before it is a timeout (504).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The `--etcd-*` settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EtcdOptions {
    /// `--etcd-servers`: `http(s)://host:port`, tried in order.
    pub servers: Vec<String>,
    /// `--etcd-prefix`.
    pub prefix: String,
    pub ca_file: Option<PathBuf>,
    pub cert_file: Option<PathBuf>,
    pub key_file: Option<PathBuf>,
}

/// The backend; see the module docs.
pub struct Etcd {
    client: Arc<GrpcClient>,
    keys: keys::Keys,
    leases: lease::Leases,
    compactor: compact::Compactor,
    probe: Arc<health::Probe>,
    /// Flips to `true` on `close`: the probe and every watch end.
    closed: signal::Sender<bool>,
}

impl Etcd {
    /// Checks the settings without connecting: one line naming the flag.
    pub fn check(options: &EtcdOptions) -> Result<(), String> {
        prepare(options).map(|_| ())
    }

    /// Checks the settings and starts the health probe; connects lazily.
    /// Must run inside a tokio runtime. Errors are one line naming the flag.
    pub fn start(options: &EtcdOptions) -> Result<Arc<Etcd>, String> {
        let (endpoints, tls) = prepare(options)?;
        let client = Arc::new(GrpcClient::new(
            Transport::Tcp { endpoints, tls },
            REQUEST_TIMEOUT,
        ));
        let (closed, closed_rx) = signal::channel(false);
        let probe = health::Probe::new();
        tokio::spawn(health::Probe::run(
            Arc::downgrade(&probe),
            Arc::clone(&client),
            closed_rx,
        ));
        Ok(Arc::new(Etcd {
            client,
            keys: keys::Keys::new(&options.prefix),
            leases: lease::Leases::default(),
            compactor: compact::Compactor::default(),
            probe,
            closed,
        }))
    }

    /// Waits until etcd answers the probe, at most `patience`.
    pub async fn wait_healthy(&self, patience: Duration) -> Result<(), String> {
        let deadline = tokio::time::Instant::now() + patience;
        loop {
            let last = self.probe.last();
            if last.is_ok() || tokio::time::Instant::now() >= deadline {
                return last;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// The endpoints and TLS configuration the settings describe.
fn prepare(
    options: &EtcdOptions,
) -> Result<(Vec<Endpoint>, Option<Arc<rustls::ClientConfig>>), String> {
    if options.servers.is_empty() {
        return Err("--etcd-servers: at least one server is required".into());
    }
    let endpoints = options
        .servers
        .iter()
        .map(|s| Endpoint::parse(s.trim()).map_err(|e| format!("--etcd-servers: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    if !options.prefix.starts_with('/') {
        return Err(format!(
            "--etcd-prefix: {:?} must start with \"/\"",
            options.prefix
        ));
    }
    let wants_tls = endpoints.iter().any(|e| e.tls)
        || options.ca_file.is_some()
        || options.cert_file.is_some()
        || options.key_file.is_some();
    let tls = if wants_tls {
        Some(Arc::new(tls::client_config(
            options.ca_file.as_deref(),
            options.cert_file.as_deref(),
            options.key_file.as_deref(),
        )?))
    } else {
        None
    };
    Ok((endpoints, tls))
}
