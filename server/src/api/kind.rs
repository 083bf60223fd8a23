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
    /// Kinds deleted gracefully (pods): the grace period a DELETE without
    /// `gracePeriodSeconds` gets. `None`: deletes take effect at once.
    fn default_grace_period_seconds(&self, _obj: &Value) -> Option<i64> {
        None
    }
}

/// A strategy with every default: plain objects.
pub struct DefaultStrategy;

impl Strategy for DefaultStrategy {}

/// Computes a Table cell from the whole object, for cells no single path
/// holds (a pod's `1/2` ready containers, its restart count).
pub type CellFn = fn(&Value) -> Value;

/// One column of the kind's Table representation (`kubectl get`).
#[derive(Clone, Debug)]
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
    /// When set, the cell is this function's answer instead of `json_path`'s.
    pub cell: Option<CellFn>,
    /// Cells show the time elapsed since the timestamp at `json_path`
    /// (`5m`), as Age columns and CRD `date` columns do.
    pub elapsed: bool,
}

impl PartialEq for Column {
    fn eq(&self, other: &Column) -> bool {
        // Cell functions compare by address: the same function may have
        // two, so this can only err towards "different".
        let same_cell = match (self.cell, other.cell) {
            (Some(a), Some(b)) => std::ptr::fn_addr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        same_cell
            && (
                &self.name,
                &self.type_,
                &self.format,
                &self.description,
                self.priority,
                &self.json_path,
                self.elapsed,
            ) == (
                &other.name,
                &other.type_,
                &other.format,
                &other.description,
                other.priority,
                &other.json_path,
                other.elapsed,
            )
    }
}

impl Eq for Column {}

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
            cell: None,
            elapsed: false,
        }
    }

    /// The `Name` column every printer starts with.
    #[must_use]
    pub fn name() -> Column {
        Column::new(
            "Name",
            "string",
            0,
            ".metadata.name",
            "Name must be unique within a namespace.",
        )
    }

    /// The `Age` column built-in printers show: time since creation.
    #[must_use]
    pub fn age() -> Column {
        Column {
            elapsed: true,
            ..Column::new(
                "Age",
                "string",
                0,
                ".metadata.creationTimestamp",
                "CreationTimestamp is a timestamp representing the server time when this object was created.",
            )
        }
    }

    /// A column whose cells `cell` computes from the object.
    #[must_use]
    pub fn computed(
        name: &str,
        type_: &str,
        priority: i32,
        cell: CellFn,
        description: &str,
    ) -> Column {
        Column {
            cell: Some(cell),
            ..Column::new(name, type_, priority, "", description)
        }
    }

    /// The default columns of a kind without its own (Kubernetes' default table).
    #[must_use]
    pub fn defaults() -> Vec<Column> {
        vec![
            Column::name(),
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

/// A selectable field read by its dotted path (`spec.nodeName`); scalars
/// become their text, a missing field the empty string (Go's zero value).
#[must_use]
pub fn field_by_path(obj: &Value, field: &str) -> Option<String> {
    let mut at = obj;
    for segment in field.split('.') {
        match at.get(segment) {
            Some(next) => at = next,
            None => return Some(String::new()),
        }
    }
    Some(match at {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Bool(_) | Value::Number(_) => at.to_string(),
        Value::Array(_) | Value::Object(_) => return None,
    })
}

/// Subresources a kind serves under `{name}/{subresource}`.
#[derive(Clone, Debug, Default)]
pub struct Subresources {
    /// `/status`: writes there change only `status`; the main resource
    /// ignores `status`.
    pub status: bool,
    /// `/scale`: an `autoscaling/v1` Scale over these fields.
    pub scale: Option<ScalePaths>,
    /// `/eviction` (pods): POST an Eviction to delete the object gracefully.
    pub eviction: bool,
}

/// Where a kind keeps the fields its Scale subresource shows, as simple
/// JSONPaths (`.spec.replicas`).
#[derive(Clone, Debug)]
pub struct ScalePaths {
    pub spec_replicas: String,
    pub status_replicas: String,
    pub label_selector: Option<String>,
}

/// Converts objects between a served version and the stored form.
pub trait Conversion: Send + Sync {
    /// The served object (already validated) as it is stored.
    fn served_to_storage(&self, served: Value) -> Value;
    /// A stored object as this version serves it.
    fn storage_to_served(&self, stored: Value) -> Value;
}

/// Where and in which form a kind's objects are stored. Several served
/// versions (a CRD's, or `events.{domain}/v1` beside core Events) share one.
#[derive(Clone)]
pub struct StorageBinding {
    /// Key prefix of the whole collection, ending in `/`.
    pub prefix: String,
    /// `apiVersion` of stored objects.
    pub api_version: String,
    /// Field conversion; `None` when only `apiVersion` differs (a CRD's
    /// conversion strategy `None`).
    pub conversion: Option<Arc<dyn Conversion>>,
}

/// Who defined a kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    BuiltIn,
    /// The CustomResourceDefinition of this name.
    Crd(String),
}

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
    pub subresources: Subresources,
    pub storage: StorageBinding,
    /// `metadata.generation` counts changes outside `metadata` (and outside
    /// `status` when it is a subresource). Kinds without it keep generation
    /// at 1 from creation.
    pub tracks_generation: bool,
    pub origin: Origin,
    /// `false` while the defining CRD is being deleted: creates are refused.
    pub accepts_creates: bool,
    /// Whether deletes honour foreground/orphan propagation (Kubernetes
    /// declares garbage collection unsupported for Events).
    pub garbage_collected: bool,
}

