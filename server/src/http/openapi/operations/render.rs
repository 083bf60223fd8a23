//! One operation written in a flavor (v2 or v3): its parameters, request
//! body and media types, responses and Kubernetes extensions.

use serde_json::{Map, Value, json};

use super::params::Param;
use super::{Body, Operation};
use crate::api::kind::{KindSpec, Origin};
use crate::http::openapi::names::Namer;
use crate::http::openapi::schema_json::Flavor;

/// Patch media types the server takes for this kind (strategic merge patch
/// only for built-in kinds, as Kubernetes).
fn patch_types(kind: &KindSpec) -> Vec<&'static str> {
    let mut types = vec![
        "application/apply-patch+yaml",
        "application/json-patch+json",
        "application/merge-patch+json",
    ];
    if kind.origin == Origin::BuiltIn {
        types.push("application/strategic-merge-patch+json");
    }
    types
}

pub(super) fn render_param(
    flavor: Flavor,
    (name, ty, description): Param,
    location: &str,
) -> Value {
    let mut p = json!({"name": name, "in": location, "description": description});
    let required = location == "path";
    if required {
        p["required"] = json!(true);
    }
    match flavor {
        Flavor::V2 => {
            p["type"] = json!(ty);
            if !required {
                p["uniqueItems"] = json!(true);
            }
        }
        Flavor::V3 => {
            p["schema"] = if required {
                json!({"type": ty})
            } else {
                json!({"type": ty, "uniqueItems": true})
            };
        }
    }
    p
}

pub(super) fn render(flavor: Flavor, namer: &Namer, kind: &KindSpec, op: &Operation) -> Value {
    let response_types: &[&str] = if op.streams {
        &[
            "application/json",
            "application/yaml",
            "application/json;stream=watch",
        ]
    } else {
        &["application/json", "application/yaml"]
    };
    let mut params: Vec<Value> = op
        .params
        .iter()
        .map(|p| render_param(flavor, *p, "query"))
        .collect();
    let body_def = match op.body {
        Some(Body::Object) => Some(op.body_type.clone()),
        Some(Body::DeleteOptions) => Some(namer.meta("DeleteOptions")),
        Some(Body::Patch) => Some(namer.meta("Patch")),
        None => None,
    };
    let body_types: Vec<&str> = match op.body {
        Some(Body::Patch) => patch_types(kind),
        _ => vec!["*/*"],
    };
    let mut responses = Map::new();
    for code in op.codes {
        let description = match code {
            201 => "Created",
            202 => "Accepted",
            _ => "OK",
        };
        let schema = flavor.reference(&op.returns);
        let response = match flavor {
            Flavor::V2 => json!({"description": description, "schema": schema}),
            Flavor::V3 => {
                let content: Map<String, Value> = response_types
                    .iter()
                    .map(|t| ((*t).to_string(), json!({"schema": schema})))
                    .collect();
                json!({"description": description, "content": content})
            }
        };
        responses.insert(code.to_string(), response);
    }
    responses.insert("401".into(), json!({"description": "Unauthorized"}));
    let mut out = json!({
        "tags": [format!("{}_{}", lower_first(&namer.group_token(kind)), kind.version)],
        "description": op.description,
        "operationId": op.id,
        "responses": responses,
        "x-kubernetes-action": op.action,
        "x-kubernetes-group-version-kind": op.gvk,
    });
    match flavor {
        Flavor::V2 => {
            if let Some(def) = &body_def {
                let required = !matches!(op.body, Some(Body::DeleteOptions));
                params.push(json!({"name": "body", "in": "body", "required": required, "schema": flavor.reference(def)}));
                out["consumes"] = json!(body_types);
            } else {
                out["consumes"] = json!(["*/*"]);
            }
            out["produces"] = json!(response_types);
            out["schemes"] = json!(["https"]);
        }
        Flavor::V3 => {
            if let Some(def) = &body_def {
                let content: Map<String, Value> = body_types
                    .iter()
                    .map(|t| ((*t).to_string(), json!({"schema": flavor.reference(def)})))
                    .collect();
                let required = !matches!(op.body, Some(Body::DeleteOptions));
                out["requestBody"] = json!({"content": content, "required": required});
            }
        }
    }
    if !params.is_empty() {
        out["parameters"] = Value::Array(params);
    }
    out
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| {
        f.to_ascii_lowercase().to_string() + c.as_str()
    })
}
