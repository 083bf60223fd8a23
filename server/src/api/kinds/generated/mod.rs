//! Built-in kinds' schemas generated from k8s-openapi's `JsonSchema` impls
//! (structure, `required`, descriptions), converted once at start, plus
//! tables of our own for what those lack (list types and merge keys,
//! protobuf field numbers) and cairn's own schemas for the shared types.

mod convert;
mod facts;
mod list_facts;
mod list_facts_more;
mod overrides;
mod proto_numbers;
mod proto_numbers_aggregator;
mod proto_numbers_more;
mod proto_numbers_prerelease;
mod roots;

use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::api::schema::Schema;

fn definitions() -> &'static Map<String, Value> {
    static DEFINITIONS: OnceLock<Map<String, Value>> = OnceLock::new();
    DEFINITIONS.get_or_init(roots::definitions)
}

/// The schema of top-level kind `definition` (`io.k8s.api.apps.v1.Deployment`):
/// every field declared, `metadata` required as for every object.
///
/// # Panics
/// When `definition` is not among `roots`' types: a programming error.
#[must_use]
pub fn resource(definition: &str) -> Schema {
    let mut schema = convert::Converter::new(definitions())
        .definition(definition)
        .unwrap_or_else(|| panic!("{definition} is not a generated definition"));
    if !schema.required.iter().any(|r| r == "metadata") {
        schema.required.insert(0, "metadata".into());
    }
    schema
}

#[cfg(test)]
mod tests;
