//! Label and field selectors of list and watch requests: parsing with
//! Kubernetes' grammar and error texts, and matching.
//!
//! - `LabelSelector` — `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`,
//!   `k`, `!k`, `k>n`, `k<n`, comma = AND. Keys and values are checked as
//!   Kubernetes checks label syntax; errors read like apimachinery's
//!   (`unable to parse requirement: ...`, `found ',', expected: identifier`).
//!   `!=` and `notin` select objects that lack the label.
//! - `FieldSelector` — `f=v`, `f==v`, `f!=v`, comma = AND, `\,` `\=` `\\`
//!   escapes in values; malformed input gives
//!   `invalid selector: '<sel>'; can't understand '<term>'`. Which fields a
//!   kind supports is the caller's check (`field label not supported: <f>`).
//!
//! Parse errors are whole messages for a 400 `BadRequest` (already prefixed
//! where Kubernetes prefixes them). Both selectors are pure values: parse once
//! per request, match per object.

mod field;
mod label;
mod label_parser;
mod lexer;
mod names;
mod shard;

#[cfg(test)]
mod tests;

pub use field::{FieldSelector, FieldTerm};
pub use label::{LabelSelector, Labels, Operator, Requirement};
pub use names::qualified_name_errors;
pub use shard::{ShardSelector, fnv1a64};
