//! A request body checked against its kind's schema before any write:
//! apiVersion and kind, unknown and duplicate fields per `fieldValidation`
//! (then pruned), defaults, types and required fields, the normalized form.
//! (Decoding and defaulting, not Kubernetes admission: that is `request::admission`.)

use serde_json::Value;

use crate::api::bodies::check_type_meta;
use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::kind::{KindSpec, Origin};
use crate::api::schema;
use crate::api::store::{FieldValidation, Store};
use crate::api::validation;

impl FieldValidation {
    /// Unknown and duplicate fields of a body under this setting: a 400
    /// (`Strict`), the `Warning`s to send (`Warn`), or nothing (`Ignore`).
    pub fn judge(
        self,
        unknown: Vec<String>,
        duplicates: Vec<String>,
    ) -> Result<Vec<String>, ApiError> {
        let problems = unknown
            .into_iter()
            .map(|f| format!("unknown field {f:?}"))
            .chain(
                duplicates
                    .into_iter()
                    .map(|f| format!("duplicate field {f:?}")),
            );
        match self {
            FieldValidation::Ignore => Ok(Vec::new()),
            FieldValidation::Warn => Ok(problems.collect()),
            FieldValidation::Strict => {
                let problems: Vec<String> = problems.collect();
                if problems.is_empty() {
                    return Ok(problems);
                }
                Err(ApiError::BadRequest(format!(
                    "strict decoding error: {}",
                    problems.join(", ")
                )))
            }
        }
    }
}

impl Store {
    /// Checks a decoded body against the kind's schema: apiVersion/kind,
    /// unknown and duplicate fields per `fieldValidation`, types and required
    /// fields. Returns the pruned object and any warnings.
    pub fn decode_object(
        kind: &KindSpec,
        decoded: Decoded,
        validation: FieldValidation,
    ) -> Result<(Value, Vec<String>), ApiError> {
        let (value, warnings) = Store::check_fields(kind, decoded, validation)?;
        Ok((Store::default_and_validate(kind, value)?, warnings))
    }

    /// The first half of `decode_object`: apiVersion/kind, unknown and duplicate
    /// fields per `fieldValidation`, unknown fields pruned. Apply claims
    /// what this leaves, before defaults fill anything in.
    pub fn check_fields(
        kind: &KindSpec,
        decoded: Decoded,
        validation: FieldValidation,
    ) -> Result<(Value, Vec<String>), ApiError> {
        let Decoded {
            mut value,
            duplicates,
        } = decoded;
        let Some(obj) = value.as_object() else {
            return Err(ApiError::BadRequest(format!(
                "the body of the request must be a {} object",
                kind.kind
            )));
        };
        check_type_meta(
            obj,
            &kind.kind,
            |v| kind.is_api_version(v),
            || kind.api_version(),
        )?;
        if let Some(m) = obj
            .get("metadata")
            .filter(|m| !m.is_object() && !m.is_null())
        {
            return Err(ApiError::BadRequest(format!(
                "the body of the request could not be decoded: metadata must be an object, not {}",
                crate::api::bodies::json_type(m)
            )));
        }
        // Custom resources decode as unstructured objects, which Kubernetes
        // reads only when they say what they are.
        if kind.origin != Origin::BuiltIn {
            for (field, named) in [("apiVersion", "apiVersion"), ("kind", "Kind")] {
                if obj
                    .get(field)
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty)
                {
                    return Err(ApiError::BadRequest(format!(
                        "Object '{named}' is missing in the request body"
                    )));
                }
            }
        }
        let unknown = schema::unknown_fields(&kind.schema, &value);
        if !unknown.is_empty() || !duplicates.is_empty() {
            first_fatal_problem(kind, &value)?;
        }
        let warnings = validation.judge(unknown, duplicates)?;
        schema::prune(&kind.schema, &mut value);
        Ok((value, warnings))
    }

    /// The second half of `decode_object`: defaults, then types and required
    /// fields, then the normalized form.
    pub fn default_and_validate(kind: &KindSpec, mut value: Value) -> Result<Value, ApiError> {
        // Defaults first, as Kubernetes' decoding does: a defaulted field
        // satisfies `required`.
        schema::apply_defaults(&kind.schema, &mut value);
        schema_problems(kind, &value, schema::validate(&kind.schema, &value))?;
        schema::normalize(&kind.schema, &mut value);
        Ok(value)
    }

    /// The type and value problems of the fields an apply configuration
    /// has, found before its ownership is compared with the live object's
    /// (a conflict is an answer for valid requests only).
    pub fn check_present_fields(kind: &KindSpec, config: &Value) -> Result<(), ApiError> {
        schema_problems(kind, config, schema::validate_present(&kind.schema, config))
    }
}

/// Spec section 7: a body with unknown or duplicate fields and a fatal
/// problem (a value of the wrong type) is refused for that problem alone,
/// the first one, with nothing said of the unknown fields, at every
/// fieldValidation level.
fn first_fatal_problem(kind: &KindSpec, value: &Value) -> Result<(), ApiError> {
    // The schema's walk looks at known fields only: no pruned copy needed
    // (the unknown ones may be most of a large body).
    let first = schema::validate(&kind.schema, value)
        .into_iter()
        .find(|e| e.is_integer_overflow() || e.error_type == schema::ErrorType::TypeInvalid);
    match first {
        Some(fatal) => schema_problems(kind, value, vec![fatal]),
        None => Ok(()),
    }
}

/// A body's schema problems as the kind's error: built-in kinds fail to
/// decode (400), custom resources fail validation (422), as in Kubernetes;
/// an integer beyond int64 fails decoding for every kind, and an omitted
/// required field or a value of the wrong type is a bad request for every
/// kind (spec section 7).
fn schema_problems(
    kind: &KindSpec,
    value: &Value,
    errors: Vec<schema::FieldError>,
) -> Result<(), ApiError> {
    if errors.is_empty() {
        return Ok(());
    }
    let undecodable = errors.iter().any(|e| {
        e.is_integer_overflow()
            || matches!(
                e.error_type,
                schema::ErrorType::Required | schema::ErrorType::TypeInvalid
            )
    });
    let code = if kind.origin == Origin::BuiltIn || undecodable {
        400
    } else {
        422
    };
    let causes = errors.iter().map(validation::cause).collect();
    let name = crate::api::object::name(value).to_string();
    Err(kind.invalid(&name, causes, code))
}
