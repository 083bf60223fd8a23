//! Turns a JSON value into the CEL value a rule sees: declared object fields
//! under their escaped names, `number` fields as doubles, maps
//! (`additionalProperties`) keyed by their raw keys, and (`to_val`) set and
//! map lists as `TypedList`s.

use std::collections::HashMap;
use std::sync::Arc;

use cel::Value as Cel;
use cel::common::types::{CelList, CelMap, CelMapKey, CelNull};
use cel::common::value::Val;
use cel::objects::{Key, Map};
use serde_json::Value;

use super::escape::escape;
use super::typed_list::{Identity, TypedList};
use crate::api::schema::{Schema, SchemaType};

/// The CEL form of `value` under `schema` (`None` for a free-form part).
#[must_use]
pub fn to_cel(schema: Option<&Schema>, value: &Value) -> Cel {
    match value {
        Value::Null => Cel::Null,
        Value::Bool(b) => Cel::Bool(*b),
        Value::Number(n) => {
            let wants_double = schema.is_some_and(|s| s.ty == Some(SchemaType::Number));
            match (n.as_i64(), n.as_u64()) {
                #[allow(clippy::cast_precision_loss)]
                (Some(i), _) if wants_double => Cel::Float(i as f64),
                (Some(i), _) => Cel::Int(i),
                (None, Some(u)) => Cel::UInt(u),
                _ => Cel::Float(n.as_f64().unwrap_or(f64::NAN)),
            }
        }
        Value::String(s) => Cel::String(Arc::new(s.clone())),
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.items.as_deref());
            Cel::List(Arc::new(
                items.iter().map(|v| to_cel(item_schema, v)).collect(),
            ))
        }
        Value::Object(fields) => {
            let values = schema.and_then(|s| s.additional_properties.as_deref());
            let mut map = HashMap::with_capacity(fields.len());
            for (k, v) in fields {
                let (key, child) = match values {
                    Some(values) => (k.clone(), Some(values)),
                    None => match escape(k) {
                        Some(escaped) => (escaped, schema.and_then(|s| s.field_schema(k))),
                        None => continue,
                    },
                };
                map.insert(Key::String(Arc::new(key)), to_cel(child, v));
            }
            Cel::Map(Map { map: Arc::new(map) })
        }
    }
}

/// `to_cel` as the interpreter's own values, with the lists the schema
/// declares `x-kubernetes-list-type: set` or `map` as `TypedList`s (which
/// compare ignoring order, and add as union or merge).
#[must_use]
pub fn to_val(schema: Option<&Schema>, value: &Value) -> Box<dyn Val> {
    match value {
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.items.as_deref());
            let items: Vec<Box<dyn Val>> = items.iter().map(|v| to_val(item_schema, v)).collect();
            let identity = match schema.and_then(|s| s.list_type.as_deref()) {
                Some("set") => Identity::Set,
                Some("map") => Identity::Map(
                    schema
                        .map(|s| &s.list_map_keys[..])
                        .unwrap_or_default()
                        .iter()
                        .map(|k| escape(k).unwrap_or_else(|| k.clone()))
                        .collect(),
                ),
                _ => return Box::new(CelList::from(items)),
            };
            Box::new(TypedList::new(items, identity))
        }
        Value::Object(fields) => {
            let values = schema.and_then(|s| s.additional_properties.as_deref());
            let mut map = HashMap::with_capacity(fields.len());
            for (k, v) in fields {
                let (key, child) = match values {
                    Some(values) => (k.clone(), Some(values)),
                    None => match escape(k) {
                        Some(escaped) => (escaped, schema.and_then(|s| s.field_schema(k))),
                        None => continue,
                    },
                };
                map.insert(CelMapKey::from(key), to_val(child, v));
            }
            Box::new(CelMap::from(map))
        }
        scalar => {
            Box::<dyn Val>::try_from(to_cel(schema, scalar)).unwrap_or_else(|_| Box::new(CelNull))
        }
    }
}

/// The CEL form of a Kubernetes object that is not described by a schema
/// (a SubjectAccessReview spec): every key as written, so
/// `request.resourceAttributes.namespace` reads the field Kubernetes'
/// typed bindings expose under that name.
#[must_use]
pub fn to_cel_verbatim(value: &Value) -> Cel {
    match value {
        Value::Array(items) => Cel::List(Arc::new(items.iter().map(to_cel_verbatim).collect())),
        Value::Object(fields) => {
            let map = fields
                .iter()
                .map(|(k, v)| (Key::String(Arc::new(k.clone())), to_cel_verbatim(v)))
                .collect::<HashMap<_, _>>();
            Cel::Map(Map { map: Arc::new(map) })
        }
        scalar => to_cel(None, scalar),
    }
}
