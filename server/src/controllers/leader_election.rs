//! Leader election over a `coordination.k8s.io/v1` Lease, as client-go's
//! leader elector runs it for kube-controller-manager: API servers that
//! share one etcd compete for the Lease, the holder renews it every retry
//! period, and another server takes it over once it has seen the same
//! record unchanged for a whole lease duration (its own clock, so clock
//! skew between servers does not matter). A leader that cannot renew
//! within the renew deadline stops leading; one that stops gives the Lease
//! up at once.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Value, json};
use tokio::sync::watch;

use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::object;
use crate::api::store::WriteOptions;
use crate::app::AppState;
use crate::config::LeaderElectionFlags;
use crate::util::{random, time};

/// This server's name in the Lease: the host name and a random suffix, as
/// kube-controller-manager's `<host>_<uuid>`.
fn identity() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let host = host.trim();
    let host = if host.is_empty() { "cairn" } else { host };
    format!("{host}_{}", random::uuid_v4())
}

/// Starts the election when it applies (`--leader-elect` with etcd as the
/// store): `Some(leading)`, which turns `true` while this server leads.
/// `None`: this server alone runs the singleton controllers.
pub fn start(
    state: &Arc<AppState>,
) -> Option<(watch::Receiver<bool>, tokio::task::JoinHandle<()>)> {
    let flags = &state.config.leader_election;
    if !flags.leader_elect || state.config.etcd.options().is_none() {
        return None;
    }
    let group = format!("coordination.{}", state.config.api_domain);
    let kind = state.store.registry.lookup(&group, "v1", "leases")?.clone();
    let (tx, rx) = watch::channel(false);
    let elector = Elector {
        state: Arc::clone(state),
        kind,
        flags: flags.clone(),
        identity: identity(),
        observed: None,
    };
    Some((rx, tokio::spawn(elector.run(tx))))
}

struct Elector {
    state: Arc<AppState>,
    kind: Arc<KindSpec>,
    flags: LeaderElectionFlags,
    identity: String,
    /// The Lease's spec as last read, and when it was first seen so.
    observed: Option<(Value, Instant)>,
}

impl Elector {
    async fn run(mut self, leading: watch::Sender<bool>) {
        let mut shutdown = self.state.shutdown.clone();
        let name = self.flags.leader_elect_resource_name.clone();
        loop {
            while !self.try_acquire_or_renew().await {
                if self.pause(&mut shutdown).await {
                    return;
                }
            }
            tracing::info!(lease = %name, identity = %self.identity, "became the leader: starting the singleton controllers");
            let _ = leading.send(true);
            let mut renewed = Instant::now();
            let lost = loop {
                if self.pause(&mut shutdown).await {
                    break false;
                }
                if self.try_acquire_or_renew().await {
                    renewed = Instant::now();
                } else if renewed.elapsed() >= self.flags.leader_elect_renew_deadline {
                    break true;
                }
            };
            let _ = leading.send(false);
            if !lost {
                self.release().await;
                return;
            }
            tracing::warn!(lease = %name, identity = %self.identity, "could not renew the leader Lease in time: stopped leading");
        }
    }

    /// Waits one retry period (with client-go's jitter while not leading);
    /// `true` when the server stops meanwhile.
    async fn pause(&self, shutdown: &mut watch::Receiver<bool>) -> bool {
        let retry = self.flags.leader_elect_retry_period;
        let wait = retry.mul_f64(1.0 + 0.2 * random::unit_fraction());
        tokio::select! {
            () = tokio::time::sleep(wait) => *shutdown.borrow(),
            _ = shutdown.changed() => true,
        }
    }

    fn namespace(&self) -> &str {
        &self.flags.leader_elect_resource_namespace
    }

    fn spec(&self, acquired: &str, transitions: u64) -> Value {
        let now = time::rfc3339_micro(SystemTime::now());
        json!({
            "holderIdentity": self.identity,
            "leaseDurationSeconds": self.flags.leader_elect_lease_duration.as_secs().max(1),
            "acquireTime": acquired,
            "renewTime": now,
            "leaseTransitions": transitions,
        })
    }

