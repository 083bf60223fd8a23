//! Reads the OpenAPI value-validation keywords (`minimum`, `maxLength`,
//! `pattern`, `maxItems`, ...) of one schema node into its `Limits`.

use serde_json::Value;

use super::error::FieldError;
use super::model::Schema;
use super::pattern::Pattern;

/// Reads `key` if it is a value-validation keyword (junctors excluded);
/// `false` means the keyword is not one of them.
pub(super) fn read_limit(
    key: &str,
    value: &Value,
    at: &str,
    s: &mut Schema,
    errors: &mut Vec<FieldError>,
) -> bool {
    let limits = &mut s.limits;
    match key {
        "minimum" => limits.minimum = number(value, at, errors),
        "maximum" => limits.maximum = number(value, at, errors),
        "exclusiveMinimum" => limits.exclusive_minimum = flag(value, at, errors),
        "exclusiveMaximum" => limits.exclusive_maximum = flag(value, at, errors),
        "multipleOf" => {
            limits.multiple_of = number(value, at, errors);
            if limits.multiple_of.is_some_and(|m| m <= 0.0) {
                errors.push(FieldError::invalid(
                    at,
                    value.clone(),
                    "must be greater than zero",
                ));
            }
        }
        "minLength" => limits.min_length = count(value, at, errors),
        "maxLength" => limits.max_length = count(value, at, errors),
        "minItems" => limits.min_items = count(value, at, errors),
        "maxItems" => limits.max_items = count(value, at, errors),
        "minProperties" => limits.min_properties = count(value, at, errors),
        "maxProperties" => limits.max_properties = count(value, at, errors),
        "pattern" => match value {
            Value::String(source) => match Pattern::new(source) {
                Ok(p) => limits.pattern = Some(p),
                Err(why) => errors.push(FieldError::invalid(
                    at,
                    value.clone(),
                    format!("must be a valid regular expression, but isn't: {why}"),
                )),
            },
            other => errors.push(FieldError::type_invalid(at, "string", other)),
        },
        _ => return false,
    }
    true
}

fn number(v: &Value, at: &str, errors: &mut Vec<FieldError>) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        other => {
            errors.push(FieldError::type_invalid(at, "number", other));
            None
        }
    }
}

fn count(v: &Value, at: &str, errors: &mut Vec<FieldError>) -> Option<u64> {
    match v.as_u64() {
        Some(n) => Some(n),
        None if v.is_i64() => {
            errors.push(FieldError::invalid(
                at,
                v.clone(),
                "must be greater than or equal to 0",
            ));
            None
        }
        None => {
            errors.push(FieldError::type_invalid(at, "integer", v));
            None
        }
    }
}

fn flag(v: &Value, at: &str, errors: &mut Vec<FieldError>) -> bool {
    match v {
        Value::Bool(b) => *b,
        other => {
            errors.push(FieldError::type_invalid(at, "boolean", other));
            false
        }
    }
}
