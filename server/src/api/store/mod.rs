//! The one generic store: create, read, update, patch, delete and list for
//! every kind, driven by its `KindSpec`.
//!
//! Objects are JSON in storage, without `metadata.resourceVersion` (that is
//! the key's mod revision, filled in on the way out).

pub mod admission;
pub mod apply;
pub mod binding;
pub mod body;
mod continue_token;
pub mod delete;
mod delete_plan;
mod eviction;
pub mod grace;
pub mod history;
mod list_index;
pub mod list_tail;
pub mod no_op;
pub mod ownership;
pub mod patch;
pub mod read;
mod unreadable;
pub mod update;
pub mod write;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::api::cel::Requester;
use crate::api::error::ApiError;
use crate::api::index::KindIndexes;
use crate::api::kind::KindSpec;
use crate::api::registry::Registry;
use crate::api::watch::hub::Hubs;
use crate::api::watch::lag::DeliveryLag;
use crate::request::admission::Chain;
use crate::request::authz::Authorizers;
use crate::request::authz::privileged::PrivilegedGroups;
use crate::request::user::UserInfo;
use crate::storage::{KeyValue, Revision, Storage, StorageError};

pub use binding::BindingVia;
pub use delete::{DeleteOptions, Deleted};
pub use read::{ListOptions, ListPage, ResourceVersionMatch};
pub use write::WriteOutcome;

/// How unknown and duplicate fields in a body are handled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FieldValidation {
    Ignore,
    #[default]
    Warn,
    Strict,
}

/// Options every write shares.
#[derive(Clone, Debug, Default)]
pub struct WriteOptions {
    pub dry_run: bool,
    pub field_validation: FieldValidation,
    pub field_manager: Option<String>,
    /// In-process controllers only: skip the kind's `prepare_for_update`
    /// (which protects fields such as a namespace's `spec.finalizers` from
    /// ordinary clients). Never set from a request.
    pub system: bool,
    /// The subresource written through, if any.
    pub subresource: Option<Subresource>,
    /// Who writes, as admission sees it; `None` for the API server's own
    /// in-process writes.
    pub user: Option<Arc<UserInfo>>,
    /// Set by the store when a PUT or an apply creates the object it found
    /// missing: admission then authorizes the write as a create too, as
    /// Kubernetes does (an apply needs `create` for new objects).
    pub create_on_update: bool,
}

impl WriteOptions {
    /// These options for the create an update or apply turned into.
    #[must_use]
    pub fn creating_on_update(&self) -> WriteOptions {
        WriteOptions {
            create_on_update: true,
            ..self.clone()
        }
    }
}

/// Subresources whose writes change part of the object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subresource {
    /// `/status`: only `status` changes.
    Status,
    /// A namespace's `/finalize`: only `spec.finalizers` changes.
    Finalize,
    /// `/scale`: the object as the scale change computed it, written as a
    /// main-resource update but owned under the `scale` subresource.
    Scale,
    /// A pod's `/binding`: the pod as the store assigned it (its node is
    /// otherwise immutable), outside field ownership as in Kubernetes.
    Binding,
    /// A certificate signing request's `/approval`: only
    /// `status.conditions` changes.
    Approval,
}

impl Subresource {
    /// The path segment.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Subresource::Status => "status",
            Subresource::Finalize => "finalize",
            Subresource::Approval => "approval",
            Subresource::Scale => "scale",
            Subresource::Binding => "binding",
        }
    }
}

/// The generic store.
pub struct Store {
    pub storage: Arc<dyn Storage>,
    pub registry: Arc<Registry>,
    /// Every write passes it (see `request::admission`).
    pub admission: Arc<Chain>,
    /// What CEL rules' `authorizer` asks about the writer: the secure
    /// port's chain, or `system:masters` alone (the insecure port's) until
    /// one is given (`with_authorizers`).
    pub authorizers: Arc<Authorizers>,
    /// The shared watches of filtered watchers, one per kind.
    pub hubs: Hubs,
    /// Per-kind indexes of stored objects' selectable attributes, which
    /// lists with selectors read instead of every object.
    pub list_indexes: KindIndexes,
    /// How far watch delivery runs behind; writes wait while it is far.
    pub watch_lag: Arc<DeliveryLag>,
}

/// How long a read at a future resourceVersion waits for it to appear.
const FUTURE_RV_WAIT: Duration = Duration::from_secs(3);

impl Store {
    #[must_use]
    pub fn new(storage: Arc<dyn Storage>, registry: Arc<Registry>, admission: Arc<Chain>) -> Store {
        Store {
            storage,
            registry,
            admission,
            authorizers: Arc::new(Authorizers::new(vec![
                Arc::new(PrivilegedGroups::masters()),
            ])),
            hubs: Hubs::default(),
            list_indexes: KindIndexes::default(),
            watch_lag: Arc::default(),
        }
    }

    /// The store, with CEL rules' `authorizer` checking through `authorizers`.
    #[must_use]
    pub fn with_authorizers(mut self, authorizers: Arc<Authorizers>) -> Store {
        self.authorizers = authorizers;
        self
    }

