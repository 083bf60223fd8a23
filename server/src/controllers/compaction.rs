//! Periodic compaction, like kube-apiserver's `--etcd-compaction-interval`:
//! every interval, the history older than the revision seen one interval
//! ago is compacted away. Only revisions are needed, so it works the same
//! on any backend.

use std::sync::Arc;

use crate::app::AppState;

/// Runs until the server stops.
pub async fn run(state: Arc<AppState>) {
    let interval = state.config.compaction_interval;
    if interval.is_zero() {
        return;
    }
    let store = &state.store;
    let mut shutdown = state.shutdown.clone();
    // The revision current one interval ago: the next compaction point.
    let mut previous = store.current_revision().await.ok();
    loop {
        tokio::select! {
            () = tokio::time::sleep(interval) => {}
            _ = shutdown.changed() => return,
        }
        if let Some(target) = previous {
            match store.compact_to(target).await {
                Ok(true) => tracing::info!(revision = target.get(), "compacted history"),
                Ok(false) => {}
                Err(e) => tracing::error!(error = %e, "compaction failed"),
            }
        }
        match store.current_revision().await {
            Ok(now) => previous = Some(now),
            Err(e) => tracing::warn!(error = %e, "cannot read the current revision"),
        }
    }
}
