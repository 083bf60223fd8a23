//! Fields a schema does not declare: `unknown_fields` lists their paths (what
//! strict field validation reports), `prune` removes them (what is stored).
//!
//! A field is known when the schema declares it, when its object is a map
//! (`additionalProperties`), or when it is `apiVersion`/`kind`/`metadata` of an
//! embedded resource. Under `x-kubernetes-preserve-unknown-fields` undeclared
//! fields are kept and not looked into. Paths follow Kubernetes' strict
//! decoding: `spec.foo`, `items[1].extra`, and map entries as `.key`.

use std::fmt::Write as _;

use serde_json::Value;

use super::model::{Schema, SchemaType};

/// Paths of the fields of `value` that `schema` does not know, in document order.
#[must_use]
pub fn unknown_fields(schema: &Schema, value: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let mut path = String::new();
    collect(schema, value, &mut path, &mut found);
    found
}

/// Removes the fields `unknown_fields` would list.
pub fn prune(schema: &Schema, value: &mut Value) {
    match (schema.ty, value) {
        (Some(SchemaType::Object), Value::Object(fields)) => {
            fields.retain(|key, child| match schema.field_schema(key) {
                Some(child_schema) => {
                    prune(child_schema, child);
                    true
                }
                None => schema.preserve_unknown_fields,
            });
        }
        (Some(SchemaType::Array), Value::Array(items)) => {
            if let Some(item_schema) = &schema.items {
                for item in items {
                    prune(item_schema, item);
                }
            }
        }
        _ => {}
    }
}

fn collect(schema: &Schema, value: &Value, path: &mut String, found: &mut Vec<String>) {
    match (schema.ty, value) {
        (Some(SchemaType::Object), Value::Object(fields)) => {
            for (key, child) in fields {
                let base = path.len();
                if base > 0 {
                    path.push('.');
                }
                path.push_str(key);
                match schema.field_schema(key) {
                    Some(child_schema) => collect(child_schema, child, path, found),
                    None if schema.preserve_unknown_fields => {}
                    None => found.push(path.clone()),
                }
                path.truncate(base);
            }
        }
        (Some(SchemaType::Array), Value::Array(items)) => {
            if let Some(item_schema) = &schema.items {
                for (i, item) in items.iter().enumerate() {
                    let base = path.len();
                    let _ = write!(path, "[{i}]");
                    collect(item_schema, item, path, found);
                    path.truncate(base);
                }
            }
        }
        // Scalars, type mismatches (validation reports those) and
        // free-form nodes have no fields to judge.
        _ => {}
    }
}
