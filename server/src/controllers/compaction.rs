//! Periodic compaction, like kube-apiserver's `--etcd-compaction-interval`:
//! every interval, history older than one interval is compacted away.

use std::sync::Arc;
use std::time::SystemTime;

use crate::http::AppState;

/// Runs until the server stops.
pub async fn run(state: Arc<AppState>) {
    let interval = state.config.compaction_interval;
    if interval.is_zero() {
        return;
    }
    let mut shutdown = state.shutdown.clone();
    loop {
        tokio::select! {
            () = tokio::time::sleep(interval) => {}
            _ = shutdown.changed() => return,
        }
        let storage = &state.store.storage;
        let Some(target) = SystemTime::now()
            .checked_sub(interval)
            .and_then(|t| storage.revision_at(t))
        else {
            continue;
        };
        if target > storage.compacted_revision() {
            match storage.compact(target) {
                Ok(()) => tracing::info!(revision = target.get(), "compacted history"),
                Err(e) => tracing::error!(error = %e, "compaction failed"),
            }
        }
    }
}
