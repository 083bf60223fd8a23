//! `validate`: checks a value against a schema — JSON types, required fields,
//! enumerations, formats, integer ranges and the value validations of
//! `limits` — and reports every problem with its field path. Unknown fields
//! are not its business (see `unknown`), nor are CEL rules (see `cel`).

use std::fmt::Write as _;

use serde_json::{Map, Number, Value};

use super::error::{FieldError, must_be_of_type};
use super::format;
use super::limits;
use super::model::{Schema, SchemaType};
use super::numbers::json_eq;

/// Every problem of `value` against `schema`, in document order (an object's
/// missing required fields first, then its fields as they appear).
///
/// A JSON `null` counts as "unset" unless the field is `nullable`, the way
/// Go's decoder leaves a struct field at its zero value on `null`: so `null`
/// passes for an optional field and is `Required value` for a required one.
#[must_use]
pub fn validate(schema: &Schema, value: &Value) -> Vec<FieldError> {
    walk(schema, value, true)
}

/// `validate` without the `required` checks: for a partial object (an
/// apply configuration), whose missing fields the live object may supply.
#[must_use]
pub fn validate_present(schema: &Schema, value: &Value) -> Vec<FieldError> {
    walk(schema, value, false)
}

fn walk(schema: &Schema, value: &Value, check_required: bool) -> Vec<FieldError> {
    let mut walk = Walk {
        path: String::new(),
        errors: Vec::new(),
        check_required,
    };
    match (value, schema.ty) {
        // "null is unset" is about fields; a whole body of `null` is not an object.
        (Value::Null, Some(ty)) if !schema.nullable => walk.type_error(ty.as_str(), value),
        _ => walk.node(schema, value),
    }
    walk.errors
}

struct Walk {
    /// Path of the node being checked; children append and truncate back.
    path: String,
    errors: Vec<FieldError>,
    check_required: bool,
}

impl Walk {
    fn node(&mut self, schema: &Schema, value: &Value) {
        if value.is_null() {
            return;
        }
        if schema.int_or_string {
            if !(value.is_string() || is_integer(value)) {
                return self.type_error("integer or string", value);
            }
            self.check_enum(schema, value);
            return limits::check(schema, value, &self.path, &mut self.errors);
        }
        let Some(ty) = schema.ty else {
            // Only preserve-unknown-fields nodes lack a type: anything goes.
            return;
        };
        match (ty, value) {
            (SchemaType::Object, Value::Object(fields)) => self.object(schema, fields),
            (SchemaType::Array, Value::Array(items)) => self.array(schema, items),
            (SchemaType::String, Value::String(s)) => self.string(schema, s),
            (SchemaType::Integer, Value::Number(n)) if !n.is_f64() => self.integer(schema, n),
            (SchemaType::Number, Value::Number(_)) | (SchemaType::Boolean, Value::Bool(_)) => {}
            _ => return self.type_error(ty.as_str(), value),
        }
        self.check_enum(schema, value);
        limits::check(schema, value, &self.path, &mut self.errors);
    }

    fn object(&mut self, schema: &Schema, fields: &Map<String, Value>) {
        let required = if self.check_required {
            schema.required.as_slice()
        } else {
            &[]
        };
        for name in required {
            let child_nullable = schema.field_schema(name).is_some_and(|s| s.nullable);
            match fields.get(name) {
                Some(Value::Null) if child_nullable => {}
                None | Some(Value::Null) => {
                    let base = self.push_field(name);
                    self.errors
                        .push(FieldError::required(self.path.clone(), ""));
                    self.path.truncate(base);
                }
                Some(_) => {}
            }
        }
        // Structural schemas never mix properties and additionalProperties.
        let is_map = schema.additional_properties.is_some();
        for (key, child) in fields {
            let Some(child_schema) = schema.field_schema(key) else {
                continue;
            };
            let base = if is_map {
                self.push_key(key)
            } else {
                self.push_field(key)
            };
            self.node(child_schema, child);
            self.path.truncate(base);
        }
    }

    fn array(&mut self, schema: &Schema, items: &[Value]) {
        let Some(item_schema) = &schema.items else {
            return;
        };
        for (i, item) in items.iter().enumerate() {
            let base = self.path.len();
            let _ = write!(self.path, "[{i}]");
            self.node(item_schema, item);
            self.path.truncate(base);
        }
    }

    fn string(&mut self, schema: &Schema, s: &str) {
        if let Some(f) = &schema.format
            && !format::string_matches(f, s)
        {
            let detail = must_be_of_type(&self.path, f, s);
            self.errors.push(FieldError::invalid(
                self.path.clone(),
                Value::from(s),
                detail,
            ));
        }
    }

    fn integer(&mut self, schema: &Schema, n: &Number) {
        let fits = match schema.format.as_deref() {
            Some("int32") => n.as_i64().is_some_and(|i| i32::try_from(i).is_ok()),
            // Kubernetes reads integers as int64 whatever the format says.
            _ => n.is_i64(),
        };
        if !fits {
            let f = schema.format.as_deref().unwrap_or("int64");
            let detail = must_be_of_type(&self.path, f, &n.to_string());
            self.errors.push(FieldError::invalid(
                self.path.clone(),
                Value::Number(n.clone()),
                detail,
            ));
        }
    }

    fn check_enum(&mut self, schema: &Schema, value: &Value) {
        if !schema.enum_values.is_empty()
            && !schema
                .enum_values
                .iter()
                .any(|allowed| json_eq(allowed, value))
        {
            self.errors.push(FieldError::not_supported(
                self.path.clone(),
                value.clone(),
                &schema.enum_values,
            ));
        }
    }

    fn type_error(&mut self, expected: &str, value: &Value) {
        self.errors
            .push(FieldError::type_invalid(self.path.clone(), expected, value));
    }

    /// Appends `.name` (or `name` at the root); returns the length to truncate back to.
    fn push_field(&mut self, name: &str) -> usize {
        let base = self.path.len();
        if base > 0 {
            self.path.push('.');
        }
        self.path.push_str(name);
        base
    }

    /// Appends `[key]`, Kubernetes' notation for a map entry.
    fn push_key(&mut self, key: &str) -> usize {
        let base = self.path.len();
        let _ = write!(self.path, "[{key}]");
        base
    }
}

/// Whether a JSON number was written as an integer (`1`, not `1.0`), as Go's
/// decoder requires for integer fields.
fn is_integer(v: &Value) -> bool {
    matches!(v, Value::Number(n) if !n.is_f64())
}
