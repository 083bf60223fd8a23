//! Resource requests: picks the verb from method, path and `watch`, calls the
//! generic store, and writes the answer. One set of handlers for every kind.

use std::sync::Arc;

use bytes::Bytes;
use http::{Method, Request, Response, header};
use hyper::body::Incoming;
use serde_json::{Value, json};

use crate::api::bodies::delete_options;
use crate::api::decode;
use crate::api::error::{ApiError, Cause};
use crate::api::kind::KindSpec;
use crate::api::patch::PatchType;
use crate::api::served;
use crate::api::store::{
    DeleteOptions, Deleted, ListPage, Store, Subresource, delete::success_status,
};
use crate::app::AppState;
use crate::http::body::{Body, read_limited};
use crate::http::compress::Uncompressed;
use crate::http::list_body::ListBody;
use crate::http::negotiate::{Encoding, essence};
use crate::http::params::{OptionsKind, Query};
use crate::http::protobuf::{self, decode_body};
use crate::http::respond::Writer;
use crate::http::stream_map::map_lines;
use crate::http::{cbor, subresource, table, watch};
use crate::request::info::ResourceInfo;
use crate::request::user::UserInfo;
use http_body_util::BodyExt;

pub(crate) fn header_str(req: &Request<Incoming>, name: header::HeaderName) -> Option<&str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

/// Serves one resource request of an authorized `user`.
pub async fn handle(
    state: &Arc<AppState>,
    req: Request<Incoming>,
    info: &ResourceInfo,
    user: Arc<UserInfo>,
    query: Query,
    writer: Writer,
) -> Response<Body> {
    match dispatch(state, req, info, user, &query, writer).await {
        Ok(resp) => resp,
        Err(e) => writer.error(&e),
    }
}

fn method_not_allowed(kind: &KindSpec, action: &str) -> ApiError {
    ApiError::MethodNotAllowed {
        action: action.into(),
        resource: kind.qualified_resource(),
    }
}

