//! CEL validation rules of custom resources (`x-kubernetes-validations`):
//! compiled when a schema is read (`compile_rules`, with Kubernetes' error
//! wording), their estimated cost checked (`check_costs`), and run against
//! objects (`validate_rules`), with `self`, `oldSelf` (transition rules),
//! property-name escaping (`escape`) and the Kubernetes libraries (`library`:
//! lists, regex, quantity; `authz`: the `authorizer` variable, bound to the
//! writer, checked through the server's authorizer chain).
//!
//! # Cost model
//!
//! The `cel` crate counts nothing, so cost is computed here, by `cost`, as an
//! upper bound over the expression tree given the largest size of each
//! variable (a `Shape`):
//!
//! - literals cost 0, a variable or field selection 1, a list literal 40
//!   plus its elements, a map literal 30 plus its entries;
//! - comparisons and arithmetic cost 1; `==`/`!=` and `+` on strings and
//!   lists pay one unit per 10 elements (characters) they walk;
//! - `contains`, `startsWith`, `indexOf`, the strings extension: one unit per
//!   10 characters of the receiver; `matches`, `find`, `findAll`:
//!   length(regex) × length(input);
//! - list functions (`min`, `max`, `sum`, `isSorted`) and `in`: the list length;
//! - a comprehension (`all`, `exists`, `map`, `filter`, ...): its range, plus
//!   length × (condition + step), plus its result; `map`/`filter`
//!   accumulators grow by at most one element per turn;
//! - an authorization `check` costs 350,000 (Kubernetes' figure: two fit in
//!   one evaluation); the library's other functions cost 1;
//! - `?:` costs its condition plus the dearer branch; anything else costs 1.
//!
//! At CRD load the shapes come from the schema (`maxLength`, `maxItems`,
//! `maxProperties`; unbounded sizes are what fits in a 3 MiB request), and a
//! rule's estimate is multiplied by how many times it can run (the product
//! of list and map sizes above it). A rule over `STATIC_ESTIMATED_COST_LIMIT`
//! or a schema whose rules sum over `STATIC_ESTIMATED_CRD_COST_LIMIT` is
//! rejected. At runtime the same walk runs with the shapes of the actual
//! object before each evaluation: an expression whose bound exceeds
//! `PER_CALL_LIMIT` is not run, and the bounds of all rules of one object are
//! charged to `RUNTIME_CEL_COST_BUDGET`; when it runs out, validation stops
//! with Kubernetes' "running out of cost budget" error. Since the bound is
//! charged before the evaluation, no evaluation can take longer than its
//! budget allows (the bound over-approximates: `exists` is charged as if it
//! walked the whole list, `?:` as its dearer branch, map keys as 1024
//! characters long).

mod authz;
mod authz_decide;
mod authz_types;
mod bind;
mod compile;
mod cost;
mod escape;
mod eval;
pub mod expression;
mod library;
mod limits;
mod rule;
mod shape;
mod typed_list;

#[cfg(test)]
mod authz_compile_tests;
#[cfg(test)]
mod authz_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod typed_list_tests;

pub use authz::{Addressed, AuthorizerBinding, Requester};
pub use compile::MAX_EXPRESSION_BYTES;
pub use escape::escape;
pub use eval::{validate_rules, validate_rules_by};
pub use expression::{Evident, Expression};
pub use limits::check_costs;
pub use rule::{Rule, compile_rules};

/// Largest estimated cost of one expression (times how often it can run),
/// Kubernetes' `StaticEstimatedCostLimit`.
pub const STATIC_ESTIMATED_COST_LIMIT: u64 = 10_000_000;
/// Largest estimated cost of all the rules of one schema, Kubernetes'
/// `StaticEstimatedCRDCostLimit`.
pub const STATIC_ESTIMATED_CRD_COST_LIMIT: u64 = 100_000_000;
/// Largest cost of one evaluation, Kubernetes' `PerCallLimit`.
pub const PER_CALL_LIMIT: u64 = 1_000_000;
/// Cost budget of all the rules of one object, Kubernetes' `RuntimeCELCostBudget`.
pub const RUNTIME_CEL_COST_BUDGET: u64 = 10_000_000;
