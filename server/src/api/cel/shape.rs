//! `Shape`: what the cost estimator knows of a value — its kind and the
//! largest size it can have. Built from a schema (worst case, for the
//! estimate at CRD load) or from an actual value (for the runtime bound).

use serde_json::Value;

use super::escape::escape;
use crate::api::schema::{Schema, SchemaType};

/// Kubernetes' largest request body (3 MiB): what bounds sizes a schema
/// leaves open.
pub const MAX_REQUEST_BYTES: u64 = 3 * 1024 * 1024;

/// Schemas nest at most this deep in a shape; deeper parts become `Dyn`.
const MAX_DEPTH: usize = 32;

#[derive(Clone, Debug)]
pub enum Shape {
    /// A number, bool or null.
    Scalar,
    /// A string of at most this many characters.
    Str(u64),
    /// A list of at most `len` elements shaped like the first field.
    List(Box<Shape>, u64),
    /// A map (`additionalProperties`) of at most `len` entries.
    Map(Box<Shape>, u64),
    /// An object with these (escaped) fields; `open` when undeclared fields
    /// may appear too.
    Object(Vec<(String, Shape)>, bool),
    /// Anything, at most this many bytes when serialized.
    Dyn(u64),
}

impl Shape {
    /// The largest number of elements (or characters) — what a traversal
    /// of the value costs.
    #[must_use]
    pub fn size(&self) -> u64 {
        match self {
            Shape::Scalar => 1,
            Shape::Str(n) | Shape::List(_, n) | Shape::Map(_, n) | Shape::Dyn(n) => *n,
            Shape::Object(fields, _) => fields.len() as u64,
        }
    }

    /// Both shapes' worst cases in one.
    #[must_use]
    pub fn join(self, other: Shape) -> Shape {
        match (self, other) {
            (Shape::Scalar, Shape::Scalar) => Shape::Scalar,
            (Shape::Str(a), Shape::Str(b)) => Shape::Str(a.max(b)),
            (Shape::List(a, n), Shape::List(b, m)) => Shape::List(Box::new(a.join(*b)), n.max(m)),
            (Shape::Map(a, n), Shape::Map(b, m)) => Shape::Map(Box::new(a.join(*b)), n.max(m)),
            (Shape::Object(mut a, open_a), Shape::Object(b, open_b)) => {
                for (name, shape) in b {
                    match a.iter_mut().find(|(n, _)| *n == name) {
                        Some((_, existing)) => {
                            let old = std::mem::replace(existing, Shape::Scalar);
                            *existing = old.join(shape);
                        }
                        None => a.push((name, shape)),
                    }
                }
                Shape::Object(a, open_a || open_b)
            }
            (a, b) => Shape::Dyn(a.bytes().max(b.bytes())),
        }
    }

    /// A rough upper bound of the serialized size.
    fn bytes(&self) -> u64 {
        match self {
            Shape::Scalar => 8,
            Shape::Str(n) | Shape::Dyn(n) => *n,
            Shape::List(e, n) | Shape::Map(e, n) => n.saturating_mul(e.bytes().saturating_add(2)),
            Shape::Object(fields, _) => fields
                .iter()
                .map(|(_, s)| s.bytes().saturating_add(4))
                .fold(2, u64::saturating_add),
        }
    }

    /// The worst case a schema allows: its `maxLength`, `maxItems` and
    /// `maxProperties`, else as many as fit in a request.
    #[must_use]
    pub fn of_schema(schema: &Schema) -> Shape {
        of_schema(schema, 0)
    }

    /// The shape of an actual value under `schema`.
    #[must_use]
    pub fn of_value(schema: &Schema, value: &Value) -> Shape {
        of_value(Some(schema), value, 0)
    }

    /// The shape of a schemaless value (every object open).
    #[must_use]
    pub fn of_json(value: &Value) -> Shape {
        of_value(None, value, 0)
    }
}

