//! Structural schemas: the data form of a kind's fields (the OpenAPI v3 subset
//! that CustomResourceDefinitions use) and the checks run on request bodies.
//!
//! Built-in kinds write their schema with the builders (`Schema::object`,
//! `Schema::string`, ...); CRDs arrive through `Schema::from_openapi`. Both then
//! go through the same three functions:
//!
//! - `validate` — types, required fields, enums, formats, integer ranges and
//!   value validations (`minimum`, `maxLength`, `pattern`, `maxItems`,
//!   `anyOf`, list-type uniqueness, ...). Type errors use CRD validation's
//!   wording (`count: Invalid value: "string": count in body must be of type integer: "string"`).
//! - `apply_defaults` — fills `default`s in, as structural defaulting does.
//! - `validate_rules` — the CEL `x-kubernetes-validations` (see `api::cel`).
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
//! server-side apply; `validate` enforces only that `set` and `map` lists
//! repeat no element or key.

mod builders;
mod defaults;
mod error;
mod format;
mod keywords;
mod limits;
mod markers;
mod meta;
mod model;
mod normalize;
mod numbers;
mod openapi;
mod pattern;
mod structural;
mod unknown;
mod validate;

#[cfg(test)]
mod openapi_tests;
#[cfg(test)]
mod tests;

pub use crate::api::cel::validate_rules;
pub use defaults::apply_defaults;
pub use error::{ErrorType, FieldError, go_quote};
pub use model::{Limits, Schema, SchemaType, TimePrecision};
pub use normalize::normalize;
pub use numbers::go_float;
pub use pattern::Pattern;
pub use unknown::{prune, unknown_fields};
pub use validate::{validate, validate_present};
