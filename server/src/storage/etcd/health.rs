//! The backend's health from a background probe, so the readiness check
//! never waits on the network: every second a bounded read of one key,
//! its outcome kept for `health()`. The probe also learns etcd's version,
//! for what depends on it (ordered progress notifications).

use std::sync::atomic::{AtomicBool, Ordering};

use std::sync::{Arc, Weak};
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::watch;

use super::proto::{KV, MAINTENANCE, RangeRequest, RangeResponse, StatusRequest, StatusResponse};
use crate::storage::grpc::GrpcClient;

const EVERY: Duration = Duration::from_secs(1);
/// kube-apiserver's `--etcd-healthcheck-timeout` default.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// The last probe's outcome.
pub struct Probe {
    last: Mutex<Result<(), String>>,
    /// Whether the etcd reached orders requested progress notifications
    /// after the events before them (see `orders_progress`).
    pub ordered_progress: Arc<AtomicBool>,
}

impl Probe {
    /// Unknown until the first probe answers.
    pub fn new() -> Arc<Probe> {
        Arc::new(Probe {
            last: Mutex::new(Err("etcd has not been reached yet".into())),
            ordered_progress: Arc::new(AtomicBool::new(false)),
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
        let mut version: Option<String> = None;
        loop {
            if version.is_none() {
                version = learn_version(&client).await;
                if let (Some(v), Some(probe)) = (&version, probe.upgrade()) {
                    let ordered = orders_progress(v);
                    probe.ordered_progress.store(ordered, Ordering::Release);
                    tracing::info!(version = %v, ordered_progress = ordered, "etcd reached");
                }
            }
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

/// The version of the etcd member answering, when it answers in time.
async fn learn_version(client: &GrpcClient) -> Option<String> {
    let call = client.call::<_, StatusResponse>(MAINTENANCE, "Status", &StatusRequest {});
    match tokio::time::timeout(PROBE_TIMEOUT, call).await {
        Ok(Ok(status)) => Some(status.version),
        _ => None,
    }
}

/// Whether etcd `version` sends a requested progress notification only
/// after every event before its revision (etcd-io/etcd#15220, and #17557
/// for watches with no events: fixed in 3.4.31 and 3.5.13, the versions
/// kube-apiserver asks for before it serves consistent lists from its
/// cache). Earlier ones may let it overtake events still to be sent.
pub fn orders_progress(version: &str) -> bool {
    let mut parts = version
        .trim_start_matches('v')
        .split(['.', '-', '+'])
        .map(|p| p.parse::<u64>().ok());
    let (Some(Some(major)), Some(Some(minor)), Some(Some(patch))) =
        (parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    match (major, minor) {
        (3, 4) => patch >= 31,
        (3, 5) => patch >= 13,
        (3, m) => m >= 6,
        (m, _) => m > 3,
    }
}

#[cfg(test)]
mod tests {
    use super::orders_progress;

    #[test]
    fn progress_is_ordered_from_the_fixed_releases_on() {
        for (version, ordered) in [
            ("3.4.23", false),
            ("3.4.30", false),
            ("3.4.31", true),
            ("3.5.12", false),
            ("3.5.13", true),
            ("3.6.0", true),
            ("3.6.0-rc.1", true),
            ("v3.5.17", true),
            ("3.3.27", false),
            ("4.0.0", true),
            ("", false),
            ("garbage", false),
        ] {
            assert_eq!(orders_progress(version), ordered, "{version}");
        }
    }
}
