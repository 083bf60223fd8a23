//! The subresources that are not the object itself: `/scale` (an
//! `autoscaling/v1` Scale over the paths a kind names) and `/eviction` (POST
//! an Eviction to delete a pod gracefully), `/binding` (POST a Binding to
//! assign a pod to a node) and `/token` (POST a
//! TokenRequest for a service account's token). `/status` and a namespace's
//! `/finalize` are ordinary writes with a narrower scope (resource/write.rs).

use std::sync::Arc;

use http::{Method, Request, Response, header};
use hyper::body::Incoming;
use serde_json::json;

use super::header_str;
use crate::api::bodies::scale::{self, ScaleChange, ScaleTarget, scale_of};
use crate::api::bodies::token_request as token_request_body;
use crate::api::bodies::{binding, eviction};
use crate::api::decode::Decoded;
use crate::api::error::ApiError;
use crate::api::kind::{KindSpec, Origin};
use crate::api::kinds::binding::success;
use crate::api::patch::PatchType;
use crate::api::store::Subresource;
use crate::app::AppState;
use crate::http::body::{Body, read_limited};
use crate::http::negotiate::{decode_body, essence};
use crate::http::params::{OptionsKind, Query};
use crate::http::protobuf::{decode_typed_body, is_protobuf};
use crate::http::respond::Writer;
use crate::request::audit::AuditContext;
use crate::request::authn::service_account::token_request;
use crate::request::info::ResourceInfo;
use crate::request::user::UserInfo;

/// Who asks for a subresource, and the request's audit (which records
/// the bodies read).
pub struct Asker {
    pub user: Arc<UserInfo>,
    pub audit: AuditContext,
}

/// Serves `/scale`, `/eviction`, `/binding` and `/token` for an authorized user; anything else
/// is not found.
pub async fn serve(
    state: &Arc<AppState>,
    req: Request<Incoming>,
    kind: &Arc<KindSpec>,
    info: &ResourceInfo,
    asker: Asker,
    query: &Query,
    writer: Writer,
) -> Result<Response<Body>, ApiError> {
    let Asker { user, audit } = asker;
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
                    Ok(writer.typed(scale::shared_schema(), 200, &scale_of(paths, &obj), &[]))
                }
                Method::PUT | Method::PATCH => {
                    let user_agent = header_str(&req, header::USER_AGENT).map(str::to_string);
                    let meta_group = format!("meta.{}", state.config.api_domain);
                    let body =
                        read_limited(req.into_body(), state.config.max_request_bytes).await?;
                    audit.record_request_body(&body);
                    let change = if method == Method::PUT {
                        // client-go's scale client may send protobuf,
                        // which has no repeated keys to report.
                        let decoded = if is_protobuf(content_type.as_deref()) {
                            Decoded {
                                value: decode_typed_body(
                                    scale::shared_schema(),
                                    content_type.as_deref(),
                                    &body,
                                )?,
                                duplicates: Vec::new(),
                            }
                        } else {
                            decode_body(content_type.as_deref(), &body)?
                        };
                        ScaleChange::Replace(decoded)
                    } else {
                        query.force(
                            PatchType::Merge,
                            &OptionsKind {
                                kind: "PatchOptions",
                                group: &meta_group,
                            },
                        )?;
                        // A built-in kind's Scale is a Go type, so strategic
                        // merge works on it too (a Scale has no lists: it
                        // merges as a merge patch does); a CRD's does not.
                        let built_in = kind.origin == Origin::BuiltIn;
                        let patch_type =
                            PatchType::from_content_type(&essence(content_type.as_deref()))
                                .filter(|t| match t {
                                    PatchType::Merge | PatchType::Json => true,
                                    PatchType::Strategic => built_in,
                                    PatchType::Apply => false,
                                })
                                .ok_or_else(|| {
                                    let mut accepted = vec![
                                        "application/json-patch+json".into(),
                                        "application/merge-patch+json".into(),
                                    ];
                                    if built_in {
                                        accepted
                                            .push("application/strategic-merge-patch+json".into());
                                    }
                                    ApiError::UnsupportedMediaType(accepted)
                                })?;
                        ScaleChange::Patch(patch_type, body.to_vec())
                    };
                    let mut opts = query.write_options(
                        user_agent.as_deref(),
                        &OptionsKind {
                            kind: "UpdateOptions",
                            group: &meta_group,
                        },
                    )?;
                    opts.subresource = Some(Subresource::Scale);
                    opts.user = Some(user);
                    let target = ScaleTarget {
                        kind,
                        paths,
                        name,
                        namespace: ns,
                        validation: opts.field_validation,
                    };
                    let out = state
                        .store
                        .guaranteed_update(kind, ns, name, &opts, |current| {
                            target.scaled(current, &change)
                        })
                        .await?;
                    Ok(writer.typed(
                        scale::shared_schema(),
                        200,
                        &scale_of(paths, &out.object),
                        &out.warnings,
                    ))
                }
                m => Err(not_allowed(&m)),
            }
        }
        Some("eviction") if kind.subresources.eviction => {
            if req.method() != Method::POST {
                return Err(not_allowed(req.method()));
            }
            let body = read_limited(req.into_body(), state.config.max_request_bytes).await?;
            // kubectl drain's typed client sends Evictions as protobuf.
            let body =
                decode_typed_body(eviction::shared_schema(), content_type.as_deref(), &body)?;
            audit.record_request_value(&body);
            let mut opts = eviction::decode(&body, name, ns)?;
            opts.dry_run |= query.dry_run()?;
            // Admitted as the pod's delete, which is what it does
            // (Kubernetes admits a create of pods/eviction instead).
            opts.user = Some(user);
            state
                .store
                .evict(kind, ns.unwrap_or_default(), name, &opts)
                .await?;
            Ok(writer.object(
                201,
                &json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}),
                &[],
            ))
        }
        Some("binding") if kind.subresources.binding => {
            if req.method() != Method::POST {
                return Err(not_allowed(req.method()));
            }
            let body = read_limited(req.into_body(), state.config.max_request_bytes).await?;
            // Schedulers built on client-go send Bindings as protobuf.
            let body = decode_typed_body(&binding::schema(), content_type.as_deref(), &body)?;
            audit.record_request_value(&body);
            // Malformed Bindings are refused before admission sees them.
            binding::decode(&body, Some(name), ns)?;
            let opts = crate::api::store::WriteOptions {
                dry_run: query.dry_run()?,
                user: Some(user),
                ..Default::default()
            };
            let via = crate::api::store::BindingVia::PodSubresource;
            state
                .store
                .bind(kind, ns.unwrap_or_default(), body, Some(name), via, &opts)
                .await?;
            Ok(writer.object(201, &success(), &[]))
        }
        Some("token") if kind.subresources.token_request => {
            if req.method() != Method::POST {
                return Err(not_allowed(req.method()));
            }
            let body = read_limited(req.into_body(), state.config.max_request_bytes).await?;
            // kubectl's typed client sends TokenRequests as protobuf.
            let body = decode_typed_body(
                token_request_body::shared_schema(),
                content_type.as_deref(),
                &body,
            )?;
            audit.record_request_value(&body);
            let answer = token_request::create(
                &state.store,
                &state.token_issuer,
                ns.unwrap_or_default(),
                name,
                &body,
                &state.config.api_domain,
            )
            .await?;
            Ok(writer.object(201, &answer, &[]))
        }
        _ => Err(ApiError::PathNotFound),
    }
}
