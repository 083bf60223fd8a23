//! `KindSpec`: everything the generic registry needs to serve a kind — names,
//! scope, schema, strategy hooks and selectable fields. A kind is this data;
//! no kind has handlers of its own.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::api::error::{ApiError, Cause};
use crate::api::schema::Schema;

/// How `metadata.name` is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRule {
    /// RFC 1123 subdomain: ≤253, lowercase alphanumerics, `-` and `.`.
    Subdomain,
    /// RFC 1123 label: ≤63, lowercase alphanumerics and `-`.
    Label,
}

/// What a DELETE does to an object with no finalizers pending.
pub enum DeleteAction {
    /// Remove it from storage now.
    Remove,
    /// Store this updated object instead (e.g. a namespace turning Terminating).
    Update(Value),
}

/// Kind-specific behaviour, called by the generic store in a fixed order:
/// create: `prepare_for_create` → schema validation → `validate`;
/// update: `prepare_for_update` → schema validation → `validate_update`.
/// `&Value` hooks must not change the object (the compiler sees to it).
pub trait Strategy: Send + Sync {
    /// Normalises a new object (status defaults, required finalizers).
    fn prepare_for_create(&self, _obj: &mut Value) {}
    /// Normalises an update given the stored object.
    fn prepare_for_update(&self, _new: &mut Value, _old: &Value) {}
    /// Semantic checks beyond the schema (answered with 422).
    fn validate(&self, _obj: &Value) -> Vec<Cause> {
        Vec::new()
    }
    /// Semantic checks of an update.
    fn validate_update(&self, new: &Value, _old: &Value) -> Vec<Cause> {
        self.validate(new)
    }
    /// The rule for `metadata.name`.
    fn name_rule(&self) -> NameRule {
        NameRule::Subdomain
    }
    /// Decides what a DELETE does once metadata finalizers are clear.
    fn on_delete(&self, _obj: &Value) -> Result<DeleteAction, ApiError> {
        Ok(DeleteAction::Remove)
    }
    /// Whether a terminating object (deletionTimestamp set, metadata
    /// finalizers empty) may now be removed; kinds with their own
    /// finalization (namespaces' `spec.finalizers`) say when.
    fn ready_to_remove(&self, _obj: &Value) -> bool {
        true
    }
}

/// A strategy with every default: plain objects.
pub struct DefaultStrategy;

impl Strategy for DefaultStrategy {}

/// One column of the kind's Table representation (`kubectl get`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    /// OpenAPI type of the cells: `string`, `integer`, `date`, ...
    pub type_: String,
    /// `name` for the column naming the object, else empty.
    pub format: String,
    pub description: String,
    /// 0 = shown by default; 1 = shown with `-o wide`.
    pub priority: i32,
    /// Where the cell comes from, as a simple JSONPath (`.metadata.name`).
    pub json_path: String,
}

impl Column {
    #[must_use]
    pub fn new(
        name: &str,
        type_: &str,
        priority: i32,
        json_path: &str,
        description: &str,
    ) -> Column {
        Column {
            name: name.into(),
            type_: type_.into(),
            format: if name == "Name" {
                "name".into()
            } else {
                String::new()
            },
            description: description.into(),
            priority,
            json_path: json_path.into(),
        }
    }

    /// The default columns of a kind without its own (Kubernetes' default table).
    #[must_use]
    pub fn defaults() -> Vec<Column> {
        vec![
            Column::new(
                "Name",
                "string",
                0,
                ".metadata.name",
                "Name must be unique within a namespace.",
            ),
            Column::new(
                "Created At",
                "date",
                0,
                ".metadata.creationTimestamp",
                "CreationTimestamp is a timestamp representing the server time when this object was created.",
            ),
        ]
    }
}

/// Reads a selectable field's value from an object.
pub type FieldValue = fn(&Value, &str) -> Option<String>;

/// One served kind.
pub struct KindSpec {
    /// API group; empty for the core group.
    pub group: String,
    pub version: String,
    pub kind: String,
    pub list_kind: String,
    /// URL plural, e.g. `events`.
    pub resource: String,
    pub singular: String,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    pub namespaced: bool,
    pub schema: Schema,
    pub strategy: Arc<dyn Strategy>,
    /// Fields usable in `fieldSelector` besides `metadata.name`/`metadata.namespace`.
    pub selectable_fields: Vec<String>,
    pub field_value: FieldValue,
    /// PUT of a missing object creates it (Events).
    pub allow_create_on_update: bool,
    /// Objects expire this long after their last write (Events: `--event-ttl`).
    pub ttl: Option<Duration>,
    /// DELETE answers with the deleted object (otherwise a Success Status).
    pub return_deleted_object: bool,
    /// Columns of the Table representation.
    pub columns: Vec<Column>,
}

impl KindSpec {
    /// `v1` for the core group, else `group/version`.
    #[must_use]
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `resource` or `resource.group`, as error messages name a kind.
    #[must_use]
    pub fn qualified_resource(&self) -> String {
        if self.group.is_empty() {
            self.resource.clone()
        } else {
            format!("{}.{}", self.resource, self.group)
        }
    }

    /// Whether `field` may appear in a field selector.
    #[must_use]
    pub fn selectable(&self, field: &str) -> bool {
        field == "metadata.name"
            || field == "metadata.namespace"
            || self.selectable_fields.iter().any(|f| f == field)
    }

    #[must_use]
    pub fn not_found(&self, name: &str) -> ApiError {
        ApiError::NotFound {
            group: self.group.clone(),
            resource: self.resource.clone(),
            name: name.into(),
        }
    }

    #[must_use]
    pub fn already_exists(&self, name: &str) -> ApiError {
        ApiError::AlreadyExists {
            group: self.group.clone(),
            resource: self.resource.clone(),
            name: name.into(),
        }
    }

    #[must_use]
    pub fn conflict(&self, name: &str, cause: &str) -> ApiError {
        ApiError::Conflict {
            group: self.group.clone(),
            resource: self.qualified_resource(),
            name: name.into(),
            cause: cause.into(),
        }
    }

    /// 422 Invalid (or 400 with `code`) naming this kind.
    #[must_use]
    pub fn invalid(&self, name: &str, causes: Vec<Cause>, code: u16) -> ApiError {
        ApiError::Invalid {
            kind: self.kind.clone(),
            group: self.group.clone(),
            name: name.into(),
            causes,
            code,
        }
    }
}