async fn dispatch(
    state: &Arc<AppState>,
    req: Request<Incoming>,
    info: &ResourceInfo,
    user: Arc<UserInfo>,
    query: &Query,
    writer: Writer,
) -> Result<Response<Body>, ApiError> {
    let kind = state
        .store
        .registry
        .lookup(&info.group, &info.version, &info.resource)
        .ok_or(ApiError::PathNotFound)?;
    let mut writer = protobuf::for_kind(writer, &kind)?;
    if info.namespace.is_some() && !kind.namespaced {
        return Err(ApiError::PathNotFound);
    }
    let ns = info.namespace.as_deref();
    let name = info.name.as_deref();
    if kind.namespaced && ns.is_none() && name.is_some() {
        return Err(ApiError::PathNotFound);
    }
    let watching = info.watch_path || query.bool("watch")?.unwrap_or(false);
    let subresource = match info.subresource.as_deref() {
        None => None,
        Some(_) if watching || name.is_none() => return Err(ApiError::PathNotFound),
        Some("status") if kind.subresources.status => Some(Subresource::Status),
        Some("finalize") if kind.group.is_empty() && kind.resource == "namespaces" => {
            if req.method() != Method::PUT {
                return Err(method_not_allowed(&kind, req.method().as_str()));
            }
            Some(Subresource::Finalize)
        }
        Some(_) => return subresource::serve(state, req, &kind, info, user, query, writer).await,
    };
    if subresource.is_some() && !matches!(*req.method(), Method::GET | Method::PUT | Method::PATCH)
    {
        return Err(method_not_allowed(&kind, req.method().as_str()));
    }
    let user_agent = header_str(&req, header::USER_AGENT).map(str::to_string);
    let method = req.method().clone();
    let (content_type, cbor_body) = request_media(&req, &state.config.feature_gates)?;
    let read_body = async |req: Request<Incoming>| {
        let body = read_limited(req.into_body(), state.config.max_request_bytes).await?;
        if cbor_body {
            return cbor::body_to_json(&body);
        }
        Ok::<_, ApiError>(body)
    };
    let table_opts = writer
        .table
        .map(|v| table::options(v, query, &state.config.api_domain))
        .transpose()?;
    let meta_group = format!("meta.{}", state.config.api_domain);
    let options = |kind: &'static str| OptionsKind {
        kind,
        group: &meta_group,
    };
    match (method, name) {
        (Method::GET, _) if watching => {
            let resp = watch::serve(state, &kind, ns, name, query, writer.encoding).await?;
            Ok(watch_response(resp, writer, &kind, table_opts.as_ref()))
        }
        (Method::GET, Some(name)) => {
            let kv = state
                .store
                .get_raw(&kind, ns, name, query.get("resourceVersion"))
                .await?;
            if let Some(opts) = &table_opts {
                let obj = Store::decode_served(&kind, &kv)?;
                return Ok(table::object(writer, &kind, &obj, opts));
            }
            if writer.is_compact_json() {
                return Ok(writer.bytes(200, served::object_bytes(&kind, &kv)));
            }
            if let Encoding::Protobuf(_) = writer.encoding {
                match protobuf::get(writer, &kind, &kv) {
                    Ok(resp) => return Ok(resp),
                    Err(e) => writer = protobuf::fallback(writer, &e)?,
                }
            }
            Ok(writer.object(200, &Store::decode_served(&kind, &kv)?, &[]))
        }
        (Method::GET, None) => {
            query.check_not_watch_only(&meta_group)?;
            let page = state
                .store
                .list_raw(
                    &kind,
                    ns,
                    &query.list_options(&kind, &state.config.feature_gates)?,
                )
                .await?;
            if let Some(opts) = &table_opts {
                return table::list(writer, &kind, page, opts);
            }
            if writer.is_compact_json() {
                let head = list_head(
                    &kind,
                    page.revision,
                    page.continue_token.clone(),
                    page.remaining,
                );
                return Ok(
                    writer.stream(ListBody::new(Arc::clone(&kind), head, page.items).boxed())
                );
            }
            if let Encoding::Protobuf(_) = writer.encoding {
                match protobuf::list(writer, &kind, &page) {
                    Ok(resp) => return Ok(resp),
                    Err(e) => writer = protobuf::fallback(writer, &e)?,
                }
            }
            let items = page
                .items
                .iter()
                .map(|kv| Store::decode_served(&kind, kv))
                .collect::<Result<Vec<_>, _>>()?;
            let page = ListPage {
                items,
                revision: page.revision,
                continue_token: page.continue_token,
                remaining: page.remaining,
            };
            Ok(writer.object(200, &list_object(&kind, page), &[]))
        }
        (Method::POST, None) => {
            if kind.namespaced && ns.is_none() {
                return Err(method_not_allowed(&kind, "create"));
            }
            let mut opts = query.write_options(user_agent.as_deref(), &options("CreateOptions"))?;
            opts.user = Some(user);
            let body = read_body(req).await?;
            let decoded = decode_body(&kind, content_type.as_deref(), &body)?;
            let out = state.store.create(&kind, ns, decoded, &opts).await?;
            Ok(respond_written(writer, &kind, out, table_opts.as_ref()))
        }
        (Method::PUT, Some(name)) => {
            let mut opts = query.write_options(user_agent.as_deref(), &options("UpdateOptions"))?;
            opts.subresource = subresource;
            opts.user = Some(user);
            let body = read_body(req).await?;
            let decoded = decode_body(&kind, content_type.as_deref(), &body)?;
            let out = state.store.update(&kind, ns, name, decoded, &opts).await?;
            Ok(respond_written(writer, &kind, out, table_opts.as_ref()))
        }
        (Method::PATCH, Some(name)) => {
            let patch_type = PatchType::from_content_type(&essence(content_type.as_deref()))
                .ok_or_else(|| {
                    ApiError::UnsupportedMediaType(
                        [
                            "application/json-patch+json",
                            "application/merge-patch+json",
                            "application/strategic-merge-patch+json",
                            "application/apply-patch+yaml",
                        ]
                        .map(String::from)
                        .to_vec(),
                    )
                })?;
            let patch_options = options("PatchOptions");
            let force = query.force(patch_type, &patch_options)?;
            let mut opts = query.write_options(user_agent.as_deref(), &patch_options)?;
            opts.subresource = subresource;
            opts.user = Some(user);
            let body = read_body(req).await?;
            let out = if patch_type == PatchType::Apply {
                if query.get("fieldManager").is_none_or(str::is_empty) {
                    return Err(patch_options.invalid(
                        Cause::required("fieldManager")
                            .with_message("Required value: is required for apply patch"),
                    ));
                }
                let config = decode::parse_yaml(&body)
                    .map_err(|e| ApiError::BadRequest(format!("error decoding YAML: {e}")))?;
                state
                    .store
                    .apply(&kind, ns, name, config, &opts, force)
                    .await?
            } else {
                state
                    .store
                    .patch(&kind, ns, name, patch_type, &body, &opts)
                    .await?
            };
            Ok(respond_written(writer, &kind, out, table_opts.as_ref()))
        }
        (Method::DELETE, Some(name)) => {
            let body = read_body(req).await?;
            let mut opts = delete_options(query, content_type.as_deref(), &body)?;
            check_unsafe_delete(state, &mut opts)?;
            opts.user = Some(user);
            match state.store.delete(&kind, ns, name, &opts).await? {
                Deleted::Removed(obj) if kind.return_deleted_object => {
                    Ok(protobuf::reply(writer, &kind, 200, &obj, &[]))
                }
                Deleted::Removed(obj) => Ok(protobuf::reply(
                    writer,
                    &kind,
                    200,
                    &success_status(&kind, &obj),
                    &[],
                )),
                Deleted::Pending(obj) => {
                    let code = if opts.orphan_dependents == Some(false) {
                        202
                    } else {
                        200
                    };
                    Ok(protobuf::reply(writer, &kind, code, &obj, &[]))
                }
            }
        }
        (Method::DELETE, None) => {
            query.check_not_watch_only(&meta_group)?;
            let body = read_body(req).await?;
            let mut opts = delete_options(query, content_type.as_deref(), &body)?;
            check_unsafe_delete(state, &mut opts)?;
            opts.user = Some(user);
            let list = query.list_options(&kind, &state.config.feature_gates)?;
            let (items, revision) = state
                .store
                .delete_collection(&kind, ns, &list, &opts)
                .await?;
            let page = ListPage {
                items,
                revision,
                continue_token: None,
                remaining: None,
            };
            Ok(protobuf::reply(
                writer,
                &kind,
                200,
                &list_object(&kind, page),
                &[],
            ))
        }
        (Method::PUT | Method::PATCH, None) => {
            Err(method_not_allowed(&kind, "this method on a collection"))
        }
        (Method::POST, Some(_)) => Err(method_not_allowed(&kind, "create on a named resource")),
        (m, _) => Err(method_not_allowed(&kind, m.as_str())),
    }
}

