//! How ownership sees a value, read from its schema: a leaf (scalar or
//! atomic), a granular object, a set list or a map list — and the identity
//! of a list item.

use serde_json::Value;

use super::path::{PathElement, key_json};
use crate::api::schema::Schema;

/// The ownership shape of one value.
pub enum Shape<'s> {
    /// Owned as a whole: scalars, atomic lists and maps, lists without a
    /// list type (custom resources' unannotated lists), values whose type
    /// does not match their schema.
    Leaf,
    /// A granular object; `None` for undeclared (preserved) content.
    Object(Option<&'s Schema>),
    /// Items identified by their value.
    SetList,
    /// Items identified by these fields.
    MapList {
        keys: &'s [String],
        items: Option<&'s Schema>,
    },
}

/// The shape of `value` under `schema` (`None`: undeclared content, where
/// objects are granular and lists atomic).
#[must_use]
pub fn shape<'s>(schema: Option<&'s Schema>, value: &Value) -> Shape<'s> {
    match (value, schema) {
        (Value::Object(_), None) => Shape::Object(None),
        (Value::Object(_), Some(s)) => {
            if s.map_type.as_deref() == Some("atomic") {
                Shape::Leaf
            } else {
                Shape::Object(Some(s))
            }
        }
        (Value::Array(_), Some(s)) => match s.list_type.as_deref() {
            Some("set") => Shape::SetList,
            Some("map") => Shape::MapList {
                keys: &s.list_map_keys,
                items: s.items.as_deref(),
            },
            Some(_) => Shape::Leaf,
            None => match (&s.patch_strategy, &s.patch_merge_key) {
                (Some(strategy), Some(key)) if strategy.split(',').any(|p| p == "merge") => {
                    Shape::MapList {
                        keys: std::slice::from_ref(key),
                        items: s.items.as_deref(),
                    }
                }
                _ => Shape::Leaf,
            },
        },
        _ => Shape::Leaf,
    }
}

/// The schema of field `name` inside an object of schema `parent`.
#[must_use]
pub fn field_schema<'s>(parent: Option<&'s Schema>, name: &str) -> Option<&'s Schema> {
    parent.and_then(|s| s.field_schema(name))
}

/// Whether new objects of this schema count as owned nodes when a writer
/// creates them: maps always (their keys are free), structs only where
/// `structs` says so (custom resources, whose empty objects do not exist
/// before a write).
#[must_use]
pub fn object_is_owned_when_added(schema: Option<&Schema>, structs: bool) -> bool {
    structs || schema.is_none_or(|s| s.properties.is_empty())
}

/// The identity of a set-list item.
#[must_use]
pub fn value_step(item: &Value) -> PathElement {
    PathElement::Value(item.to_string())
}

/// The identity of a map-list item: its key fields, or its position when
/// it has none of them.
#[must_use]
pub fn key_step(keys: &[String], item: &Value, index: usize) -> PathElement {
    let Some(fields) = item.as_object() else {
        return PathElement::Index(index);
    };
    let present: Vec<(&str, &Value)> = keys
        .iter()
        .filter_map(|k| fields.get(k).map(|v| (k.as_str(), v)))
        .collect();
    if present.is_empty() {
        return PathElement::Index(index);
    }
    PathElement::Key(key_json(present.into_iter()))
}

/// The identity of item `index` of a keyed (set or map) list.
#[must_use]
pub fn item_step(shape: &Shape<'_>, item: &Value, index: usize) -> PathElement {
    match shape {
        Shape::SetList => value_step(item),
        Shape::MapList { keys, .. } => key_step(keys, item, index),
        _ => PathElement::Index(index),
    }
}
