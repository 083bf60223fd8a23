//! Periodic compaction, like kube-apiserver's `--etcd-compaction-interval`:
//! every interval, the history older than the revision seen one interval
//! ago is compacted away. Only revisions and the backend's status are
//! needed, so it works the same on any backend.

use std::sync::Arc;

use crate::http::AppState;
use crate::storage::Revision;

/// Runs until the server stops.
pub async fn run(state: Arc<AppState>) {
    let interval = state.config.compaction_interval;
    if interval.is_zero() {
        return;
    }
    let storage = &state.store.storage;
    let mut shutdown = state.shutdown.clone();
    // The revision current one interval ago: the next compaction point.
    let mut previous: Option<Revision> = storage.current_revision().await.ok();
    loop {
        tokio::select! {
            () = tokio::time::sleep(interval) => {}
            _ = shutdown.changed() => return,
        }
        let status = match storage.status().await {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the storage status; compaction skipped");
                continue;
            }
        };
        if let Some(target) = previous.filter(|&t| t > status.compacted_revision) {
            match storage.compact(target).await {
                Ok(()) => tracing::info!(revision = target.get(), "compacted history"),
                Err(e) => tracing::error!(error = %e, "compaction failed"),
            }
        }
        previous = Some(status.current_revision);
    }
}
