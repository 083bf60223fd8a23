//! kube-controller-manager's resource quota controller: each
//! ResourceQuota's `status.hard` follows its `spec.hard` and `status.used`
//! counts what its namespace holds. Admission adds each write's usage in
//! the write's own commit; this controller counts afresh when a quota is
//! new or its limits change, when a tracked object is deleted or its usage
//! shrinks (a pod finishing, a Service losing its load balancer), and
//! every five minutes (kube's `--resource-quota-sync-period`).

use std::collections::{BTreeSet, HashSet};
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::informer::{Cache, Informer, KeyValue, Update};
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::object;
use crate::api::quota::recount::recount;
use crate::api::quota::usage::Evaluator;
use crate::api::quota::{Resources, from_json, same, to_json};
use crate::api::store::{Store, Subresource, WriteOptions};
use crate::app::AppState;

const RESYNC: Duration = Duration::from_secs(300);

/// What the controller keeps of a quota.
struct Quota {
    namespace: String,
    name: String,
    /// The resources of `spec.hard`.
    tracks: Vec<String>,
    /// Its status does not yet match its spec.
    stale: bool,
}

fn quota(kv: &KeyValue) -> Option<Quota> {
    let q = Store::decode_stored(kv).ok()?;
    let hard = from_json(q.pointer("/spec/hard"));
    let status_hard = from_json(q.pointer("/status/hard"));
    let used = from_json(q.pointer("/status/used"));
    Some(Quota {
        namespace: object::namespace(&q)?.to_string(),
        name: object::name(&q).to_string(),
        stale: !same(&hard, &status_hard) || hard.keys().any(|n| !used.contains_key(n)),
        tracks: hard.into_keys().collect(),
    })
}

/// A namespace whose quotas must be counted again; `None`: all of them.
type Dirty = Option<String>;

/// Namespaces that have quotas: the watchers report only changes there.
type Watched = Arc<RwLock<HashSet<String>>>;

/// Reports the deletions, and the updates that shrink usage, of one kind.
async fn watch_kind(
    mut informer: Informer,
    prefix: Vec<u8>,
    evaluator: Evaluator,
    watched: Watched,
    dirty: mpsc::UnboundedSender<Dirty>,
) {
    let namespace_of = |key: &[u8]| {
        let rest = key.get(prefix.len()..)?;
        let end = rest.iter().position(|b| *b == b'/')?;
        String::from_utf8(rest[..end].to_vec()).ok()
    };
    let has_quota = |ns: &str| watched.read().is_ok_and(|w| w.contains(ns));
    let mut synced = false;
    while let Some(update) = informer.next().await {
        let changed = match update {
            Ok(Update::Synced { .. }) => {
                synced = true;
                continue;
            }
            Ok(Update::Reset) => {
                synced = false;
                Some(None)
            }
            Ok(Update::Deleted { key, .. }) if synced => namespace_of(&key).map(Some),
            Ok(Update::Put {
                kv,
                prev: Some(prev),
            }) if synced && evaluator.updates_change_usage() => namespace_of(&kv.key)
                .filter(|ns| has_quota(ns) && usage_changed(&evaluator, &prev, &kv))
                .map(Some),
            _ => None,
        };
        if let Some(ns) = changed
            && ns.as_deref().is_none_or(has_quota)
            && dirty.send(ns).is_err()
        {
            return;
        }
    }
}

fn usage_changed(evaluator: &Evaluator, before: &KeyValue, after: &KeyValue) -> bool {
    let now = SystemTime::now();
    let usage = |kv: &KeyValue| {
        serde_json::from_slice::<Value>(&kv.value)
            .map_or_else(|_| Resources::new(), |o| evaluator.usage(&o, now))
    };
    !same(&usage(before), &usage(after))
}

