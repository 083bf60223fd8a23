//! The caches RBAC decides from: one shared informer per kind (Roles,
//! ClusterRoles, RoleBindings, ClusterRoleBindings), and a task that
//! rebuilds the policy snapshot whenever one of them changes.

use std::sync::Arc;

use tokio::sync::watch;

use super::policy::{Binding, Policy};
use super::rule::PolicyRule;
use super::{Rbac, Seen};
use crate::api::informer::{Informer, KeyValue, Shared};
use crate::api::keys;
use crate::api::object;
use crate::api::registry::Registry;
use crate::api::store::Store;
use crate::storage::Storage;

/// A role as cached: namespace (`""` for cluster roles), name, rules.
type RoleEntry = (String, String, Arc<[PolicyRule]>);

fn role(kv: &KeyValue) -> Option<RoleEntry> {
    let value = Store::decode_stored(kv).ok()?;
    Some((
        object::namespace(&value).unwrap_or_default().to_string(),
        object::name(&value).to_string(),
        PolicyRule::all_of(&value).into(),
    ))
}

fn binding(kv: &KeyValue) -> Option<Arc<Binding>> {
    let value = Store::decode_stored(kv).ok()?;
    Binding::from_json(&value).map(Arc::new)
}

/// The four caches.
#[derive(Clone)]
struct Caches {
    roles: Shared<RoleEntry>,
    cluster_roles: Shared<RoleEntry>,
    bindings: Shared<Arc<Binding>>,
    cluster_bindings: Shared<Arc<Binding>>,
}

impl Caches {
    fn synced(&self) -> bool {
        self.roles.read().is_synced()
            && self.cluster_roles.read().is_synced()
            && self.bindings.read().is_synced()
            && self.cluster_bindings.read().is_synced()
    }

    /// Each cache's revision, in `RESOURCES` order.
    fn seen(&self) -> Seen {
        [
            self.roles.read().revision().unwrap_or_default(),
            self.cluster_roles.read().revision().unwrap_or_default(),
            self.bindings.read().revision().unwrap_or_default(),
            self.cluster_bindings.read().revision().unwrap_or_default(),
        ]
    }

    fn policy(&self) -> Policy {
        let roles: Vec<RoleEntry> = {
            let (roles, cluster_roles) = (self.roles.read(), self.cluster_roles.read());
            roles
                .values()
                .chain(cluster_roles.values())
                .cloned()
                .collect()
        };
        let bindings: Vec<Arc<Binding>> = {
            let (bindings, cluster) = (self.bindings.read(), self.cluster_bindings.read());
            bindings.values().chain(cluster.values()).cloned().collect()
        };
        Policy::new(roles, bindings)
    }

    /// Waits for any cache to change; `false` once they have stopped.
    async fn changed(&mut self) -> bool {
        tokio::select! {
            ok = self.roles.changed() => ok,
            ok = self.cluster_roles.changed() => ok,
            ok = self.bindings.changed() => ok,
            ok = self.cluster_bindings.changed() => ok,
        }
    }
}

/// Starts the caches of the RBAC kinds of `registry` (group
/// `rbac.authorization.<domain>`), waits for their first lists, and keeps
/// the returned authorizer's policy current until `stop` flips.
pub async fn start(
    storage: &Arc<dyn Storage>,
    registry: &Registry,
    group: &str,
    stop: &watch::Receiver<bool>,
) -> Rbac {
    let informer = |resource: &str| {
        let kind = registry
            .lookup(group, "v1", resource)
            .expect("RBAC kinds are built in");
        Informer::over(Arc::clone(storage), keys::collection_prefix(&kind, None))
    };
    let mut caches = Caches {
        roles: Shared::spawn(informer("roles"), role, stop.clone()),
        cluster_roles: Shared::spawn(informer("clusterroles"), role, stop.clone()),
        bindings: Shared::spawn(informer("rolebindings"), binding, stop.clone()),
        cluster_bindings: Shared::spawn(informer("clusterrolebindings"), binding, stop.clone()),
    };
    while !caches.synced() {
        if !caches.changed().await {
            break;
        }
    }
    let rbac = Rbac::new(Policy::default(), group);
    rbac.replace(caches.policy(), caches.seen());
    let current = rbac.clone();
    tokio::spawn(async move {
        while caches.changed().await {
            // Revisions first: the policy built after holds at least them.
            let seen = caches.seen();
            current.replace(caches.policy(), seen);
        }
    });
    rbac
}
