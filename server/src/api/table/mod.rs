//! The Table representation (`meta.{domain}/v1` `Table`) of any kind's
//! objects, built from the kind's `columns`: one generic builder for
//! built-in kinds and CRDs alike.

pub mod human_duration;
pub mod jsonpath;

use std::time::SystemTime;

use serde_json::{Map, Value, json};

use crate::api::error::ApiError;
use crate::api::kind::{Column, KindSpec, Origin};
use jsonpath::JsonPath;

/// What a row's `object` holds (`includeObject`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IncludeObject {
    /// `"object": null`.
    None,
    /// A `PartialObjectMetadata` (the default).
    Metadata,
    /// The whole object as served.
    Object,
}

impl IncludeObject {
    /// The `includeObject` query parameter; anything else is a 400.
    pub fn parse(value: Option<&str>) -> Result<IncludeObject, ApiError> {
        match value.unwrap_or("") {
            "" | "Metadata" => Ok(IncludeObject::Metadata),
            "None" => Ok(IncludeObject::None),
            "Object" => Ok(IncludeObject::Object),
            other => Err(ApiError::BadRequest(format!(
                "Unable to convert to Table as requested: includeObject: Invalid value: \"{other}\": must be 'Metadata', 'Object', 'None', or empty"
            ))),
        }
    }
}

/// How to build the Tables of one request.
#[derive(Clone, Debug)]
pub struct TableOptions {
    /// `meta.{domain}/v1` (or `v1beta1`): the Table's and
    /// PartialObjectMetadata's apiVersion.
    pub api_version: String,
    pub include: IncludeObject,
}

/// A kind's columns with their paths parsed once, for many rows.
pub struct TableBuilder<'k> {
    kind: &'k KindSpec,
    paths: Vec<Option<JsonPath>>,
    options: TableOptions,
    now: SystemTime,
}

impl<'k> TableBuilder<'k> {
    #[must_use]
    pub fn new(kind: &'k KindSpec, options: TableOptions) -> TableBuilder<'k> {
        let paths = kind
            .columns
            .iter()
            .map(|c| {
                (c.cell.is_none() && !c.json_path.is_empty())
                    .then(|| JsonPath::parse(&c.json_path).ok())
                    .flatten()
            })
            .collect();
        TableBuilder {
            kind,
            paths,
            options,
            now: SystemTime::now(),
        }
    }

    /// `columnDefinitions`: every column, wide ones (priority 1) included.
    #[must_use]
    pub fn column_definitions(&self) -> Value {
        Value::Array(
            self.kind
                .columns
                .iter()
                .map(|c| {
                    json!({
                        "name": c.name,
                        "type": c.type_,
                        "format": c.format,
                        "description": c.description,
                        "priority": c.priority,
                    })
                })
                .collect(),
        )
    }

    /// One object's row.
    #[must_use]
    pub fn row(&self, obj: &Value) -> Value {
        self.row_of(obj.clone())
    }

    /// One object's row, taking the object (no copy of what the row keeps).
    #[must_use]
    pub fn row_of(&self, mut obj: Value) -> Value {
        let cells: Vec<Value> = self
            .kind
            .columns
            .iter()
            .zip(&self.paths)
            .map(|(c, p)| self.cell(c, p.as_ref(), &obj))
            .collect();
        let object = match self.options.include {
            IncludeObject::None => Value::Null,
            IncludeObject::Object => obj,
            IncludeObject::Metadata => json!({
                "kind": "PartialObjectMetadata",
                "apiVersion": self.options.api_version,
                "metadata": obj.get_mut("metadata").map_or_else(|| json!({}), Value::take),
            }),
        };
        json!({"cells": cells, "object": object})
    }

    /// The JSON of a Table written row by row into `out`, each object
    /// dropped once its row is written: a large list never exists as one
    /// value tree. Same bytes as serializing `table`.
    pub fn write_json<E>(
        &self,
        objects: impl IntoIterator<Item = Result<Value, E>>,
        list_meta: Map<String, Value>,
        out: &mut Vec<u8>,
    ) -> Result<(), E> {
        let head = json!({
            "kind": "Table",
            "apiVersion": self.options.api_version,
            "metadata": list_meta,
            "columnDefinitions": self.column_definitions(),
        });
        serde_json::to_writer(&mut *out, &head).expect("JSON values serialize");
        out.pop();
        out.extend_from_slice(b",\"rows\":[");
        for (i, obj) in objects.into_iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            serde_json::to_writer(&mut *out, &self.row_of(obj?)).expect("JSON values serialize");
        }
        out.extend_from_slice(b"]}");
        Ok(())
    }

    /// A Table of `objects` under `list_meta` (ListMeta), with or without
    /// `columnDefinitions` (`null` then, as watch events after the first).
    #[must_use]
    pub fn table<'a>(
        &self,
        objects: impl IntoIterator<Item = &'a Value>,
        list_meta: Map<String, Value>,
        with_definitions: bool,
    ) -> Value {
        let rows: Vec<Value> = objects.into_iter().map(|o| self.row(o)).collect();
        json!({
            "kind": "Table",
            "apiVersion": self.options.api_version,
            "metadata": list_meta,
            "columnDefinitions": if with_definitions { self.column_definitions() } else { Value::Null },
            "rows": rows,
        })
    }

    fn cell(&self, column: &Column, path: Option<&JsonPath>, obj: &Value) -> Value {
        if let Some(f) = column.cell {
            return f(obj);
        }
        // CRD columns leave missing values null, as Kubernetes' CRD
        // printer; built-in printers print Go zero values.
        let from_crd = matches!(self.kind.origin, Origin::Crd(_));
        let found = path
            .and_then(|p| p.find(obj).into_iter().next())
            .filter(|v| !v.is_null());
        if column.elapsed {
            return match found {
                None if from_crd => Value::Null,
                None => Value::from(human_duration::since(None, self.now)),
                Some(Value::String(s)) => Value::from(human_duration::since(Some(s), self.now)),
                Some(_) => Value::from("<invalid>"),
            };
        }
        let Some(v) = found else {
            return if from_crd {
                Value::Null
            } else {
                zero_value(&column.type_)
            };
        };
        match column.type_.as_str() {
            "integer" => v
                .as_i64()
                .or_else(|| v.as_f64().map(|f| f as i64))
                .map_or(Value::Null, Value::from),
            "number" => v.as_f64().map_or(Value::Null, Value::from),
            "boolean" => v.as_bool().map_or(Value::Null, Value::from),
            "string" => Value::from(text(v)),
            _ => v.clone(),
        }
    }
}

/// A value as a printed cell: strings as they are, anything else as JSON.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn zero_value(type_: &str) -> Value {
    match type_ {
        "string" => Value::from(""),
        "integer" | "number" => Value::from(0),
        "boolean" => Value::from(false),
        _ => Value::Null,
    }
}

/// ListMeta of one object's Table: its resourceVersion.
#[must_use]
pub fn object_list_meta(obj: &Value) -> Map<String, Value> {
    let mut meta = Map::new();
    if let Some(rv) = obj.pointer("/metadata/resourceVersion") {
        meta.insert("resourceVersion".into(), rv.clone());
    }
    meta
}

#[cfg(test)]
mod tests;