    /// One attempt: creates the Lease, renews it, or takes it over once it
    /// has expired; `true` when this server holds it afterwards.
    async fn try_acquire_or_renew(&mut self) -> bool {
        let store = &self.state.store;
        let (ns, name) = (
            self.namespace().to_string(),
            self.flags.leader_elect_resource_name.clone(),
        );
        let lease = match store.get(&self.kind, Some(&ns), &name, None).await {
            Ok(lease) => lease,
            Err(ApiError::NotFound { .. }) => {
                let now = time::rfc3339_micro(SystemTime::now());
                let body = json!({"metadata": {"name": name}, "spec": self.spec(&now, 0)});
                return self.write(None, body).await;
            }
            Err(e) => {
                tracing::debug!(error = %e, "reading the leader Lease failed");
                return false;
            }
        };
        let spec = lease.get("spec").cloned().unwrap_or_else(|| json!({}));
        if self.observed.as_ref().is_none_or(|(seen, _)| *seen != spec) {
            self.observed = Some((spec.clone(), Instant::now()));
        }
        let holder = object::str_at(&spec, "/holderIdentity");
        let mine = holder == self.identity;
        if !holder.is_empty() && !mine && !self.expired(&spec) {
            return false;
        }
        let transitions = spec
            .get("leaseTransitions")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let (acquired, transitions) = if mine {
            (
                object::str_at(&spec, "/acquireTime").to_string(),
                transitions,
            )
        } else {
            (time::rfc3339_micro(SystemTime::now()), transitions + 1)
        };
        let mut body = lease.clone();
        body["spec"] = self.spec(&acquired, transitions);
        let rv = object::meta_str(&lease, "resourceVersion").map(str::to_string);
        self.write(rv, body).await
    }

    /// Whether the record seen has stood unchanged for its lease duration.
    fn expired(&self, spec: &Value) -> bool {
        let seconds = spec
            .get("leaseDurationSeconds")
            .and_then(Value::as_u64)
            .unwrap_or(self.flags.leader_elect_lease_duration.as_secs());
        self.observed
            .as_ref()
            .is_some_and(|(_, since)| since.elapsed() >= Duration::from_secs(seconds))
    }

    /// Creates (no resourceVersion) or updates the Lease; `true` when stored.
    async fn write(&self, rv: Option<String>, body: Value) -> bool {
        let store = &self.state.store;
        let ns = self.namespace();
        let decoded = Decoded {
            value: body,
            duplicates: Vec::new(),
        };
        let opts = WriteOptions {
            field_manager: Some("cairn-apiserver".into()),
            ..WriteOptions::default()
        };
        let written = match rv {
            None => store.create(&self.kind, Some(ns), decoded, &opts).await,
            Some(_) => {
                let name = &self.flags.leader_elect_resource_name;
                store
                    .update(&self.kind, Some(ns), name, decoded, &opts)
                    .await
            }
        };
        match written {
            Ok(_) => true,
            Err(e) => {
                tracing::debug!(error = %e, "writing the leader Lease failed");
                false
            }
        }
    }

    /// Gives the Lease up on the way out, so another server leads at once
    /// rather than after a lease duration (client-go's ReleaseOnCancel).
    async fn release(&mut self) {
        let store = &self.state.store;
        let (ns, name) = (
            self.namespace().to_string(),
            self.flags.leader_elect_resource_name.clone(),
        );
        let Ok(lease) = store.get(&self.kind, Some(&ns), &name, None).await else {
            return;
        };
        if object::str_at(&lease, "/spec/holderIdentity") != self.identity {
            return;
        }
        let now = time::rfc3339_micro(SystemTime::now());
        let mut body = lease.clone();
        body["spec"]["holderIdentity"] = json!("");
        body["spec"]["leaseDurationSeconds"] = json!(1);
        body["spec"]["acquireTime"] = json!(now);
        body["spec"]["renewTime"] = json!(now);
        let rv = object::meta_str(&lease, "resourceVersion").map(str::to_string);
        if self.write(rv, body).await {
            tracing::info!(lease = %name, "gave up the leader Lease");
        }
    }
}
