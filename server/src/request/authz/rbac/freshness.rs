//! Read-your-writes for RBAC: a write to a Role, ClusterRole or binding is
//! acknowledged only once the authorizer's policy reflects it, so the
//! writer's next request (or anyone's it causally precedes) is decided by
//! the policy it just wrote, not by an informer a moment behind. Waits a
//! bounded time: a slow cache delays the acknowledgement, never fails it.

use std::time::Duration;

use super::Rbac;
use crate::api::kind::KindSpec;
use crate::request::admission::CommitObserver;
use crate::storage::Revision;
use crate::util::maybe_async::MaybeAsync;

/// How long an acknowledgement waits for the policy at most.
const LIMIT: Duration = Duration::from_secs(2);

pub struct PolicyFreshness {
    rbac: Rbac,
    /// `rbac.authorization.<domain>`.
    group: String,
}

impl PolicyFreshness {
    #[must_use]
    pub fn new(rbac: Rbac, group: &str) -> PolicyFreshness {
        PolicyFreshness {
            rbac,
            group: group.to_string(),
        }
    }
}

impl CommitObserver for PolicyFreshness {
    fn committed<'a>(&'a self, kind: &'a KindSpec, revision: Revision) -> MaybeAsync<'a, ()> {
        if kind.group != self.group {
            return MaybeAsync::Ready(());
        }
        MaybeAsync::pending(async move {
            if !self.rbac.caught_up(&kind.resource, revision, LIMIT).await {
                tracing::warn!(resource = %kind.resource, revision = revision.0, "the RBAC policy did not catch up with a write within {LIMIT:?}");
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use clap::Parser;
    use serde_json::json;
    use tokio::sync::watch;

    use super::*;
    use crate::api::decode::Decoded;
    use crate::api::kinds;
    use crate::api::store::{DeleteOptions, Store, WriteOptions};
    use crate::config::{Config, Flags};
    use crate::request::admission::Chain;
    use crate::request::authz::rbac::informers;
    use crate::request::user::UserInfo;
    use crate::storage::Storage;
    use crate::storage::embedded::Embedded;

    const GROUP: &str = "rbac.authorization.k8s.io";

    /// A store whose acknowledgements wait (or not) for `rbac`'s policy.
    async fn store(observed: bool) -> (Store, Rbac, tempfile::TempDir, watch::Sender<bool>) {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = Config::from(Flags::parse_from(["cairn-apiserver"]));
        let storage: Arc<dyn Storage> = Arc::new(Embedded::open(dir.path()).expect("store"));
        let registry = Arc::new(kinds::builtin(&config));
        let (stop, stopped) = watch::channel(false);
        let rbac = informers::start(&storage, &registry, GROUP, &stopped).await;
        let chain = Chain::default();
        let chain = if observed {
            chain.observed_by(Arc::new(PolicyFreshness::new(rbac.clone(), GROUP)))
        } else {
            chain
        };
        (
            Store::new(storage, registry, Arc::new(chain)),
            rbac,
            dir,
            stop,
        )
    }

    /// Writes a binding of `view` for user jane in `team`, then deletes
    /// it; reports whether the policy held it right after each
    /// acknowledgement, without yielding in between. Unobserved, the
    /// informers are stopped first so nothing but the observer could have
    /// brought the policy up to date.
    async fn bound_right_after_each_write(observed: bool) -> (bool, bool) {
        let (store, rbac, _dir, stop) = store(observed).await;
        if !observed {
            stop.send(true).expect("informers listen");
            // The runtime is single-threaded: a few turns let every
            // informer task see the flag and end.
            for _ in 0..16 {
                tokio::task::yield_now().await;
            }
        }
        let kind = store
            .registry
            .lookup(GROUP, "v1", "rolebindings")
            .expect("kind");
        let binding = json!({"metadata": {"name": "b"},
            "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "User", "apiGroup": GROUP, "name": "jane"}]});
        let jane = UserInfo::new("jane", &[]);
        let bound = |rbac: &Rbac| !rbac.policy().bindings_for(&jane, "team").is_empty();
        let decoded = Decoded {
            value: binding,
            duplicates: Vec::new(),
        };
        store
            .create(&kind, Some("team"), decoded, &WriteOptions::default())
            .await
            .expect("create");
        let after_create = bound(&rbac);
        store
            .delete(&kind, Some("team"), "b", &DeleteOptions::default())
            .await
            .expect("delete");
        (after_create, bound(&rbac))
    }

    #[tokio::test]
    async fn rbac_writes_are_acknowledged_once_the_policy_has_them() {
        assert_eq!(bound_right_after_each_write(true).await, (true, false));
        // Without the observer an acknowledgement waits for nothing: the
        // write returns while the (stopped) informers never saw it.
        assert!(!bound_right_after_each_write(false).await.0);
    }
}
