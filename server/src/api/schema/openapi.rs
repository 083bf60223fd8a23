//! Reads a CRD's `openAPIV3Schema` (JSON form) into a `Schema`, rejecting what
//! a structural schema may not contain: the node keywords here (how they
//! combine in `structural`), value validations in `keywords`, junctors
//! (`allOf`, `anyOf`, `oneOf`, `not`) as nested schemas that may only
//! restrict values, `default`s (checked by `defaults::check_defaults` once
//! the tree is built) and `x-kubernetes-validations` (compiled and
//! cost-checked by `cel`).

use serde_json::Value;

use super::defaults::check_defaults;
use super::error::FieldError;
use super::keywords::read_limit;
use super::model::{Schema, SchemaType};
use super::structural::check_structure;
use crate::api::cel;

/// Accepted and not needed by the server.
const IGNORED: &[&str] = &["title", "example", "externalDocs", "uniqueItems"];

/// Not allowed in a structural schema.
const FORBIDDEN: &[&str] = &[
    "$ref",
    "$schema",
    "id",
    "definitions",
    "dependencies",
    "patternProperties",
    "additionalItems",
];

impl Schema {
    /// Parses an `openAPIV3Schema` document. The root must be an object.
    /// Error paths are relative to the document (`properties[spec].type`);
    /// use `FieldError::prefixed` to place them in a CRD.
    ///
    /// Also compiles every `x-kubernetes-validations` rule, rejects rules
    /// whose estimated cost is too high, and checks every `default`.
    pub fn from_openapi(doc: &Value) -> Result<Schema, Vec<FieldError>> {
        let mut errors = Vec::new();
        let schema = read(doc, "", Mode::Node, &mut errors);
        if errors.is_empty() && schema.ty != Some(SchemaType::Object) {
            let ty = schema.ty.map_or("", SchemaType::as_str);
            errors.push(FieldError::invalid(
                "type",
                Value::from(ty),
                "must be object at the root",
            ));
        }
        if errors.is_empty() {
            errors.extend(check_defaults(&schema));
        }
        if errors.is_empty() {
            errors.extend(cel::check_costs(&schema));
        }
        if errors.is_empty() {
            Ok(schema)
        } else {
            Err(errors)
        }
    }
}

/// Where a schema node sits: a real node of the tree, or inside a junctor,
/// where only value validations may appear.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Node,
    Nested,
}

pub(super) fn join(path: &str, segment: &str) -> String {
    if path.is_empty() {
        segment.to_owned()
    } else {
        format!("{path}.{segment}")
    }
}

fn read(doc: &Value, path: &str, mode: Mode, errors: &mut Vec<FieldError>) -> Schema {
    let Value::Object(fields) = doc else {
        errors.push(FieldError::type_invalid(path, "object", doc));
        return Schema::default();
    };
    let errors_before = errors.len();
    let mut s = Schema::default();
    let mut rules = None;
    for (key, value) in fields {
        let at = join(path, key);
        if mode == Mode::Nested && forbidden_in_junctor(key, value, &at, errors) {
            continue;
        }
        if read_limit(key, value, &at, &mut s, errors) {
            continue;
        }
        match key.as_str() {
            "type" => match value.as_str().map(|t| (t, SchemaType::parse(t))) {
                Some((_, Some(ty))) => s.ty = Some(ty),
                Some((t, None)) => errors.push(FieldError::not_supported(
                    at,
                    Value::from(t),
                    &["array", "boolean", "integer", "number", "object", "string"].map(Value::from),
                )),
                None => errors.push(FieldError::type_invalid(at, "string", value)),
            },
            "description" => s.description = string(value, &at, errors),
            "format" => s.format = Some(string(value, &at, errors)),
            "nullable" => s.nullable = boolean(value, &at, errors),
            "default" => s.default = Some(value.clone()),
            "x-kubernetes-preserve-unknown-fields" => {
                s.preserve_unknown_fields = boolean(value, &at, errors)
            }
            "x-kubernetes-int-or-string" => s.int_or_string = boolean(value, &at, errors),
            "x-kubernetes-embedded-resource" => s.embedded_resource = boolean(value, &at, errors),
            "x-kubernetes-list-type" => s.list_type = Some(string(value, &at, errors)),
            "x-kubernetes-map-type" => s.map_type = Some(string(value, &at, errors)),
            "x-kubernetes-list-map-keys" => s.list_map_keys = strings(value, &at, errors),
            "x-kubernetes-validations" => rules = Some((value, at)),
            "required" => s.required = strings(value, &at, errors),
            "enum" => match value {
                Value::Array(values) => s.enum_values.clone_from(values),
                other => errors.push(FieldError::type_invalid(at, "array", other)),
            },
            "properties" => match value {
                Value::Object(props) => {
                    s.properties = props
                        .iter()
                        .map(|(name, p)| {
                            let at = join(path, &format!("properties[{name}]"));
                            if mode == Mode::Nested && name == "metadata" {
                                errors.push(FieldError::forbidden(
                                    at.clone(),
                                    "must not be specified in a nested context",
                                ));
                            }
                            (name.clone(), read(p, &at, mode, errors))
                        })
                        .collect();
                }
                other => errors.push(FieldError::type_invalid(at, "object", other)),
            },
            "items" => s.items = Some(Box::new(read(value, &at, mode, errors))),
            "additionalProperties" => match value {
                Value::Bool(false) => {
                    errors.push(FieldError::forbidden(
                        at,
                        "additionalProperties cannot be set to false",
                    ));
                }
                // `true` allows any value, which is what preserve-unknown-fields says.
                Value::Bool(true) => s.additional_properties = Some(Box::new(Schema::any())),
                other => {
                    s.additional_properties = Some(Box::new(read(other, &at, mode, errors)));
                }
            },
            "allOf" | "anyOf" | "oneOf" => {
                let list = junctor_list(key, value, &at, errors);
                match key.as_str() {
                    "allOf" => s.limits.all_of = list,
                    "anyOf" => s.limits.any_of = list,
                    _ => s.limits.one_of = list,
                }
            }
            "not" => s.limits.not = Some(Box::new(read(value, &at, Mode::Nested, errors))),
            "uniqueItems" if value == &Value::Bool(true) => errors.push(FieldError::forbidden(
                at,
                "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
            )),
            k if FORBIDDEN.contains(&k) => {
                errors.push(FieldError::forbidden(
                    at,
                    format!("{k} is not supported in a structural schema"),
                ));
            }
            k if IGNORED.contains(&k) => {}
            k => errors.push(FieldError::forbidden(
                at,
                format!("unknown schema keyword {k:?}"),
            )),
        }
    }
    if mode == Mode::Node {
        check_structure(&s, fields, path, errors);
        if let Some((doc, at)) = rules {
            // Rules are compiled against a sound schema only: on a broken one
            // their errors would not help the author.
            if errors.len() == errors_before {
                s.rules = cel::compile_rules(doc, &at, &s, errors);
            }
        }
    }
    s
}

