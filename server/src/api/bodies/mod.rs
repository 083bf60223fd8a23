//! Request bodies that are not objects of the kind addressed — DeleteOptions,
//! an Eviction, a Scale — each with its schema (also published in OpenAPI)
//! and one decoding step that handlers run before any storage operation, so
//! no handler acts on a body it has not validated.

pub mod binding;
pub mod delete_options;
pub mod eviction;
pub mod scale;
pub mod token_request;

use serde_json::Value;

use crate::api::error::ApiError;
use crate::api::schema::{self, Schema};
use crate::api::validation;

/// What a body must be: an object whose kind (when it names one) is
/// `kind`, whose fields have the schema's types.
pub(crate) struct BodyType<'a> {
    /// The Go type Kubernetes decodes into (`DeleteOptions`, `Scale`).
    pub kind: &'static str,
    /// The group of that type, for the Invalid status (`meta.k8s.io`).
    pub group: &'a str,
    /// apiVersions the body may name (any when empty).
    pub api_versions: &'a [&'a str],
    pub schema: &'a Schema,
}

impl BodyType<'_> {
    /// Checks shape, kind, apiVersion and field types; a problem is a 400.
    pub fn check(&self, value: &Value) -> Result<(), ApiError> {
        let Some(obj) = value.as_object() else {
            return Err(ApiError::BadRequest(format!(
                "the body of the request must be a {} object, not {}",
                self.kind,
                json_type(value)
            )));
        };
        let versions = self.api_versions;
        check_type_meta(
            obj,
            self.kind,
            |v| versions.is_empty() || versions.contains(&v),
            || versions.first().copied().unwrap_or_default().to_string(),
        )?;
        let causes = validation::schema_causes(self.schema, value);
        if causes.is_empty() {
            return Ok(());
        }
        Err(ApiError::Invalid {
            kind: self.kind.into(),
            group: self.group.into(),
            name: String::new(),
            causes,
            code: 400,
        })
    }

    /// Undeclared fields of the body (`spec.foo`), for `fieldValidation`.
    #[must_use]
    pub fn unknown_fields(&self, value: &Value) -> Vec<String> {
        schema::unknown_fields(self.schema, value)
    }
}

/// A body's `apiVersion` and `kind`, when it names them, must be the
/// expected ones: `accepts` says which apiVersions are, `expected` names
/// one for the message (built only on failure: every write checks this).
pub fn check_type_meta(
    obj: &serde_json::Map<String, Value>,
    kind: &str,
    accepts: impl Fn(&str) -> bool,
    expected: impl Fn() -> String,
) -> Result<(), ApiError> {
    let named = |field: &str| {
        obj.get(field)
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
    };
    if let Some(v) = named("apiVersion")
        && !accepts(v)
    {
        return Err(ApiError::BadRequest(format!(
            "the API version in the data ({v}) does not match the expected API version ({})",
            expected()
        )));
    }
    if let Some(k) = named("kind")
        && k != kind
    {
        return Err(ApiError::BadRequest(format!(
            "the kind in the data ({k}) does not match the expected kind ({kind})"
        )));
    }
    Ok(())
}

/// How Go's decoder names a JSON value's type in its errors.
#[must_use]
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
