//! The controllers that must run on one API server at a time when several
//! share one etcd — kube-controller-manager's share of the work: namespace
//! finalization, garbage collection, the `default` service accounts and the
//! published root CA, quota usage, RBAC aggregation, certificate approval and signing,
//! admission policies' type checking, and compaction. They run
//! while this server leads (see `leader_election`), and are stopped when it
//! stops leading. Each works from informers, so a new leader starts from
//! the stored state and loses nothing.

use std::sync::Arc;

use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::app::AppState;
use crate::controllers;

fn spawn_all(state: &Arc<AppState>) -> Vec<JoinHandle<()>> {
    let s = || Arc::clone(state);
    vec![
        tokio::spawn(controllers::namespace::run(s())),
        tokio::spawn(controllers::service_account::run(s())),
        tokio::spawn(controllers::root_ca::run(s())),
        tokio::spawn(controllers::resource_quota::run(s())),
        tokio::spawn(controllers::gc::run(s())),
        tokio::spawn(controllers::compaction::run(s())),
        tokio::spawn(controllers::rbac::aggregation::run(s())),
        tokio::spawn(controllers::csr_signing::run(s())),
        tokio::spawn(controllers::csr_approving::run(s())),
        tokio::spawn(controllers::admission_policy_status::run(s())),
    ]
}

/// Waits until `leading` is `want`; `false` when the server stops first.
async fn until(
    leading: &mut watch::Receiver<bool>,
    want: bool,
    shutdown: &mut watch::Receiver<bool>,
) -> bool {
    loop {
        if *leading.borrow_and_update() == want {
            return true;
        }
        tokio::select! {
            changed = leading.changed() => if changed.is_err() { return false },
            _ = shutdown.changed() => return false,
        }
    }
}

/// Runs the singleton controllers until the server stops: always, or
/// while `leading` says this server leads.
pub async fn run(state: Arc<AppState>, leading: Option<watch::Receiver<bool>>) {
    let Some(mut leading) = leading else {
        for task in spawn_all(&state) {
            let _ = task.await;
        }
        return;
    };
    let mut shutdown = state.shutdown.clone();
    loop {
        if !until(&mut leading, true, &mut shutdown).await {
            return;
        }
        let tasks = spawn_all(&state);
        let still_running =
            until(&mut leading, false, &mut shutdown).await && !*state.shutdown.borrow();
        if still_running {
            for task in &tasks {
                task.abort();
            }
            tracing::warn!("stopped the singleton controllers: this server no longer leads");
        }
        for task in tasks {
            let _ = task.await;
        }
        if !still_running {
            return;
        }
    }
}