/// The schemas of `allOf`/`anyOf`/`oneOf`. The two int-or-string forms
/// Kubernetes allows (`anyOf: [{type: integer}, {type: string}]`, alone or
/// first in an `allOf`) restate the type and are skipped.
fn junctor_list(key: &str, value: &Value, at: &str, errors: &mut Vec<FieldError>) -> Vec<Schema> {
    let Value::Array(items) = value else {
        errors.push(FieldError::type_invalid(at, "array", value));
        return Vec::new();
    };
    if key == "anyOf" && is_int_or_string_pair(value) {
        return Vec::new();
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = format!("{at}[{i}]");
            match item {
                Value::Object(fields)
                    if key == "allOf"
                        && i == 0
                        && fields.get("anyOf").is_some_and(is_int_or_string_pair) =>
                {
                    let mut rest = fields.clone();
                    rest.remove("anyOf");
                    read(&Value::Object(rest), &at, Mode::Nested, errors)
                }
                _ => read(item, &at, Mode::Nested, errors),
            }
        })
        .collect()
}

fn is_int_or_string_pair(v: &Value) -> bool {
    *v == serde_json::json!([{"type": "integer"}, {"type": "string"}])
}

/// Keywords that would change a value's shape inside a junctor, with
/// Kubernetes' wording; `true` when `key` was one of them (and reported).
fn forbidden_in_junctor(key: &str, value: &Value, at: &str, errors: &mut Vec<FieldError>) -> bool {
    let detail = match key {
        "type" | "title" | "description" | "x-kubernetes-validations" => {
            "must be empty to be structural"
        }
        "x-kubernetes-list-map-keys" => "must be empty to be structural",
        "additionalProperties" | "default" | "x-kubernetes-list-type" | "x-kubernetes-map-type" => {
            "must be undefined to be structural"
        }
        "nullable"
        | "x-kubernetes-preserve-unknown-fields"
        | "x-kubernetes-embedded-resource"
        | "x-kubernetes-int-or-string" => {
            if value == &Value::Bool(false) {
                return true;
            }
            "must be false to be structural"
        }
        _ => return false,
    };
    errors.push(FieldError::forbidden(at, detail));
    true
}

fn string(v: &Value, at: &str, errors: &mut Vec<FieldError>) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => {
            errors.push(FieldError::type_invalid(at, "string", other));
            String::new()
        }
    }
}

fn boolean(v: &Value, at: &str, errors: &mut Vec<FieldError>) -> bool {
    match v {
        Value::Bool(b) => *b,
        other => {
            errors.push(FieldError::type_invalid(at, "boolean", other));
            false
        }
    }
}

fn strings(v: &Value, at: &str, errors: &mut Vec<FieldError>) -> Vec<String> {
    match v {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| string(item, &format!("{at}[{i}]"), errors))
            .collect(),
        other => {
            errors.push(FieldError::type_invalid(at, "array", other));
            Vec::new()
        }
    }
}
