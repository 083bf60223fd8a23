//! Resource requests: finds the kind, checks path and media, and picks the
//! verb from method, path and `watch`; one file per verb calls the generic
//! store and writes the answer. One set of handlers for every kind; kinds
//! that are never stored are answered by their function (answer.rs).

mod answer;
mod delete;
mod get;
mod list;
mod subresource;
mod write;

use std::sync::Arc;

use bytes::Bytes;
use http::{Method, Request, Response, header};
use hyper::body::Incoming;

use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::api::store::Subresource;
use crate::api::table::TableOptions;
use crate::app::AppState;
use crate::http::body::{Body, read_limited};
use crate::http::cbor;
use crate::http::encode::table;
use crate::http::negotiate::essence;
use crate::http::params::{OptionsKind, Query};
use crate::http::respond::{Writer, add_warnings};
use crate::request::audit::{AuditContext, Level};
use crate::request::authz::Authorizers;
use crate::request::info::ResourceInfo;
use crate::request::user::UserInfo;

pub(crate) fn header_str(req: &Request<Incoming>, name: header::HeaderName) -> Option<&str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

/// Who makes a request, and the chain that authorized it (asked again by
/// handlers whose options need more than the verb: an unsafe delete).
pub struct Caller {
    pub user: Arc<UserInfo>,
    pub authorizers: Arc<Authorizers>,
    /// The request's audit, which request bodies are recorded to.
    pub audit: AuditContext,
}

/// Serves one resource request of an authorized caller.
pub async fn handle(
    state: &Arc<AppState>,
    req: Request<Incoming>,
    info: &ResourceInfo,
    caller: Caller,
    query: Query,
    writer: Writer,
) -> Response<Body> {
    let Some(kind) = state
        .store
        .registry
        .served(&info.group, &info.version, &info.resource)
    else {
        return writer.error(&ApiError::PathNotFound);
    };
    let audit = caller.audit.clone();
    let mut resp = match dispatch(state, req, info, &kind, caller, &query, writer).await {
        Ok(resp) => resp,
        Err(e) => writer.error(&e),
    };
    let subresource = info.subresource.as_deref().unwrap_or("");
    if let Some(deprecation) = state
        .store
        .registry
        .requested_deprecated
        .record(&kind, subresource)
    {
        warn_first(&mut resp, &deprecation.warning);
        // As kube-apiserver marks such requests in its audit log.
        let domain = &state.config.api_domain;
        audit.annotate(&format!("{domain}/deprecated"), "true");
        if !deprecation.removed_release.is_empty() {
            audit.annotate(
                &format!("{domain}/removed-release"),
                &deprecation.removed_release,
            );
        }
    }
    resp
}

/// Puts `text` before the response's other warnings, as kube-apiserver
/// warns of a deprecated version before anything the request itself drew.
fn warn_first(resp: &mut Response<Body>, text: &str) {
    let others: Vec<_> = resp
        .headers()
        .get_all(header::WARNING)
        .iter()
        .cloned()
        .collect();
    resp.headers_mut().remove(header::WARNING);
    add_warnings(resp, &[text.to_string()]);
    for v in others {
        resp.headers_mut().append(header::WARNING, v);
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
    kind: &Arc<KindSpec>,
    caller: Caller,
    query: &Query,
    writer: Writer,
) -> Result<Response<Body>, ApiError> {
    let Caller {
        user,
        authorizers,
        audit,
    } = caller;
    let kind = Arc::clone(kind);
    let writer = writer.for_kind(&kind)?;
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
        Some("approval") if kind.subresources.approval => Some(Subresource::Approval),
        Some("finalize") if kind.group.is_empty() && kind.resource == "namespaces" => {
            if req.method() != Method::PUT {
                return Err(method_not_allowed(&kind, req.method().as_str()));
            }
            Some(Subresource::Finalize)
        }
        Some(_) => {
            let asker = subresource::Asker { user, audit };
            return subresource::serve(state, req, &kind, info, asker, query, writer).await;
        }
    };
    if subresource.is_some() {
        write::check_subresource_method(&kind, req.method())?;
    }
    let user_agent = header_str(&req, header::USER_AGENT).map(str::to_string);
    let (content_type, cbor_body) = request_media(&req, &state.config.feature_gates)?;
    let table = writer
        .table
        .map(|v| table::options(v, query, &state.config.api_domain))
        .transpose()?;
    let call = Call {
        state,
        kind,
        ns,
        query,
        writer,
        table,
        user,
        authorizers,
        user_agent,
        content_type,
        cbor_body,
        meta_group: format!("meta.{}", state.config.api_domain),
        audit,
    };
    let kind = &call.kind;
    if kind.answered_by.is_some() {
        let target = answer::Target {
            name,
            watch_path: info.watch_path,
        };
        return answer::answer(&call, req, target).await;
    }
    match (req.method().clone(), name) {
        (Method::GET, _) if watching => get::watch(&call, name).await,
        (Method::GET, Some(name)) => get::get(&call, name).await,
        (Method::GET, None) => list::list(&call).await,
        (Method::POST, None) => write::create(&call, req).await,
        (Method::PUT, Some(name)) => write::update(&call, req, name, subresource).await,
        (Method::PATCH, Some(name)) => write::patch(&call, req, name, subresource).await,
        (Method::DELETE, Some(name)) => delete::delete(&call, req, name).await,
        (Method::DELETE, None) => delete::delete_collection(&call, req).await,
        (Method::PUT | Method::PATCH, None) => {
            Err(method_not_allowed(kind, "this method on a collection"))
        }
        (Method::POST, Some(_)) => Err(method_not_allowed(kind, "create on a named resource")),
        (m, _) => Err(method_not_allowed(kind, m.as_str())),
    }
}

/// One resource request, its kind found and its media checked: what every
/// verb reads.
pub(crate) struct Call<'a> {
    state: &'a Arc<AppState>,
    kind: Arc<KindSpec>,
    ns: Option<&'a str>,
    query: &'a Query,
    writer: Writer,
    /// The Table options, when the answer is a Table.
    table: Option<TableOptions>,
    user: Arc<UserInfo>,
    authorizers: Arc<Authorizers>,
    user_agent: Option<String>,
    content_type: Option<String>,
    /// The body arrives as CBOR and is read as its JSON equivalent.
    cbor_body: bool,
    meta_group: String,
    audit: AuditContext,
}

impl Call<'_> {
    /// The request body, within the size limit, as JSON when sent as CBOR.
    async fn read_body(&self, req: Request<Incoming>) -> Result<Bytes, ApiError> {
        let body = read_limited(req.into_body(), self.state.config.max_request_bytes).await?;
        let body = if self.cbor_body {
            cbor::body_to_json(&body)?
        } else {
            body
        };
        if self.audit.level() != Level::None && !body.is_empty() && !self.protobuf_body() {
            self.audit.record_request_body(&body);
        }
        Ok(body)
    }

    /// Whether the body arrives as protobuf (recorded once decoded).
    fn protobuf_body(&self) -> bool {
        crate::http::protobuf::is_protobuf(self.content_type.as_deref())
    }

    /// A protobuf body, once decoded, for the audit (other bodies are
    /// recorded as read).
    fn record_decoded(&self, value: &serde_json::Value) {
        if self.audit.level() != Level::None && self.protobuf_body() {
            self.audit.record_request_value(value);
        }
    }

    /// How the options of `kind` (`CreateOptions`, …) are named in errors.
    fn options(&self, kind: &'static str) -> OptionsKind<'_> {
        OptionsKind {
            kind,
            group: &self.meta_group,
        }
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
