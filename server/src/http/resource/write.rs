//! Create, update and patch (apply included), and a write's answer.

use http::{Method, Response};
use hyper::body::Incoming;

use crate::api::decode;
use crate::api::error::{ApiError, Cause};
use crate::api::kind::KindSpec;
use crate::api::patch::PatchType;
use crate::api::store::{Subresource, WriteOutcome};
use crate::api::table::TableOptions;
use crate::http::body::Body;
use crate::http::encode::table;
use crate::http::negotiate::essence;
use crate::http::protobuf::decode_body;
use crate::http::resource::{Call, method_not_allowed};
use crate::http::respond::{Writer, add_warnings};

/// POST to a collection.
pub async fn create(
    r: &Call<'_>,
    req: http::Request<Incoming>,
) -> Result<Response<Body>, ApiError> {
    let kind = &r.kind;
    if kind.namespaced && r.ns.is_none() {
        return Err(method_not_allowed(kind, "create"));
    }
    let mut opts = r
        .query
        .write_options(r.user_agent.as_deref(), &r.options("CreateOptions"))?;
    opts.user = Some(r.user.clone());
    let body = r.read_body(req).await?;
    let decoded = decode_body(kind, r.content_type.as_deref(), &body)?;
    r.record_decoded(&decoded.value);
    let out = r.state.store.create(kind, r.ns, decoded, &opts).await?;
    Ok(respond_written(r.writer, kind, out, r.table.as_ref()))
}

/// PUT of an object (or of its status, or a namespace's finalizers).
pub async fn update(
    r: &Call<'_>,
    req: http::Request<Incoming>,
    name: &str,
    subresource: Option<Subresource>,
) -> Result<Response<Body>, ApiError> {
    let kind = &r.kind;
    let mut opts = r
        .query
        .write_options(r.user_agent.as_deref(), &r.options("UpdateOptions"))?;
    opts.subresource = subresource;
    opts.user = Some(r.user.clone());
    let body = r.read_body(req).await?;
    let decoded = decode_body(kind, r.content_type.as_deref(), &body)?;
    r.record_decoded(&decoded.value);
    let out = r
        .state
        .store
        .update(kind, r.ns, name, decoded, &opts)
        .await?;
    Ok(respond_written(r.writer, kind, out, r.table.as_ref()))
}

/// PATCH of an object (or of its status): the patch types, and apply.
pub async fn patch(
    r: &Call<'_>,
    req: http::Request<Incoming>,
    name: &str,
    subresource: Option<Subresource>,
) -> Result<Response<Body>, ApiError> {
    let kind = &r.kind;
    let patch_type =
        PatchType::from_content_type(&essence(r.content_type.as_deref())).ok_or_else(|| {
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
    let patch_options = r.options("PatchOptions");
    let force = r.query.force(patch_type, &patch_options)?;
    let mut opts = r
        .query
        .write_options(r.user_agent.as_deref(), &patch_options)?;
    opts.subresource = subresource;
    opts.user = Some(r.user.clone());
    let body = r.read_body(req).await?;
    let store = &r.state.store;
    let out = if patch_type == PatchType::Apply {
        if r.query.get("fieldManager").is_none_or(str::is_empty) {
            return Err(patch_options.invalid(
                Cause::required("fieldManager")
                    .with_message("Required value: is required for apply patch"),
            ));
        }
        let config = decode::parse_yaml(&body)
            .map_err(|e| ApiError::BadRequest(format!("error decoding YAML: {e}")))?;
        store.apply(kind, r.ns, name, config, &opts, force).await?
    } else {
        store
            .patch(kind, r.ns, name, patch_type, &body, &opts)
            .await?
    };
    Ok(respond_written(r.writer, kind, out, r.table.as_ref()))
}

/// Whether a subresource write may use `method`.
pub fn check_subresource_method(kind: &KindSpec, method: &Method) -> Result<(), ApiError> {
    if matches!(*method, Method::GET | Method::PUT | Method::PATCH) {
        return Ok(());
    }
    Err(method_not_allowed(kind, method.as_str()))
}

/// A write's answer (201 if it created the object, else 200): the stored
/// bytes when the client takes compact JSON, the object's Table when it
/// asked for one.
fn respond_written(
    writer: Writer,
    kind: &KindSpec,
    out: WriteOutcome,
    table: Option<&TableOptions>,
) -> Response<Body> {
    let code = if out.created { 201 } else { 200 };
    if let Some(opts) = table {
        return writer.object(code, &table::object(kind, &out.object, opts), &out.warnings);
    }
    match out.served {
        Some(bytes) if writer.is_compact_json() => {
            let mut resp = writer.bytes(code, bytes);
            add_warnings(&mut resp, &out.warnings);
            resp
        }
        _ => writer.reply(kind, code, &out.object, &out.warnings),
    }
}
