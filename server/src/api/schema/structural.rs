//! The structural rules that tie a node's keywords together, checked once
//! the node is read: a type (or int-or-string), `properties` and `items`
//! only with their types, list and map types, and the keys of map lists.

use serde_json::{Map, Value};

use super::error::FieldError;
use super::model::{Schema, SchemaType};
use super::openapi::join;

/// The structural rules that tie keywords together.
pub(super) fn check_structure(
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
            Some(items) => check_map_keys(s, items, path, errors),
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
    if let (Some(kind @ ("set" | "map")), Some(items)) = (s.list_type.as_deref(), &s.items)
        && items.nullable
    {
        errors.push(FieldError::forbidden(
            at("items.nullable"),
            format!("cannot be nullable when x-kubernetes-list-type is {kind}"),
        ));
    }
    if s.list_type.is_some() && s.ty != Some(SchemaType::Array) {
        errors.push(FieldError::forbidden(
            at("x-kubernetes-list-type"),
            "only allowed with type array",
        ));
    }
}

/// The keys of a map list must be scalar item properties that are never
/// missing (required or defaulted) and never null.
fn check_map_keys(s: &Schema, items: &Schema, path: &str, errors: &mut Vec<FieldError>) {
    for (i, key) in s.list_map_keys.iter().enumerate() {
        let Some(prop) = items.property(key) else {
            errors.push(FieldError::invalid(
                join(path, "x-kubernetes-list-map-keys"),
                Value::from(key.as_str()),
                "entries must all be names of item properties",
            ));
            continue;
        };
        let at = join(path, &format!("items.properties[{key}]"));
        if matches!(prop.ty, Some(SchemaType::Array | SchemaType::Object)) {
            errors.push(FieldError::invalid(
                join(&at, "type"),
                Value::from("object"),
                "must be a scalar type if parent array's x-kubernetes-list-type is map",
            ));
        }
        if s.list_map_keys[..i].contains(key) {
            errors.push(FieldError::invalid(
                join(path, "x-kubernetes-list-map-keys"),
                Value::from(key.as_str()),
                "must not contain duplicate entries",
            ));
        }
        if !items.required.contains(key) && prop.default.is_none() {
            errors.push(FieldError::required(
                join(&at, "default"),
                "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
            ));
        }
        if prop.nullable {
            errors.push(FieldError::forbidden(
                join(&at, "nullable"),
                "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
            ));
        }
    }
}
