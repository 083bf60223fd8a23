//! The one generic store: create, read, update, patch, delete and list for
//! every kind, driven by its `KindSpec`.
//!
//! Objects are JSON in storage, without `metadata.resourceVersion` (that is
//! the key's mod revision, filled in on the way out).

pub mod admission;
pub mod apply;
pub mod delete;
pub mod grace;
pub mod history;
pub mod ownership;
pub mod read;
pub mod write;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::kind::{KindSpec, Origin};
use crate::api::registry::Registry;
use crate::api::schema;
use crate::api::validation;
use crate::request::admission::Chain;
use crate::request::user::UserInfo;
use crate::storage::{KeyValue, Revision, Storage, StorageError};

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

impl FieldValidation {
    /// Unknown and duplicate fields of a body under this setting: a 400
    /// (`Strict`), the `Warning`s to send (`Warn`), or nothing (`Ignore`).
    pub fn judge(
        self,
        unknown: Vec<String>,
        duplicates: Vec<String>,
    ) -> Result<Vec<String>, ApiError> {
        let problems = unknown
            .into_iter()
            .map(|f| format!("unknown field {f:?}"))
            .chain(
                duplicates
                    .into_iter()
                    .map(|f| format!("duplicate field {f:?}")),
            );
        match self {
            FieldValidation::Ignore => Ok(Vec::new()),
            FieldValidation::Warn => Ok(problems.collect()),
            FieldValidation::Strict => {
                let problems: Vec<String> = problems.collect();
                if problems.is_empty() {
                    return Ok(problems);
                }
                Err(ApiError::BadRequest(format!(
                    "strict decoding error: {}",
                    problems.join(", ")
                )))
            }
        }
    }
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
}

impl Subresource {
    /// The path segment.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Subresource::Status => "status",
            Subresource::Finalize => "finalize",
            Subresource::Scale => "scale",
        }
    }
}

/// The generic store.
pub struct Store {
    pub storage: Arc<dyn Storage>,
    pub registry: Arc<Registry>,
    /// Every write passes it (see `request::admission`).
    pub admission: Arc<Chain>,
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

    /// Checks a decoded body against the kind's schema: apiVersion/kind,
    /// unknown and duplicate fields per `fieldValidation`, types and required
    /// fields. Returns the pruned object and any warnings.
    pub fn admit(
        kind: &KindSpec,
        decoded: Decoded,
        validation: FieldValidation,
    ) -> Result<(Value, Vec<String>), ApiError> {
        let (value, warnings) = Store::screen(kind, decoded, validation)?;
        Ok((Store::complete(kind, value)?, warnings))
    }

    /// The first half of `admit`: apiVersion/kind, unknown and duplicate
    /// fields per `fieldValidation`, unknown fields pruned. Apply claims
    /// what this leaves, before defaults fill anything in.
    pub fn screen(
        kind: &KindSpec,
        decoded: Decoded,
        validation: FieldValidation,
    ) -> Result<(Value, Vec<String>), ApiError> {
        let Decoded {
            mut value,
            duplicates,
        } = decoded;
        let Some(obj) = value.as_object() else {
            return Err(ApiError::BadRequest(format!(
                "the body of the request must be a {} object",
                kind.kind
            )));
        };
        if let Some(v) = obj
            .get("apiVersion")
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
            && v != kind.api_version()
        {
            return Err(ApiError::BadRequest(format!(
                "the API version in the data ({v}) does not match the expected API version ({})",
                kind.api_version()
            )));
        }
        if let Some(k) = obj
            .get("kind")
            .and_then(Value::as_str)
            .filter(|k| !k.is_empty())
            && k != kind.kind
        {
            return Err(ApiError::BadRequest(format!(
                "the kind in the data ({k}) does not match the expected kind ({})",
                kind.kind
            )));
        }
        if let Some(m) = obj
            .get("metadata")
            .filter(|m| !m.is_object() && !m.is_null())
        {
            return Err(ApiError::BadRequest(format!(
                "the body of the request could not be decoded: metadata must be an object, not {}",
                crate::api::bodies::json_type(m)
            )));
        }
        // Custom resources decode as unstructured objects, which Kubernetes
        // reads only when they say what they are.
        if kind.origin != Origin::BuiltIn {
            for (field, named) in [("apiVersion", "apiVersion"), ("kind", "Kind")] {
                if obj
                    .get(field)
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty)
                {
                    return Err(ApiError::BadRequest(format!(
                        "Object '{named}' is missing in the request body"
                    )));
                }
            }
        }
        let unknown = schema::unknown_fields(&kind.schema, &value);
        let warnings = validation.judge(unknown, duplicates)?;
        schema::prune(&kind.schema, &mut value);
        Ok((value, warnings))
    }

    /// The second half of `admit`: defaults, then types and required
    /// fields, then the normalized form.
    pub fn complete(kind: &KindSpec, mut value: Value) -> Result<Value, ApiError> {
        // Defaults first, as Kubernetes' decoding does: a defaulted field
        // satisfies `required`.
        schema::apply_defaults(&kind.schema, &mut value);
        schema_problems(kind, &value, schema::validate(&kind.schema, &value))?;
        schema::normalize(&kind.schema, &mut value);
        Ok(value)
    }

    /// The type and value problems of the fields an apply configuration
    /// has, found before its ownership is compared with the live object's
    /// (a conflict is an answer for valid requests only).
    pub fn check_present_fields(kind: &KindSpec, config: &Value) -> Result<(), ApiError> {
        schema_problems(kind, config, schema::validate_present(&kind.schema, config))
    }

    /// Resolves a `resourceVersion` parameter for a read that must be "not
    /// older than" it: waits briefly for a future revision, then gives up
    /// with 504 and `Retry-After`.
    pub async fn wait_for_revision(&self, rv: u64) -> Result<(), ApiError> {
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

/// A body's schema problems as the kind's error: built-in kinds fail to
/// decode (400), custom resources fail validation (422), as in Kubernetes;
/// an integer beyond int64 fails decoding for every kind.
fn schema_problems(
    kind: &KindSpec,
    value: &Value,
    errors: Vec<schema::FieldError>,
) -> Result<(), ApiError> {
    if errors.is_empty() {
        return Ok(());
    }
    let undecodable = errors.iter().any(schema::FieldError::is_integer_overflow);
    let code = if kind.origin == Origin::BuiltIn || undecodable {
        400
    } else {
        422
    };
    let causes = errors.iter().map(validation::cause).collect();
    let name = crate::api::object::name(value).to_string();
    Err(kind.invalid(&name, causes, code))
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