    /// Who makes the write `opts` describes, for the kind's checks.
    fn requester<'a>(&'a self, opts: &'a WriteOptions) -> Requester<'a> {
        Requester {
            user: opts.user.as_ref(),
            authorizers: &self.authorizers,
        }
    }

    /// Turns a stored record into the served object.
    pub fn decode_stored(kv: &KeyValue) -> Result<Value, ApiError> {
        let mut obj: Value = serde_json::from_slice(&kv.value).map_err(|e| {
            ApiError::Internal(format!(
                "object at {} is not valid JSON: {e}",
                String::from_utf8_lossy(&kv.key)
            ))
        })?;
        if let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.insert(
                "resourceVersion".into(),
                json!(kv.mod_revision.get().to_string()),
            );
        }
        Ok(obj)
    }

    /// A stored record as `kind`'s version serves it.
    pub fn decode_served(kind: &KindSpec, kv: &KeyValue) -> Result<Value, ApiError> {
        let obj = Store::decode_stored(kv)?;
        Ok(kind.storage_to_served(obj))
    }

    /// Encodes a served object for storage (stored form, without its
    /// resourceVersion).
    fn encode_for_storage(kind: &KindSpec, obj: &Value) -> Vec<u8> {
        if !kind.stores_served_form() {
            let mut stored = kind.served_to_storage(obj.clone());
            if let Some(meta) = stored.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.remove("resourceVersion");
            }
            return serde_json::to_vec(&stored).expect("a JSON value always serializes");
        }
        if obj
            .get("metadata")
            .and_then(|m| m.get("resourceVersion"))
            .is_none()
        {
            return serde_json::to_vec(obj).expect("a JSON value always serializes");
        }
        let mut stored = obj.clone();
        if let Some(meta) = stored.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.remove("resourceVersion");
        }
        serde_json::to_vec(&stored).expect("a JSON value always serializes")
    }

    /// Resolves a `resourceVersion` parameter for a read that must be "not
    /// older than" it: waits briefly for a future revision, then gives up
    /// with 504 and `Retry-After`.
    pub async fn wait_for_revision(&self, rv: u64) -> Result<(), ApiError> {
        if rv == 0 || self.storage.reached(Revision(rv)) {
            return Ok(());
        }
        let deadline = Instant::now() + FUTURE_RV_WAIT;
        loop {
            let current = self.current_revision().await?.get();
            if rv <= current {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(too_large_rv(rv, current));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The storage's newest revision.
    pub async fn current_revision(&self) -> Result<Revision, ApiError> {
        self.storage.current_revision().await.map_err(storage_error)
    }
}

/// 504 for a resourceVersion the store has not reached.
#[must_use]
pub fn too_large_rv(requested: u64, current: u64) -> ApiError {
    ApiError::Timeout {
        message: format!("Too large resource version: {requested}, current: {current}"),
        retry_after: Some(1),
        causes: vec![crate::api::error::Cause::new(
            "ResourceVersionTooLarge",
            "",
            "Too large resource version",
        )],
    }
}

/// Maps a storage failure that no verb expects.
#[must_use]
pub fn storage_error(e: StorageError) -> ApiError {
    match e {
        StorageError::Compacted { .. } => ApiError::Expired {
            message: "The resourceVersion for the provided list is too old.".into(),
            continue_token: None,
        },
        StorageError::FutureRevision { requested, current } => {
            too_large_rv(requested.get(), current.get())
        }
        StorageError::Closed => ApiError::ServiceUnavailable("the server is shutting down".into()),
        StorageError::Unavailable(why) => ApiError::ServiceUnavailable(why),
        StorageError::Timeout(why) => ApiError::Timeout {
            message: why,
            retry_after: Some(1),
            causes: Vec::new(),
        },
        other => ApiError::Internal(other.to_string()),
    }
}

/// Parses a `resourceVersion` parameter: `None` for unset/empty.
pub fn parse_rv(rv: Option<&str>) -> Result<Option<u64>, ApiError> {
    match rv {
        None | Some("") => Ok(None),
        Some(s) => s.parse::<u64>().map(Some).map_err(|_| {
            ApiError::BadRequest(format!(
                "invalid resource version: {s:?}: must be a decimal revision"
            ))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_errors_map_to_their_status_codes() {
        let code = |e: StorageError| storage_error(e).code();
        let rev = Revision;
        assert_eq!(
            code(StorageError::Compacted {
                requested: rev(1),
                compacted: rev(2)
            }),
            410
        );
        let future = storage_error(StorageError::FutureRevision {
            requested: rev(9),
            current: rev(2),
        });
        assert_eq!((future.code(), future.retry_after()), (504, Some(1)));
        let timeout = storage_error(StorageError::Timeout("etcd: request timed out".into()));
        assert_eq!((timeout.code(), timeout.retry_after()), (504, Some(1)));
        assert_eq!(code(StorageError::Unavailable("no leader".into())), 503);
        assert_eq!(code(StorageError::Closed), 503);
        assert_eq!(
            code(StorageError::CorruptValue {
                key: "/k".into(),
                reason: "bad".into()
            }),
            500
        );
    }
}
