//! The objects a service-account token names (its ServiceAccount, and the
//! Pod, Secret or Node it is bound to) as they are now: read from informer
//! caches, and from storage only when the cache does not hold the object
//! with the token's uid (an object created a moment ago, or one deleted).

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde::Deserialize;
use tokio::sync::watch;

use crate::api::error::ApiError;
use crate::api::informer::{Informer, KeyValue, Shared};
use crate::api::keys;
use crate::api::kind::KindSpec;
use crate::api::store::{Store, storage_error};
use crate::storage::Storage;
use crate::util::time::parse_rfc3339;

/// A terminating object's tokens keep working this long after its
/// deletion began (Kubernetes' grace for in-flight requests).
const DELETION_GRACE: Duration = Duration::from_secs(60);

/// What a token check needs of an object.
#[derive(Clone, Debug)]
struct Meta {
    uid: String,
    deleted_at: Option<SystemTime>,
}

#[derive(Deserialize)]
struct Stored {
    metadata: StoredMeta,
}

#[derive(Deserialize)]
struct StoredMeta {
    #[serde(default)]
    uid: String,
    #[serde(rename = "deletionTimestamp", default)]
    deletion_timestamp: Option<String>,
}

fn meta_of(value: &[u8]) -> Option<Meta> {
    let stored: Stored = serde_json::from_slice(value).ok()?;
    Some(Meta {
        uid: stored.metadata.uid,
        deleted_at: stored
            .metadata
            .deletion_timestamp
            .as_deref()
            .and_then(parse_rfc3339),
    })
}

fn project(kv: &KeyValue) -> Option<Meta> {
    meta_of(&kv.value)
}

/// The kinds a token may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    ServiceAccount,
    Pod,
    Secret,
    Node,
}

struct Followed {
    kind: Arc<KindSpec>,
    cache: Shared<Meta>,
}

/// The followed kinds, and storage for what the caches do not hold.
pub struct Live {
    storage: Arc<dyn Storage>,
    service_accounts: Followed,
    pods: Followed,
    secrets: Followed,
    nodes: Followed,
}

impl Live {
    /// Starts following the kinds tokens name, until `stop` flips.
    #[must_use]
    pub fn start(store: &Store, stop: &watch::Receiver<bool>) -> Live {
        let follow = |resource: &str| {
            let kind = store
                .registry
                .lookup("", "v1", resource)
                .expect("core kinds are built in");
            let cache = Shared::spawn(Informer::for_kind(store, &kind), project, stop.clone());
            Followed { kind, cache }
        };
        Live {
            storage: Arc::clone(&store.storage),
            service_accounts: follow("serviceaccounts"),
            pods: follow("pods"),
            secrets: follow("secrets"),
            nodes: follow("nodes"),
        }
    }

    fn followed(&self, which: Named) -> &Followed {
        match which {
            Named::ServiceAccount => &self.service_accounts,
            Named::Pod => &self.pods,
            Named::Secret => &self.secrets,
            Named::Node => &self.nodes,
        }
    }

    /// Whether the object exists with `uid` and is not past its deletion
    /// grace; the error says why not (for the log).
    pub async fn check(
        &self,
        which: Named,
        namespace: Option<&str>,
        name: &str,
        uid: &str,
        now: SystemTime,
    ) -> Result<(), String> {
        let followed = self.followed(which);
        let key = keys::object_key(&followed.kind, namespace, name);
        let cached = followed.cache.read().get(&key).cloned();
        let meta = match cached {
            Some(meta) if meta.uid == uid => meta,
            // Not cached, or cached with another uid: the cache may lag
            // behind a create or a re-create, so storage decides.
            _ => self
                .stored(&key)
                .await
                .map_err(|e| format!("cannot read {which:?} {name:?}: {e}"))?
                .ok_or_else(|| format!("{which:?} {name:?} does not exist"))?,
        };
        if meta.uid != uid {
            return Err(format!(
                "{which:?} {name:?} has uid {}, the token names {uid}",
                meta.uid
            ));
        }
        if let Some(deleted) = meta.deleted_at
            && deleted + DELETION_GRACE < now
        {
            return Err(format!("{which:?} {name:?} is being deleted"));
        }
        Ok(())
    }

    async fn stored(&self, key: &[u8]) -> Result<Option<Meta>, ApiError> {
        let found = self.storage.get(key, None).await.map_err(storage_error)?;
        Ok(found.kv.and_then(|kv| meta_of(&kv.value)))
    }
}