/// The key prefix DESIGN.md gives a collection: `/registry/{resource}/` in
/// the core group, `/registry/{group}/{resource}/` in named groups.
#[must_use]
pub fn default_storage_prefix(group: &str, resource: &str) -> String {
    if group.is_empty() {
        format!("/registry/{resource}/")
    } else {
        format!("/registry/{group}/{resource}/")
    }
}

impl KindSpec {
    /// A kind with every default: `<Kind>List`, lower-case singular, no
    /// short names, plain strategy, no selectable fields of its own, default
    /// columns, no subresources, stored as served under its own prefix.
    #[must_use]
    pub fn new(
        group: &str,
        version: &str,
        kind: &str,
        resource: &str,
        namespaced: bool,
        schema: Schema,
    ) -> KindSpec {
        let api_version = if group.is_empty() {
            version.to_string()
        } else {
            format!("{group}/{version}")
        };
        KindSpec {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
            list_kind: format!("{kind}List"),
            resource: resource.into(),
            singular: kind.to_ascii_lowercase(),
            short_names: Vec::new(),
            categories: Vec::new(),
            namespaced,
            schema,
            strategy: Arc::new(DefaultStrategy),
            selectable_fields: Vec::new(),
            field_value: field_by_path,
            allow_create_on_update: false,
            ttl: None,
            return_deleted_object: false,
            columns: Column::defaults(),
            subresources: Subresources::default(),
            storage: StorageBinding {
                prefix: default_storage_prefix(group, resource),
                api_version,
                conversion: None,
            },
            tracks_generation: false,
            origin: Origin::BuiltIn,
            accepts_creates: true,
            garbage_collected: true,
        }
    }

    /// Whether stored objects are already in this version's form, so stored
    /// bytes can be served as they are.
    #[must_use]
    pub fn stores_served_form(&self) -> bool {
        self.storage.conversion.is_none() && self.is_api_version(&self.storage.api_version)
    }

    /// A served object (validated, canonical) in its stored form.
    #[must_use]
    pub fn served_to_storage(&self, served: Value) -> Value {
        if self.stores_served_form() {
            return served;
        }
        let mut stored = match &self.storage.conversion {
            Some(c) => c.served_to_storage(served),
            None => served,
        };
        if let Some(o) = stored.as_object_mut() {
            o.insert(
                "apiVersion".into(),
                Value::from(self.storage.api_version.clone()),
            );
        }
        stored
    }

    /// A stored object in this version's form.
    #[must_use]
    pub fn storage_to_served(&self, stored: Value) -> Value {
        if self.stores_served_form() {
            return stored;
        }
        let mut served = match &self.storage.conversion {
            Some(c) => c.storage_to_served(stored),
            None => stored,
        };
        if let Some(o) = served.as_object_mut() {
            o.insert("kind".into(), Value::from(self.kind.clone()));
            o.insert("apiVersion".into(), Value::from(self.api_version()));
        }
        served
    }

    /// Whether `api_version` names this kind's group/version (without the
    /// allocation `api_version()` makes: this runs per served object).
    #[must_use]
    pub fn is_api_version(&self, api_version: &str) -> bool {
        if self.group.is_empty() {
            return api_version == self.version;
        }
        api_version
            .strip_prefix(self.group.as_str())
            .and_then(|rest| rest.strip_prefix('/'))
            == Some(self.version.as_str())
    }

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
