//! Periodic compaction, like kube-apiserver's `--etcd-compaction-interval`:
//! every interval, history older than one interval is compacted away.

use std::sync::Arc;

use crate::app::AppState;

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
        match state.store.compact_older_than(interval) {
            Ok(Some(revision)) => tracing::info!(revision = revision.get(), "compacted history"),
            Ok(None) => {}
            Err(e) => tracing::error!(error = %e, "compaction failed"),
        }
    }
}
