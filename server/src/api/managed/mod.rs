//! Field ownership (spec 2.3, 4.6): field sets and their FieldsV1 form,
//! `metadata.managedFields` entries, the Update bookkeeping every write does
//! and server-side apply. Schema-driven: a kind's list and map types decide
//! how values are identified, for built-in kinds and custom resources alike.

pub mod apply;
pub mod entries;
pub mod fields_v1;
pub mod merge;
pub mod path;
pub mod prune;
pub mod reconcile;
pub mod set;
pub mod shape;
pub mod update;
pub mod walk;

#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod update_tests;

pub use apply::{apply, conflict_error};
pub use entries::{Managed, Operation};
pub use set::FieldSet;
pub use update::record_update;
pub use walk::{Diff, Scope, created, diff};

/// Who writes, and when: the identity an entry is recorded under.
#[derive(Clone, Copy, Debug)]
pub struct Writer<'a> {
    pub manager: &'a str,
    /// The group/version the object was written at.
    pub api_version: &'a str,
    /// Empty for the main resource.
    pub subresource: &'a str,
    /// RFC 3339, second precision, UTC.
    pub time: &'a str,
}