/// The smallest serialized size of a value of this schema, plus a comma:
/// how Kubernetes bounds the length of an unbounded list (a map entry adds
/// at least `"":`).
fn min_serialized(schema: &Schema) -> u64 {
    match schema.ty {
        Some(SchemaType::String | SchemaType::Object | SchemaType::Array) => 3,
        Some(SchemaType::Boolean) => 5,
        _ => 2,
    }
}

/// The most elements a list of this schema can have.
#[must_use]
pub fn max_items(schema: &Schema) -> u64 {
    schema.limits.max_items.unwrap_or_else(|| {
        (MAX_REQUEST_BYTES - 2) / schema.items.as_deref().map_or(2, min_serialized)
    })
}

/// The most entries a map of this schema can have.
#[must_use]
pub fn max_properties(schema: &Schema) -> u64 {
    schema.limits.max_properties.unwrap_or_else(|| {
        (MAX_REQUEST_BYTES - 2)
            / (3 + schema
                .additional_properties
                .as_deref()
                .map_or(2, min_serialized))
    })
}

fn of_schema(schema: &Schema, depth: usize) -> Shape {
    if depth > MAX_DEPTH
        || schema.int_or_string
        || schema.preserve_unknown_fields && schema.ty.is_none()
    {
        return Shape::Dyn(MAX_REQUEST_BYTES);
    }
    let limits = &schema.limits;
    match schema.ty {
        Some(SchemaType::String) => Shape::Str(limits.max_length.unwrap_or(MAX_REQUEST_BYTES - 2)),
        Some(SchemaType::Array) => {
            let elem = schema
                .items
                .as_deref()
                .map_or(Shape::Dyn(MAX_REQUEST_BYTES), |i| of_schema(i, depth + 1));
            Shape::List(Box::new(elem), max_items(schema))
        }
        Some(SchemaType::Object) => {
            if let Some(values) = &schema.additional_properties {
                return Shape::Map(
                    Box::new(of_schema(values, depth + 1)),
                    max_properties(schema),
                );
            }
            let fields = schema
                .properties
                .iter()
                .filter_map(|(name, s)| Some((escape(name)?, of_schema(s, depth + 1))))
                .collect::<Vec<_>>();
            let open =
                fields.is_empty() || schema.preserve_unknown_fields || schema.embedded_resource;
            Shape::Object(fields, open)
        }
        _ => Shape::Scalar,
    }
}

fn of_value(schema: Option<&Schema>, value: &Value, depth: usize) -> Shape {
    match value {
        Value::String(s) => Shape::Str(s.chars().count() as u64),
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.items.as_deref());
            let elem = items
                .iter()
                .map(|v| of_value(item_schema, v, depth + 1))
                .reduce(Shape::join)
                .unwrap_or(Shape::Scalar);
            Shape::List(Box::new(elem), items.len() as u64)
        }
        Value::Object(fields) if depth > MAX_DEPTH => {
            Shape::Dyn(serialized_len(value).max(fields.len() as u64))
        }
        Value::Object(fields) => match schema.and_then(|s| s.additional_properties.as_deref()) {
            Some(values) => {
                let elem = fields
                    .values()
                    .map(|v| of_value(Some(values), v, depth + 1))
                    .reduce(Shape::join)
                    .unwrap_or(Shape::Scalar);
                Shape::Map(Box::new(elem), fields.len() as u64)
            }
            None => Shape::Object(
                fields
                    .iter()
                    .filter_map(|(k, v)| {
                        let child = schema.and_then(|s| s.property(k));
                        Some((escape(k)?, of_value(child, v, depth + 1)))
                    })
                    .collect(),
                true,
            ),
        },
        _ => Shape::Scalar,
    }
}

fn serialized_len(value: &Value) -> u64 {
    serde_json::to_vec(value).map_or(MAX_REQUEST_BYTES, |b| b.len() as u64)
}
