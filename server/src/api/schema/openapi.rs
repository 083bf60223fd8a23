//! Reads a CRD's `openAPIV3Schema` (JSON form) into a `Schema`, rejecting what
//! a structural schema may not contain.
//!
//! Value-validation keywords (`minimum`, `pattern`, `maxItems`, `anyOf`, ...),
//! `default`, `example` and `x-kubernetes-validations` are accepted but not
//! enforced yet; the CRD work extends `Schema` for them.

use serde_json::{Map, Value};

use super::error::FieldError;
use super::model::{Schema, SchemaType};

/// Accepted and (for now) ignored.
const IGNORED: &[&str] = &[
    "title",
    "default",
    "example",
    "externalDocs",
    "maximum",
    "minimum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "multipleOf",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxProperties",
    "minProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "x-kubernetes-validations",
];

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
    pub fn from_openapi(doc: &Value) -> Result<Schema, Vec<FieldError>> {
        let mut errors = Vec::new();
        let schema = read(doc, "", &mut errors);
        if errors.is_empty() && schema.ty != Some(SchemaType::Object) {
            let ty = schema.ty.map_or("", SchemaType::as_str);
            errors.push(FieldError::invalid(
                "type",
                Value::from(ty),
                "must be object at the root",
            ));
        }
        if errors.is_empty() {
            Ok(schema)
        } else {
            Err(errors)
        }
    }
}

fn join(path: &str, segment: &str) -> String {
    if path.is_empty() {
        segment.to_owned()
    } else {
        format!("{path}.{segment}")
    }
}

fn read(doc: &Value, path: &str, errors: &mut Vec<FieldError>) -> Schema {
    let Value::Object(fields) = doc else {
        errors.push(FieldError::type_invalid(path, "object", doc));
        return Schema::default();
    };
    let mut s = Schema::default();
    for (key, value) in fields {
        let at = join(path, key);
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
            "x-kubernetes-preserve-unknown-fields" => {
                s.preserve_unknown_fields = boolean(value, &at, errors)
            }
            "x-kubernetes-int-or-string" => s.int_or_string = boolean(value, &at, errors),
            "x-kubernetes-embedded-resource" => s.embedded_resource = boolean(value, &at, errors),
            "x-kubernetes-list-type" => s.list_type = Some(string(value, &at, errors)),
            "x-kubernetes-map-type" => s.map_type = Some(string(value, &at, errors)),
            "x-kubernetes-list-map-keys" => s.list_map_keys = strings(value, &at, errors),
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
                            (
                                name.clone(),
                                read(p, &join(path, &format!("properties[{name}]")), errors),
                            )
                        })
                        .collect();
                }
                other => errors.push(FieldError::type_invalid(at, "object", other)),
            },
            "items" => s.items = Some(Box::new(read(value, &at, errors))),
            "additionalProperties" => match value {
                Value::Bool(false) => {
                    errors.push(FieldError::forbidden(
                        at,
                        "additionalProperties cannot be set to false",
                    ));
                }
                // `true` allows any value, which is what preserve-unknown-fields says.
                Value::Bool(true) => s.additional_properties = Some(Box::new(Schema::any())),
                other => s.additional_properties = Some(Box::new(read(other, &at, errors))),
            },
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
    check_structure(&s, fields, path, errors);
    s
}

/// The structural rules that tie keywords together.
fn check_structure(
    s: &Schema,
    fields: &Map<String, Value>,
    path: &str,
    errors: &mut Vec<FieldError>,
) {
    let at = |segment: &str| join(path, segment);
    if s.int_or_string {
        if let Some(ty) = s.ty {
            errors.push(FieldError::invalid(
                at("type"),
                Value::from(ty.as_str()),
                "must be empty if x-kubernetes-int-or-string is true",
            ));
        }
    } else if s.ty.is_none() && !s.preserve_unknown_fields {
        errors.push(FieldError::required(
            at("type"),
            "must not be empty for specified fields",
        ));
    }
    if s.ty != Some(SchemaType::Object) {
        for key in ["properties", "additionalProperties"] {
            if fields.contains_key(key) {
                errors.push(FieldError::forbidden(
                    at(key),
                    "only allowed with type object",
                ));
            }
        }
    }
    if !s.properties.is_empty() && s.additional_properties.is_some() {
        errors.push(FieldError::forbidden(
            at("additionalProperties"),
            "additionalProperties and properties are mutual exclusive",
        ));
    }
    match (s.ty, &s.items) {
        (Some(SchemaType::Array), None) => {
            errors.push(FieldError::required(at("items"), "must be specified"))
        }
        (Some(SchemaType::Array), Some(_)) | (_, None) => {}
        (_, Some(_)) => errors.push(FieldError::forbidden(
            at("items"),
            "only allowed with type array",
        )),
    }
    if s.embedded_resource && s.ty != Some(SchemaType::Object) {
        errors.push(FieldError::invalid(
            at("type"),
            Value::from(s.ty.map_or("", SchemaType::as_str)),
            "must be object if x-kubernetes-embedded-resource is true",
        ));
    }
    check_list_type(s, path, errors);
    if let Some(map_type) = &s.map_type {
        if !matches!(map_type.as_str(), "granular" | "atomic") {
            let supported = ["atomic", "granular"].map(Value::from);
            errors.push(FieldError::not_supported(
                at("x-kubernetes-map-type"),
                Value::from(map_type.as_str()),
                &supported,
            ));
        } else if s.ty != Some(SchemaType::Object) {
            errors.push(FieldError::forbidden(
                at("x-kubernetes-map-type"),
                "only allowed with type object",
            ));
        }
    }
}

fn check_list_type(s: &Schema, path: &str, errors: &mut Vec<FieldError>) {
    let at = |segment: &str| join(path, segment);
    match s.list_type.as_deref() {
        None | Some("atomic" | "set") => {
            if !s.list_map_keys.is_empty() {
                errors.push(FieldError::forbidden(
                    at("x-kubernetes-list-map-keys"),
                    "only allowed with x-kubernetes-list-type map",
                ));
            }
        }
        Some("map") => match s
            .items
            .as_deref()
            .filter(|i| i.ty == Some(SchemaType::Object))
        {
            None => errors.push(FieldError::invalid(
                at("x-kubernetes-list-type"),
                Value::from("map"),
                "x-kubernetes-list-type map requires items of type object",
            )),
            Some(_) if s.list_map_keys.is_empty() => errors.push(FieldError::required(
                at("x-kubernetes-list-map-keys"),
                "must not be empty if x-kubernetes-list-type is map",
            )),
            Some(items) => {
                for key in s
                    .list_map_keys
                    .iter()
                    .filter(|k| items.property(k).is_none())
                {
                    errors.push(FieldError::invalid(
                        at("x-kubernetes-list-map-keys"),
                        Value::from(key.as_str()),
                        "entries must all be names of item properties",
                    ));
                }
            }
        },
        Some(other) => {
            let supported = ["atomic", "set", "map"].map(Value::from);
            errors.push(FieldError::not_supported(
                at("x-kubernetes-list-type"),
                Value::from(other),
                &supported,
            ));
        }
    }
    if s.list_type.is_some() && s.ty != Some(SchemaType::Array) {
        errors.push(FieldError::forbidden(
            at("x-kubernetes-list-type"),
            "only allowed with type array",
        ));
    }
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
