//! `KindSpec`: everything the generic registry needs to serve a kind — names,
//! scope, schema, strategy hooks and selectable fields. A kind is this data;
//! no kind has handlers of its own. The parts a kind is made of live in this
//! module's files and are re-exported here.

mod answer;
mod column;
mod errors;
mod fields;
mod storage;
mod strategy;
mod subresources;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::api::deprecation::Deprecation;
use crate::api::index::Paths;
use crate::api::schema::Schema;

pub use answer::{Answerer, Question};
pub use column::{CellFn, Column};
pub use fields::{FieldValue, field_by_path};
pub use storage::{Conversion, StorageBinding, default_storage_prefix};
pub use strategy::{Claim, DefaultStrategy, DeleteAction, NameRule, Strategy};
pub use subresources::{ScalePaths, Subresources};

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
    /// What selectors read of a stored object (from `selectable_fields`),
    /// made on first use.
    pub selector_paths: OnceLock<Paths>,
    pub field_value: FieldValue,
    /// PUT of a missing object creates it (Events).
    pub allow_create_on_update: bool,
    /// Objects expire this long after their last write (Events: `--event-ttl`).
    pub ttl: Option<Duration>,
    /// DELETE answers with the deleted object (otherwise a Success Status).
    pub return_deleted_object: bool,
    /// PUT may leave out `metadata.resourceVersion` (custom resources and
    /// ClusterTrustBundles may not).
    pub unconditional_update: bool,
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
    /// Never stored: a create is answered by this function, and create is
    /// the kind's only verb (TokenReview, SelfSubjectReview).
    pub answered_by: Option<Arc<dyn Answerer>>,
    /// Set when this version is deprecated: every request to it is warned.
    pub deprecation: Option<Deprecation>,
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
            selector_paths: OnceLock::new(),
            field_value: field_by_path,
            allow_create_on_update: false,
            ttl: None,
            return_deleted_object: false,
            unconditional_update: true,
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
            answered_by: None,
            deprecation: None,
        }
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

    /// The verbs the kind serves, as discovery lists them.
    #[must_use]
    pub fn verbs(&self) -> &'static [&'static str] {
        answer::verbs(self.answered_by.is_some())
    }

    /// The paths selectors read of this kind's objects.
    #[must_use]
    pub fn selector_paths(&self) -> &Paths {
        self.selector_paths
            .get_or_init(|| Paths::for_fields(&self.selectable_fields))
    }

    /// Whether `field` may appear in a field selector.
    #[must_use]
    pub fn selectable(&self, field: &str) -> bool {
        field == "metadata.name"
            || field == "metadata.namespace"
            || self.selectable_fields.iter().any(|f| f == field)
    }
}
