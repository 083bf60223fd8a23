//! `autoscaling/v1` Scale, the `/scale` subresource's body: read from an
//! object through the paths its kind names, and written back only after
//! the Scale is checked as Kubernetes decodes one (its kind, version,
//! name, namespace, field types and unknown fields).

use std::sync::LazyLock;

use serde_json::{Value, json};

use super::BodyType;
use crate::api::decode::Decoded;
use crate::api::error::{ApiError, Cause};
use crate::api::kind::{KindSpec, ScalePaths};
use crate::api::kinds::workload_cells::selector_text;
use crate::api::object;
use crate::api::patch::{self, PatchType};
use crate::api::schema::Schema;
use crate::api::store::write::Mutation;
use crate::api::store::{FieldValidation, parse_rv};

/// The schema of an `autoscaling/v1` Scale, with its protobuf field
/// numbers.
#[must_use]
pub fn schema() -> Schema {
    Schema::resource([
        (
            "spec",
            Schema::object([("replicas", Schema::integer_i32())]).proto_fields([("replicas", 1)]),
        ),
        (
            "status",
            Schema::object([
                ("replicas", Schema::integer_i32()),
                ("selector", Schema::string()),
            ])
            .required(["replicas"])
            .proto_fields([("replicas", 1), ("selector", 2)]),
        ),
    ])
    .proto_fields([("metadata", 1), ("spec", 2), ("status", 3)])
    .describe("Scale represents a scaling request for a resource.")
}

/// The schema, made once.
#[must_use]
pub fn shared_schema() -> &'static Schema {
    &SCHEMA
}

static SCHEMA: LazyLock<Schema> = LazyLock::new(schema);

/// How a write changes a Scale.
pub enum ScaleChange {
    /// PUT: the decoded Scale.
    Replace(Decoded),
    /// PATCH: a merge or JSON patch of the current Scale.
    Patch(PatchType, Vec<u8>),
}

/// A JSONPath of a Scale field (`.spec.replicas`) as a JSON pointer.
fn pointer(json_path: &str) -> String {
    json_path.replace('.', "/")
}

/// The `autoscaling/v1` Scale of an object.
#[must_use]
pub fn scale_of(paths: &ScalePaths, obj: &Value) -> Value {
    let meta = obj.get("metadata").cloned().unwrap_or_else(|| json!({}));
    let mut scale_meta = serde_json::Map::new();
    for field in [
        "name",
        "namespace",
        "uid",
        "resourceVersion",
        "creationTimestamp",
    ] {
        if let Some(v) = meta.get(field) {
            scale_meta.insert(field.into(), v.clone());
        }
    }
    let replicas = |path: &str| {
        obj.pointer(&pointer(path))
            .and_then(Value::as_i64)
            .unwrap_or(0)
    };
    let mut status = json!({"replicas": replicas(&paths.status_replicas)});
    // Custom resources point at a string; built-in workloads at their
    // `spec.selector` object, which a Scale shows in selector syntax.
    let selector = paths
        .label_selector
        .as_deref()
        .and_then(|p| obj.pointer(&pointer(p)))
        .and_then(|v| match v {
            Value::String(s) => Some(s.clone()),
            // A ReplicationController's selector is a plain label map.
            Value::Object(m)
                if !m.contains_key("matchLabels") && !m.contains_key("matchExpressions") =>
            {
                Some(selector_text(&json!({"matchLabels": v})))
            }
            Value::Object(_) => Some(selector_text(v)),
            _ => None,
        });
    if let Some(selector) = selector {
        status["selector"] = json!(selector);
    }
    json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": scale_meta,
        "spec": {"replicas": replicas(&paths.spec_replicas)},
        "status": status,
    })
}

/// Where a Scale write is aimed: the object's kind, its scale paths, and
/// the URL's name and namespace.
pub struct ScaleTarget<'a> {
    pub kind: &'a KindSpec,
    pub paths: &'a ScalePaths,
    pub name: &'a str,
    pub namespace: Option<&'a str>,
    pub validation: FieldValidation,
}

impl ScaleTarget<'_> {
    /// The object with the replicas a Scale write asks for.
    pub fn scaled(&self, current: &Value, change: &ScaleChange) -> Result<Mutation, ApiError> {
        let (scale, duplicates) = match change {
            ScaleChange::Replace(decoded) => (decoded.value.clone(), decoded.duplicates.clone()),
            ScaleChange::Patch(PatchType::Json, body) => (
                patch::json(&scale_of(self.paths, current), body)?,
                Vec::new(),
            ),
            ScaleChange::Patch(_, body) => patch::merge(&scale_of(self.paths, current), body)?,
        };
        let warnings = self.check(&scale, duplicates)?;
        let replicas = scale.pointer("/spec/replicas").cloned().unwrap_or(json!(0));
        let count = replicas.as_i64().unwrap_or(0);
        if count < 0 {
            return Err(self.kind.invalid(
                self.name,
                vec![Cause::invalid(
                    "spec.replicas",
                    &replicas.to_string(),
                    "must be greater than or equal to 0",
                )],
                422,
            ));
        }
        let mut object = current.clone();
        set_pointer(
            &mut object,
            &pointer(&self.paths.spec_replicas),
            json!(count),
        );
        let pinned = object::meta_str(&scale, "resourceVersion").filter(|rv| !rv.is_empty());
        Ok(Mutation {
            object,
            precondition: parse_rv(pinned)?,
            warnings,
            managed: None,
        })
    }

    /// Refuses a Scale Kubernetes would not decode or that names another
    /// object; returns the unknown and duplicate fields `Warn` reports.
    fn check(&self, scale: &Value, duplicates: Vec<String>) -> Result<Vec<String>, ApiError> {
        let body_type = BodyType {
            kind: "Scale",
            group: "autoscaling",
            api_versions: &["autoscaling/v1"],
            schema: &SCHEMA,
        };
        body_type.check(scale)?;
        object::check_url_names(scale, self.name, self.namespace)?;
        self.validation
            .judge(body_type.unknown_fields(scale), duplicates)
    }
}

/// Sets the value at a JSON pointer, creating objects on the way.
fn set_pointer(root: &mut Value, pointer: &str, value: Value) {
    let mut at = root;
    let segments: Vec<&str> = pointer.split('/').skip(1).collect();
    for (i, segment) in segments.iter().enumerate() {
        if !at.is_object() {
            *at = json!({});
        }
        let map = at.as_object_mut().expect("just made an object");
        if i + 1 == segments.len() {
            map.insert((*segment).to_string(), value);
            return;
        }
        at = map
            .entry((*segment).to_string())
            .or_insert_with(|| json!({}));
    }
}
