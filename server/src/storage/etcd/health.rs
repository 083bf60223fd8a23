//! The backend's health from a background probe, so the readiness check
//! never waits on the network: every second a bounded read of one key,
//! its outcome kept for `health()`.

use std::sync::{Arc, Weak};
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::watch;

use super::proto::{KV, RangeRequest, RangeResponse};
use crate::storage::grpc::GrpcClient;

const EVERY: Duration = Duration::from_secs(1);
/// kube-apiserver's `--etcd-healthcheck-timeout` default.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// The last probe's outcome.
pub struct Probe {
    last: Mutex<Result<(), String>>,
}

impl Probe {
    /// Unknown until the first probe answers.
    pub fn new() -> Arc<Probe> {
        Arc::new(Probe {
            last: Mutex::new(Err("etcd has not been reached yet".into())),
        })
    }

    pub fn last(&self) -> Result<(), String> {
        self.last.lock().clone()
    }

    /// Probes until `closed` flips or the probe is dropped.
    pub async fn run(
        probe: Weak<Probe>,
        client: Arc<GrpcClient>,
        mut closed: watch::Receiver<bool>,
    ) {
        let request = RangeRequest {
            key: b"health".to_vec(),
            count_only: true,
            ..RangeRequest::default()
        };
        loop {
            let call = client.call::<_, RangeResponse>(KV, "Range", &request);
            let outcome = match tokio::time::timeout(PROBE_TIMEOUT, call).await {
                Ok(Ok(_)) => Ok(()),
                Ok(Err(e)) => Err(format!("etcd: {e}")),
                Err(_) => Err("etcd: the health probe timed out".into()),
            };
            match probe.upgrade() {
                Some(probe) => *probe.last.lock() = outcome,
                None => return,
            }
            tokio::select! {
                () = tokio::time::sleep(EVERY) => {}
                _ = closed.wait_for(|c| *c) => return,
            }
        }
    }
}
