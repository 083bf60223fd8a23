//! The subresources that are not the object itself: `/scale` (an
//! `autoscaling/v1` Scale over the paths a kind names) and `/eviction` (POST
//! an Eviction to delete a pod gracefully). `/status` and a namespace's
//! `/finalize` are ordinary writes with a narrower scope (resource.rs).

use std::sync::Arc;

use http::{Method, Request, Response, header};
use hyper::body::Incoming;
use serde_json::{Value, json};

use crate::api::error::{ApiError, Cause};
use crate::api::kind::{KindSpec, ScalePaths};
use crate::api::object;
use crate::api::patch::{self, PatchType};
use crate::api::store::write::Mutation;
use crate::api::store::{DeleteOptions, Subresource, parse_rv};
use crate::http::AppState;
use crate::http::body::{Body, read_limited};
use crate::http::negotiate::{decode_body, essence};
use crate::http::params::Query;
use crate::http::resource::{header_str, with_delete_body};
use crate::http::respond::Writer;
use crate::http::router::RequestInfo;

/// Serves `/scale` and `/eviction`; anything else is not found.
pub async fn serve(
    state: &Arc<AppState>,
    req: Request<Incoming>,
    kind: &Arc<KindSpec>,
    info: &RequestInfo,
    query: &Query,
    writer: Writer,
) -> Result<Response<Body>, ApiError> {
    let name = info.name.as_deref().ok_or(ApiError::PathNotFound)?;
    let ns = info.namespace.as_deref();
    let content_type = header_str(&req, header::CONTENT_TYPE).map(str::to_string);
    let not_allowed = |m: &Method| ApiError::MethodNotAllowed {
        action: m.as_str().into(),
        resource: format!(
            "{}/{}",
            kind.qualified_resource(),
            info.subresource.as_deref().unwrap_or_default()
        ),
    };
    match info.subresource.as_deref() {
        Some("scale") if kind.subresources.scale.is_some() => {
            let paths = kind.subresources.scale.as_ref().expect("checked");
            let method = req.method().clone();
            match method {
                Method::GET => {
                    let obj = state
                        .store
                        .get(kind, ns, name, query.get("resourceVersion"))
                        .await?;
                    Ok(writer.object(200, &scale_of(paths, &obj), &[]))
                }
                Method::PUT | Method::PATCH => {
                    let user_agent = header_str(&req, header::USER_AGENT).map(str::to_string);
                    let body =
                        read_limited(req.into_body(), state.config.max_request_bytes).await?;
                    let change = if method == Method::PUT {
                        ScaleChange::Replace(decode_body(content_type.as_deref(), &body)?.value)
                    } else {
                        let patch_type =
                            PatchType::from_content_type(&essence(content_type.as_deref()))
                                .filter(|t| matches!(t, PatchType::Merge | PatchType::Json))
                                .ok_or_else(|| {
                                    ApiError::UnsupportedMediaType(vec![
                                        "application/json-patch+json".into(),
                                        "application/merge-patch+json".into(),
                                    ])
                                })?;
                        ScaleChange::Patch(patch_type, body.to_vec())
                    };
                    let meta_group = format!("meta.{}", state.config.api_domain);
                    let mut opts = query.write_options(
                        user_agent.as_deref(),
                        &crate::http::params::OptionsKind {
                            kind: "UpdateOptions",
                            group: &meta_group,
                        },
                    )?;
                    opts.subresource = Some(Subresource::Scale);
                    let out = state
                        .store
                        .guaranteed_update(kind, ns, name, &opts, |current| {
                            scaled(kind, paths, name, current, &change)
                        })
                        .await?;
                    Ok(writer.object(200, &scale_of(paths, &out.object), &[]))
                }
                m => Err(not_allowed(&m)),
            }
        }
        Some("eviction") if kind.subresources.eviction => {
            if req.method() != Method::POST {
                return Err(not_allowed(req.method()));
            }
            let body = read_limited(req.into_body(), state.config.max_request_bytes).await?;
            let eviction = decode_body(content_type.as_deref(), &body)?.value;
            check_eviction(&eviction, name)?;
            let mut opts = match eviction.get("deleteOptions") {
                Some(v) if !v.is_null() => with_delete_body(DeleteOptions::default(), v)?,
                _ => DeleteOptions::default(),
            };
            opts.dry_run |= query.dry_run()?;
            state.store.delete(kind, ns, name, &opts).await?;
            Ok(writer.object(
                201,
                &json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}),
                &[],
            ))
        }
        _ => Err(ApiError::PathNotFound),
    }
}

/// An Eviction must name the pod of its URL.
fn check_eviction(eviction: &Value, name: &str) -> Result<(), ApiError> {
    if !eviction.is_object() {
        return Err(ApiError::BadRequest(
            "the body of the request must be an Eviction object".into(),
        ));
    }
    match object::meta_str(eviction, "name") {
        Some(n) if n != name => Err(ApiError::BadRequest(format!(
            "name in URL does not match name in Eviction object: {name} != {n}"
        ))),
        _ => Ok(()),
    }
}

/// How a write changes a Scale.
enum ScaleChange {
    Replace(Value),
    Patch(PatchType, Vec<u8>),
}

/// A JSONPath of a Scale field (`.spec.replicas`) as a JSON pointer.
fn pointer(json_path: &str) -> String {
    json_path.replace('.', "/")
}

/// The `autoscaling/v1` Scale of an object.
fn scale_of(paths: &ScalePaths, obj: &Value) -> Value {
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
    if let Some(selector) = paths
        .label_selector
        .as_deref()
        .and_then(|p| obj.pointer(&pointer(p)))
        .and_then(Value::as_str)
    {
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

/// The object with the replicas a Scale write asks for.
fn scaled(
    kind: &KindSpec,
    paths: &ScalePaths,
    name: &str,
    current: &Value,
    change: &ScaleChange,
) -> Result<Mutation, ApiError> {
    let scale = match change {
        ScaleChange::Replace(scale) => scale.clone(),
        ScaleChange::Patch(PatchType::Json, body) => patch::json(&scale_of(paths, current), body)?,
        ScaleChange::Patch(_, body) => patch::merge(&scale_of(paths, current), body)?.0,
    };
    if let Some(n) = object::meta_str(&scale, "name").filter(|n| *n != name) {
        return Err(ApiError::BadRequest(format!(
            "the name of the object ({n}) does not match the name on the URL ({name})"
        )));
    }
    let replicas = scale.pointer("/spec/replicas").cloned().unwrap_or(json!(0));
    let invalid = |detail: &str| {
        kind.invalid(
            name,
            vec![Cause::invalid(
                "spec.replicas",
                &replicas.to_string(),
                detail,
            )],
            422,
        )
    };
    let Some(count) = replicas.as_i64() else {
        return Err(invalid("must be an integer"));
    };
    if count < 0 {
        return Err(invalid("must be greater than or equal to 0"));
    }
    let mut object = current.clone();
    set_pointer(&mut object, &pointer(&paths.spec_replicas), json!(count));
    let pinned = object::meta_str(&scale, "resourceVersion").filter(|rv| !rv.is_empty());
    let precondition = parse_rv(pinned)?;
    Ok(Mutation {
        object,
        precondition,
        warnings: Vec::new(),
        managed: None,
    })
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
