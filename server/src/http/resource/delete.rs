//! DELETE of an object or a collection, and the DeleteOptions they take.

use bytes::Bytes;
use http::Response;
use hyper::body::Incoming;
use serde_json::Value;

use crate::api::bodies::delete_options;
use crate::api::error::ApiError;
use crate::api::store::{DeleteOptions, Deleted, ListPage, delete::success_status};
use crate::http::body::Body;
use crate::http::encode::json::list_object;
use crate::http::params::Query;
use crate::http::protobuf;
use crate::http::resource::Call;
use crate::request::authz::Attributes;
use crate::request::info::RequestInfo;

/// DELETE of one object: the object (or a `Status`) as it was removed, or
/// as it waits for its finalizers.
pub async fn delete(
    r: &Call<'_>,
    req: http::Request<Incoming>,
    name: &str,
) -> Result<Response<Body>, ApiError> {
    let (kind, writer) = (&r.kind, r.writer);
    let opts = options(r, req, name).await?;
    match r.state.store.delete(kind, r.ns, name, &opts).await? {
        Deleted::Removed(obj) if kind.return_deleted_object => {
            Ok(writer.reply(kind, 200, &obj, &[]))
        }
        Deleted::Removed(obj) => Ok(writer.reply(kind, 200, &success_status(kind, &obj), &[])),
        Deleted::Pending(obj) => {
            let code = if opts.orphan_dependents == Some(false) {
                202
            } else {
                200
            };
            Ok(writer.reply(kind, code, &obj, &[]))
        }
    }
}

/// DELETE of a collection: the deleted objects as a `<Kind>List`.
pub async fn delete_collection(
    r: &Call<'_>,
    req: http::Request<Incoming>,
) -> Result<Response<Body>, ApiError> {
    let kind = &r.kind;
    r.query.check_not_watch_only(&r.meta_group)?;
    let opts = options(r, req, "").await?;
    let list = r.query.list_options(kind, &r.state.config.feature_gates)?;
    let (items, revision) = r
        .state
        .store
        .delete_collection(kind, r.ns, &list, &opts)
        .await?;
    let page = ListPage {
        items,
        revision,
        continue_token: None,
        remaining: None,
    };
    Ok(r.writer.reply(kind, 200, &list_object(kind, page), &[]))
}

/// The request's DeleteOptions, checked, for its user.
async fn options(
    r: &Call<'_>,
    req: http::Request<Incoming>,
    name: &str,
) -> Result<DeleteOptions, ApiError> {
    let body = r.read_body(req).await?;
    let mut opts = parse_options(r.query, r.content_type.as_deref(), &body)?;
    check_unsafe_delete(r, &mut opts, name).await?;
    opts.user = Some(r.user.clone());
    Ok(opts)
}

/// DeleteOptions from the query and an optional JSON or protobuf body.
fn parse_options(
    query: &Query,
    content_type: Option<&str>,
    body: &Bytes,
) -> Result<DeleteOptions, ApiError> {
    let opts = query.delete_options()?;
    let opts = if body.iter().all(u8::is_ascii_whitespace) {
        opts
    } else if let Some(v) = protobuf::delete_options_body(content_type, body)? {
        delete_options::merge(opts, &v)?
    } else {
        let v: Value = serde_json::from_slice(body)
            .map_err(|e| ApiError::BadRequest(format!("invalid DeleteOptions body: {e}")))?;
        delete_options::merge(opts, &v)?
    };
    match opts.grace_period_seconds {
        // Spec 4.5: the grace period is a non-negative number of seconds.
        Some(grace) if grace < 0 => Err(ApiError::BadRequest(format!(
            "gracePeriodSeconds: Invalid value: {grace}: must be greater than or equal to 0"
        ))),
        _ => Ok(opts),
    }
}

/// `ignoreStoreReadErrorWithClusterBreakingPotential`: dropped unless its gate
/// is on; then it excludes every other option and needs the
/// `unsafe-delete-ignore-read-errors` permission besides `delete`; the
/// store then removes the object only if it cannot be read.
async fn check_unsafe_delete(
    r: &Call<'_>,
    opts: &mut DeleteOptions,
    name: &str,
) -> Result<(), ApiError> {
    if !opts.unsafe_delete {
        return Ok(());
    }
    if !r
        .state
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
    authorize_unsafe_delete(r, name).await?;
    Ok(())
}

/// Kubernetes' extra check of an unsafe delete: the caller must also be
/// allowed the verb `unsafe-delete-ignore-read-errors` on the object.
async fn authorize_unsafe_delete(r: &Call<'_>, name: &str) -> Result<(), ApiError> {
    const VERB: &str = "unsafe-delete-ignore-read-errors";
    let info = RequestInfo::resource_request(
        VERB,
        &r.kind.group,
        &r.kind.resource,
        r.ns.unwrap_or_default(),
        name,
    );
    let verdict = r
        .authorizers
        .decide(&Attributes {
            user: &r.user,
            info: &info,
        })
        .await;
    if verdict.allowed {
        return Ok(());
    }
    Err(ApiError::Forbidden {
        group: r.kind.group.clone(),
        resource: r.kind.qualified_resource(),
        name: name.to_string(),
        reason: format!(
            "not permitted to do {VERB:?}, reason: {}, error: {}",
            verdict.reason,
            if verdict.evaluation_error.is_empty() {
                "<nil>"
            } else {
                &verdict.evaluation_error
            }
        ),
        causes: Vec::new(),
    })
}
