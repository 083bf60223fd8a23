//! Schema validation results as Status causes.

use serde_json::Value;

use crate::api::error::Cause;
use crate::api::schema::{self, FieldError, Schema};

/// Converts a schema field error into a Status cause.
#[must_use]
pub fn cause(e: &FieldError) -> Cause {
    Cause::new(e.reason(), e.field.clone(), e.body())
}

/// Type errors and missing required fields of an object, as causes.
#[must_use]
pub fn schema_causes(schema: &Schema, value: &Value) -> Vec<Cause> {
    schema::validate(schema, value).iter().map(cause).collect()
}
