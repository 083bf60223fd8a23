//! `default`: `apply_defaults` fills missing fields of a value the way
//! Kubernetes' structural defaulting does, and `check_defaults` rejects, when
//! a CRD is read, defaults that Kubernetes would reject: inside top-level
//! `metadata`/`apiVersion`/`kind`, with fields the schema would prune, or not
//! valid against their own schema (value validations and CEL rules).

use serde_json::Value;

use super::error::FieldError;
use super::model::{Schema, SchemaType};
use super::unknown::prune;
use super::validate::validate;
use crate::api::cel;

/// Fills, recursively, every declared field that is missing (or `null`
/// while not nullable) and has a `default`; also `null` list items and map
/// values with a default. A filled-in default is itself defaulted further.
pub fn apply_defaults(schema: &Schema, value: &mut Value) {
    match value {
        Value::Object(fields) => {
            for (name, prop) in &schema.properties {
                let Some(default) = &prop.default else {
                    continue;
                };
                match fields.get_mut(name) {
                    None => {
                        fields.insert(name.clone(), default.clone());
                    }
                    Some(v) if v.is_null() && !prop.nullable => *v = default.clone(),
                    Some(_) => {}
                }
            }
            for (key, child) in fields.iter_mut() {
                if let Some(prop) = schema.property(key) {
                    apply_defaults(prop, child);
                } else if let Some(values) = &schema.additional_properties {
                    fill_null(values, child);
                    apply_defaults(values, child);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = &schema.items {
                for item in items.iter_mut() {
                    fill_null(item_schema, item);
                    apply_defaults(item_schema, item);
                }
            }
        }
        _ => {}
    }
}

fn fill_null(schema: &Schema, value: &mut Value) {
    if value.is_null()
        && !schema.nullable
        && let Some(default) = &schema.default
    {
        *value = default.clone();
    }
}

/// Every problem with the defaults of a (structurally sound) schema.
pub(super) fn check_defaults(root: &Schema) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (name, prop) in &root.properties {
        let at = format!("properties[{name}]");
        let forbidden = matches!(name.as_str(), "metadata" | "apiVersion" | "kind");
        walk(prop, &at, forbidden.then_some(name.as_str()), &mut errors);
    }
    errors
}

/// `top_level_meta` names the top-level field (`metadata`, ...) this node is
/// under, where defaults are not allowed at all.
fn walk(s: &Schema, at: &str, top_level_meta: Option<&str>, errors: &mut Vec<FieldError>) {
    if let Some(default) = &s.default {
        let field = format!("{at}.default");
        match top_level_meta {
            Some(meta) => errors.push(FieldError::forbidden(
                field,
                format!("must not be set in top-level {meta}"),
            )),
            None => check_one(s, default, &field, errors),
        }
    }
    for (name, prop) in &s.properties {
        walk(
            prop,
            &format!("{at}.properties[{name}]"),
            top_level_meta,
            errors,
        );
    }
    if let Some(items) = &s.items {
        walk(items, &format!("{at}.items"), top_level_meta, errors);
    }
    if let Some(values) = &s.additional_properties {
        walk(
            values,
            &format!("{at}.additionalProperties"),
            top_level_meta,
            errors,
        );
    }
}

fn check_one(s: &Schema, default: &Value, field: &str, errors: &mut Vec<FieldError>) {
    let mut defaulted = default.clone();
    apply_defaults(s, &mut defaulted);
    let mut pruned = defaulted.clone();
    prune(s, &mut pruned);
    if pruned != defaulted {
        errors.push(FieldError::invalid(
            field,
            default.clone(),
            "must not have unknown fields",
        ));
        return;
    }
    if default.is_null() && !s.nullable && s.ty != Some(SchemaType::Object) {
        // `null` as a default means "unset", which a default cannot mean.
        errors.push(FieldError::invalid(
            field,
            Value::Null,
            "must not be null for a non-nullable field",
        ));
        return;
    }
    let mut found: Vec<FieldError> = validate(s, &defaulted);
    if found.is_empty() {
        found = cel::validate_rules(s, &defaulted, None);
    }
    errors.extend(found.into_iter().map(|e| e.prefixed(field)));
}
