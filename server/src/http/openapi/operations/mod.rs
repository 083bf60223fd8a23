//! The paths of one kind with their operations (get, list, watch, create,
//! update, patch, delete, deletecollection and the subresources), their
//! query parameters, and the `x-kubernetes-action` /
//! `x-kubernetes-group-version-kind` extensions kubectl looks for (it
//! decides server-side field validation from `fieldValidation` on PATCH).

mod builder;
mod params;
mod render;

use serde_json::{Map, Value, json};

use self::builder::{Builder, capitalized};
use self::params::{PRETTY, Param};
use self::render::{render, render_param};
use super::names::Namer;
use super::schema_json::Flavor;
use crate::api::kind::KindSpec;

/// What an operation's request body holds.
#[derive(Clone, Copy)]
enum Body {
    /// The kind's object (or the subresource's).
    Object,
    DeleteOptions,
    Patch,
}

/// One operation before it is written in a flavor.
struct Operation {
    method: &'static str,
    action: &'static str,
    id: String,
    description: String,
    params: Vec<Param>,
    body: Option<Body>,
    /// Status codes answered with the response definition.
    codes: &'static [u16],
    /// The definition answered with.
    returns: String,
    /// The definition the body holds (for `Body::Object`).
    body_type: String,
    /// `x-kubernetes-group-version-kind`.
    gvk: Value,
    streams: bool,
}

/// A path, its path parameters (name, description) and its operations.
type PathOperations = (String, Vec<(&'static str, &'static str)>, Vec<Operation>);

/// Whether any of these kinds serves `/scale`, `/eviction` and `/token` (their
/// definitions are then needed).
#[must_use]
pub fn needs(kinds: &[&KindSpec]) -> super::meta_types::Needs {
    super::meta_types::Needs {
        scale: kinds.iter().any(|k| k.subresources.scale.is_some()),
        eviction: kinds.iter().any(|k| k.subresources.eviction),
        token_request: kinds.iter().any(|k| k.subresources.token_request),
    }
}

/// The path items of one kind, keyed by path.
#[must_use]
pub fn paths(flavor: Flavor, namer: &Namer, kind: &KindSpec) -> Vec<(String, Value)> {
    let builder = Builder {
        namer,
        kind,
        token: format!("{}{}", namer.group_token(kind), capitalized(&kind.version)),
        gvk: json!({"group": kind.group, "kind": kind.kind, "version": kind.version}),
    };
    builder
        .paths()
        .into_iter()
        .map(|(path, path_params, ops)| {
            let mut item = Map::new();
            for op in &ops {
                item.insert(op.method.into(), render(flavor, namer, kind, op));
            }
            let mut params: Vec<Value> = path_params
                .into_iter()
                .map(|(name, description)| {
                    render_param(flavor, (name, "string", description), "path")
                })
                .collect();
            params.push(render_param(flavor, PRETTY, "query"));
            item.insert("parameters".into(), Value::Array(params));
            (path, Value::Object(item))
        })
        .collect()
}