/// Counts one quota afresh and publishes what changed; a quota changed
/// meanwhile is a conflict (counted again by the caller).
async fn sync(store: &Store, kind: &Arc<KindSpec>, ns: &str, name: &str) -> Result<(), ApiError> {
    // Read before counting: a write admitted after this read changes the
    // quota, so the update below conflicts rather than losing it.
    let current = match store.get(kind, Some(ns), name, None).await {
        Err(ApiError::NotFound { .. }) => return Ok(()),
        other => other?,
    };
    let hard = from_json(current.pointer("/spec/hard"));
    let used = recount(&*store.storage, &store.registry, ns, &current, &hard, None).await?;
    let published_hard = from_json(current.pointer("/status/hard"));
    let published_used = from_json(current.pointer("/status/used"));
    if same(&hard, &published_hard) && same(&used, &published_used) {
        return Ok(());
    }
    let mut next = current;
    next["status"] = json!({"hard": to_json(&hard), "used": to_json(&used)});
    let opts = WriteOptions {
        subresource: Some(Subresource::Status),
        field_manager: Some("kube-controller-manager".into()),
        ..WriteOptions::default()
    };
    let decoded = Decoded {
        value: next,
        duplicates: Vec::new(),
    };
    store
        .update(kind, Some(ns), name, decoded, &opts)
        .await
        .map(drop)
}

/// Starts a watcher for every stored kind the quotas' resources name that
/// has none yet.
fn watch_tracked_kinds(
    state: &AppState,
    quotas: &Cache<Quota>,
    started: &mut BTreeSet<Vec<u8>>,
    tasks: &mut JoinSet<()>,
    watched: &Watched,
    dirty: &mpsc::UnboundedSender<Dirty>,
) {
    for kind in state.store.registry.storage_kinds() {
        let Some(evaluator) = Evaluator::for_kind(&kind) else {
            continue;
        };
        let prefix = keys::collection_prefix(&kind, None);
        if started.contains(&prefix)
            || !quotas
                .values()
                .any(|q| q.tracks.iter().any(|n| evaluator.tracks(n)))
        {
            continue;
        }
        started.insert(prefix.clone());
        let informer = Informer::for_kind(&state.store, &kind);
        tasks.spawn(watch_kind(
            informer,
            prefix,
            evaluator,
            Arc::clone(watched),
            dirty.clone(),
        ));
    }
}

/// Runs until the server stops.
pub async fn run(state: Arc<AppState>) {
    let store = &state.store;
    let kind = store
        .registry
        .lookup("", "v1", "resourcequotas")
        .expect("resource quotas are built in");
    let mut informer = Informer::for_kind(store, &kind);
    let mut quotas = Cache::new(quota);
    let (dirty_tx, mut dirty_rx) = mpsc::unbounded_channel::<Dirty>();
    let watched: Watched = Arc::default();
    let mut started = BTreeSet::new();
    let mut tasks = JoinSet::new();
    let mut shutdown = state.shutdown.clone();
    let mut resync = tokio::time::interval(RESYNC);
    let mut pending: BTreeSet<(String, String)> = BTreeSet::new();
    loop {
        let mut all = false;
        let mut namespaces = BTreeSet::new();
        tokio::select! {
            fed = informer.feed(&mut quotas) => if !fed { return },
            Some(ns) = dirty_rx.recv() => match ns {
                Some(ns) => { namespaces.insert(ns); }
                None => all = true,
            },
            _ = resync.tick() => all = true,
            () = tokio::time::sleep(Duration::from_millis(500)), if !pending.is_empty() => {}
            _ = shutdown.changed() => return,
        }
        while let Ok(ns) = dirty_rx.try_recv() {
            match ns {
                Some(ns) => {
                    namespaces.insert(ns);
                }
                None => all = true,
            }
        }
        if !quotas.is_synced() {
            continue;
        }
        if let Ok(mut w) = watched.write() {
            *w = quotas.values().map(|q| q.namespace.clone()).collect();
        }
        watch_tracked_kinds(
            &state,
            &quotas,
            &mut started,
            &mut tasks,
            &watched,
            &dirty_tx,
        );
        for q in quotas.values() {
            if all || q.stale || namespaces.contains(&q.namespace) {
                pending.insert((q.namespace.clone(), q.name.clone()));
            }
        }
        let due = std::mem::take(&mut pending);
        for (ns, name) in due {
            match sync(store, &kind, &ns, &name).await {
                Ok(()) => {}
                Err(ApiError::Conflict { .. }) => {
                    pending.insert((ns, name));
                }
                Err(e) => {
                    tracing::warn!(namespace = %ns, quota = %name, error = %e, "cannot count the quota's usage; retrying");
                    pending.insert((ns, name));
                }
            }
        }
    }
}