/// The Content-Type a body is read as, and whether it arrives as CBOR (then
/// read as its JSON equivalent). Only requests that carry bodies are checked.
fn request_media(
    req: &Request<Incoming>,
    gates: &crate::config::feature_gates::FeatureGates,
) -> Result<(Option<String>, bool), ApiError> {
    let content_type = header_str(req, header::CONTENT_TYPE).map(str::to_string);
    if !matches!(
        *req.method(),
        Method::POST | Method::PUT | Method::PATCH | Method::DELETE
    ) {
        return Ok((content_type, false));
    }
    let json = cbor::json_media(
        &essence(content_type.as_deref()),
        gates.enabled("CBORServingAndStorage"),
    )?;
    Ok(match json {
        Some(json) => (Some(json.to_string()), true),
        None => (content_type, false),
    })
}

/// A watch stream in the representation asked for: Tables, a CBOR
/// sequence, or the JSON stream as it is; never compressed.
fn watch_response(
    resp: Response<Body>,
    writer: Writer,
    kind: &Arc<KindSpec>,
    table_opts: Option<&crate::api::table::TableOptions>,
) -> Response<Body> {
    let mut resp = match (table_opts, writer.encoding) {
        (Some(opts), _) => table::watch(resp, kind, opts),
        (None, Encoding::Cbor) => {
            let (mut parts, body) = resp.into_parts();
            parts.headers.insert(
                header::CONTENT_TYPE,
                http::HeaderValue::from_static("application/cbor-seq"),
            );
            Response::from_parts(parts, map_lines(body, cbor::line_to_item))
        }
        (None, _) => resp,
    };
    resp.extensions_mut().insert(Uncompressed);
    resp
}

