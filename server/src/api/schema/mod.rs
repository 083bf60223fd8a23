//! Structural schemas: the data form of a kind's fields (the OpenAPI v3 subset
//! that CustomResourceDefinitions use) and the checks run on request bodies.
//!
//! Built-in kinds write their schema with the builders (`Schema::object`,
//! `Schema::string`, ...); CRDs arrive through `Schema::from_openapi`. Both then
//! go through the same three functions:
//!
//! - `validate` — types, required fields, enums, formats, integer ranges. Type
//!   errors use CRD validation's wording
//!   (`count: Invalid value: "string": count in body must be of type integer: "string"`).
//! - `unknown_fields` — paths of undeclared fields, for `fieldValidation`
//!   (`Strict` rejects, `Warn` warns).
//! - `prune` — drops those fields before the object is stored.
//!
//! Two conventions, both Kubernetes': a JSON `null` on a non-nullable field is
//! "unset" (Go's decoder leaves the field at its zero value), so it passes
//! unless the field is required; and `integer` means an integer literal (`1`,
//! not `1.0`), as Go's decoder demands for built-in kinds. Validation paths
//! write map entries as `labels[key]` (`field.Path`); unknown-field paths as
//! `labels.key` (strict decoding). `list_type`/`map_type` are carried for
//! server-side apply and not enforced here.

mod error;
mod format;
mod meta;
mod model;
mod normalize;
mod openapi;
mod unknown;
mod validate;

#[cfg(test)]
mod tests;

pub use error::{ErrorType, FieldError, go_quote};
pub use model::{Schema, SchemaType, TimePrecision};
pub use normalize::normalize;
pub use unknown::{prune, unknown_fields};
pub use validate::validate;