/// A write's answer (201 if it created the object, else 200): the stored
/// bytes when the client takes compact JSON, the object's Table when it
/// asked for one.
fn respond_written(
    writer: Writer,
    kind: &KindSpec,
    out: crate::api::store::WriteOutcome,
    table: Option<&crate::api::table::TableOptions>,
) -> Response<Body> {
    let code = if out.created { 201 } else { 200 };
    if let Some(opts) = table {
        let mut resp = table::object(writer, kind, &out.object, opts);
        *resp.status_mut() = http::StatusCode::from_u16(code).unwrap_or(http::StatusCode::OK);
        crate::http::respond::add_warnings(&mut resp, &out.warnings);
        return resp;
    }
    match out.served {
        Some(bytes) if writer.is_compact_json() => {
            let mut resp = writer.bytes(code, bytes);
            crate::http::respond::add_warnings(&mut resp, &out.warnings);
            resp
        }
        _ => protobuf::reply(writer, kind, code, &out.object, &out.warnings),
    }
}

/// The JSON of a `<Kind>List` up to and including `"items":[`.
fn list_head(
    kind: &KindSpec,
    revision: crate::storage::Revision,
    continue_token: Option<String>,
    remaining: Option<u64>,
) -> Vec<u8> {
    let envelope = list_envelope(kind, revision, continue_token, remaining);
    let mut head = serde_json::to_vec(&envelope).expect("JSON values serialize");
    head.pop();
    head.extend_from_slice(b",\"items\":[");
    head
}

/// `<Kind>List` without its items: kind, apiVersion and ListMeta.
fn list_envelope(
    kind: &KindSpec,
    revision: crate::storage::Revision,
    continue_token: Option<String>,
    remaining: Option<u64>,
) -> Value {
    let mut meta = serde_json::Map::new();
    meta.insert("resourceVersion".into(), json!(revision.get().to_string()));
    if let Some(c) = continue_token {
        meta.insert("continue".into(), json!(c));
    }
    if let Some(r) = remaining {
        meta.insert("remainingItemCount".into(), json!(r));
    }
    json!({"kind": kind.list_kind, "apiVersion": kind.api_version(), "metadata": meta})
}

/// `<Kind>List` for a page.
#[must_use]
pub fn list_object(kind: &KindSpec, page: ListPage) -> Value {
    let mut list = list_envelope(kind, page.revision, page.continue_token, page.remaining);
    list["items"] = Value::Array(page.items);
    list
}

/// DeleteOptions from the query and an optional JSON or protobuf body.
fn delete_options(
    query: &Query,
    content_type: Option<&str>,
    body: &Bytes,
) -> Result<DeleteOptions, ApiError> {
    let opts = query.delete_options()?;
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(opts);
    }
    if let Some(v) = protobuf::delete_options_body(content_type, body)? {
        return delete_options::merge(opts, &v);
    }
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::BadRequest(format!("invalid DeleteOptions body: {e}")))?;
    delete_options::merge(opts, &v)
}

/// `ignoreStoreReadErrorWithClusterBreakingPotential`: dropped unless its gate
/// is on; then it excludes every other option, and — as every stored object
/// here decodes — the delete is refused, as Kubernetes refuses an unsafe
/// delete of a readable object.
fn check_unsafe_delete(state: &AppState, opts: &mut DeleteOptions) -> Result<(), ApiError> {
    if !opts.unsafe_delete {
        return Ok(());
    }
    if !state
        .config
        .feature_gates
        .enabled("AllowUnsafeMalformedObjectDeletion")
    {
        opts.unsafe_delete = false;
        return Ok(());
    }
    let others = opts.dry_run
        || opts.grace_period_seconds.is_some()
        || opts.orphan_dependents.is_some()
        || opts.propagation_policy.is_some()
        || opts.precondition_uid.is_some()
        || opts.precondition_rv.is_some();
    if others {
        return Err(ApiError::BadRequest(
            "ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: cannot be combined with dryRun, gracePeriodSeconds, orphanDependents, preconditions or propagationPolicy".into(),
        ));
    }
    Err(ApiError::BadRequest(
        "ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively meant to delete corrupt objects that cannot be read; this object can be read, delete it normally".into(),
    ))
}
