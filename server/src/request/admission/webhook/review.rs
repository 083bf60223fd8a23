//! The AdmissionReview a webhook receives (v1 or v1beta1, the same
//! fields) and what its answer means: allowed, or denied with the Status
//! kube builds from it; a JSONPatch to apply; warnings.

use std::borrow::Cow;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};

use super::matching::Matched;
use crate::api::error::ApiError;
use crate::api::kind::KindSpec;
use crate::request::admission::{Attributes, Operation, Options};

/// The write as one webhook sees it: the kind it is called with, and the
/// new and old objects in that kind's version.
pub struct Seen<'a> {
    pub kind: &'a KindSpec,
    pub object: Option<&'a Value>,
    pub old: Option<&'a Value>,
}

/// `object`, served as `from`, in `to`'s version (through the stored form
/// they share).
#[must_use]
pub fn convert(from: &KindSpec, to: &KindSpec, object: &Value) -> Value {
    to.storage_to_served(from.served_to_storage(object.clone()))
}

/// The new and old objects in the version `matched` is called with.
#[must_use]
pub fn versions<'a>(
    matched: &Matched,
    attrs: &Attributes<'a>,
    object: Option<&'a Value>,
) -> (Option<Cow<'a, Value>>, Option<Cow<'a, Value>>) {
    versions_as(matched.via.as_deref(), attrs, object)
}

/// The new and old objects as `via` serves them (`None`: as written).
#[must_use]
pub fn versions_as<'a>(
    via: Option<&KindSpec>,
    attrs: &Attributes<'a>,
    object: Option<&'a Value>,
) -> (Option<Cow<'a, Value>>, Option<Cow<'a, Value>>) {
    let view = |o: Option<&'a Value>| {
        o.map(|o| match via {
            Some(via) => Cow::Owned(convert(attrs.kind, via, o)),
            None => Cow::Borrowed(o),
        })
    };
    (view(object), view(attrs.old_object))
}

fn group_kind(kind: &KindSpec, name: &str) -> Value {
    json!({"group": kind.group, "version": kind.version, "kind": name})
}

fn group_resource(kind: &KindSpec) -> Value {
    json!({"group": kind.group, "version": kind.version, "resource": kind.resource})
}

/// The review POSTed for a write; `uid` identifies it in the answer.
/// `kind` and `resource` are the version the webhook matched,
/// `requestKind` and `requestResource` the write's own.
#[must_use]
pub fn request(
    attrs: &Attributes<'_>,
    seen: &Seen<'_>,
    domain: &str,
    version: &str,
    uid: &str,
) -> Value {
    let own = attrs.kind;
    let kind_name = |kind: &KindSpec| attrs.object_kind.unwrap_or(&kind.kind).to_string();
    let user = attrs.user;
    let mut user_info = json!({"username": user.name});
    if !user.uid.is_empty() {
        user_info["uid"] = user.uid.clone().into();
    }
    if !user.groups.is_empty() {
        user_info["groups"] = json!(user.groups);
    }
    if !user.extra.is_empty() {
        user_info["extra"] = json!(user.extra);
    }
    let mut request = Map::new();
    request.insert("uid".into(), uid.into());
    request.insert("kind".into(), group_kind(seen.kind, &kind_name(seen.kind)));
    request.insert("resource".into(), group_resource(seen.kind));
    if let Some(sub) = attrs.subresource {
        request.insert("subResource".into(), sub.into());
    }
    request.insert("requestKind".into(), group_kind(own, &kind_name(own)));
    request.insert("requestResource".into(), group_resource(own));
    if let Some(sub) = attrs.subresource {
        request.insert("requestSubResource".into(), sub.into());
    }
    if !attrs.name.is_empty() {
        request.insert("name".into(), attrs.name.into());
    }
    if let Some(ns) = attrs.namespace {
        request.insert("namespace".into(), ns.into());
    }
    request.insert("operation".into(), attrs.operation.as_str().into());
    request.insert("userInfo".into(), user_info);
    request.insert("object".into(), seen.object.cloned().unwrap_or(Value::Null));
    request.insert("oldObject".into(), seen.old.cloned().unwrap_or(Value::Null));
    request.insert("dryRun".into(), attrs.dry_run().into());
    request.insert("options".into(), options(attrs, domain));
    json!({
        "apiVersion": format!("admission.{domain}/{version}"),
        "kind": "AdmissionReview",
        "request": Value::Object(request),
    })
}

/// The request's options object, as kube sends it.
fn options(attrs: &Attributes<'_>, domain: &str) -> Value {
    let kind = match (attrs.operation, attrs.options) {
        (_, Options::Delete(_)) | (Operation::Delete, _) => "DeleteOptions",
        (Operation::Create, _) => "CreateOptions",
        (Operation::Update, _) => "UpdateOptions",
    };
    let mut out = json!({"apiVersion": format!("meta.{domain}/v1"), "kind": kind});
    if attrs.dry_run() {
        out["dryRun"] = json!(["All"]);
    }
    if let Options::Write(w) = attrs.options
        && let Some(manager) = &w.field_manager
    {
        out["fieldManager"] = manager.clone().into();
    }
    out
}

/// What a webhook answered.
#[derive(Debug, Default)]
pub struct Answer {
    /// A JSONPatch (already base64-decoded), when the webhook sent one.
    pub patch: Option<Vec<u8>>,
    pub warnings: Vec<String>,
    /// `auditAnnotations`, keys as the webhook sent them.
    pub audit_annotations: Vec<(String, String)>,
}

impl Answer {
    /// Passes the answer's warnings to the client and its audit
    /// annotations to the request's event, keyed `<webhook>/<key>` as kube
    /// keys them (a key that makes no qualified name is dropped, logged).
    pub fn tell(&self, hook: &str) {
        for warning in &self.warnings {
            crate::request::notes::warn(warning);
        }
        for (key, value) in &self.audit_annotations {
            if is_qualified_key(key) {
                crate::request::notes::annotate_audit(format!("{hook}/{key}"), value.clone());
            } else {
                tracing::warn!(
                    webhook = hook,
                    key,
                    "dropped an audit annotation whose key is not a qualified name"
                );
            }
        }
    }
}

/// The name part of a qualified name: at most 63 alphanumerics, `-`, `_`
/// or `.`, starting and ending alphanumeric.
fn is_qualified_key(key: &str) -> bool {
    let ends = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    key.len() <= 63
        && ends(key.chars().next())
        && ends(key.chars().last())
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Reads an answer: `Ok` when allowed, the webhook's refusal, or why the
/// answer is unusable (`Err(Err(..))`, a call failure).
pub fn answer(hook: &str, body: &[u8], uid: &str) -> Result<Result<Answer, ApiError>, String> {
    let doc: Value = serde_json::from_slice(body)
        .map_err(|e| format!("received invalid webhook response: {e}"))?;
    let Some(response) = doc.get("response") else {
        return Err("webhook response was absent".into());
    };
    let got = response.get("uid").and_then(Value::as_str).unwrap_or("");
    if got != uid {
        return Err(format!("expected response.uid={uid:?}, got {got:?}"));
    }
    let warnings = response
        .get("warnings")
        .and_then(Value::as_array)
        .map(|w| {
            w.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    if response.get("allowed").and_then(Value::as_bool) != Some(true) {
        return Ok(Err(denied(hook, response.get("status"))));
    }
    let patch = match response.get("patch").and_then(Value::as_str) {
        Some(b64) if !b64.is_empty() => {
            let patch_type = response
                .get("patchType")
                .and_then(Value::as_str)
                .unwrap_or("");
            if patch_type != "JSONPatch" {
                return Err(format!(
                    "webhook returned invalid patchType: {patch_type:?}"
                ));
            }
            Some(
                STANDARD
                    .decode(b64)
                    .map_err(|e| format!("webhook returned a patch that is not base64: {e}"))?,
            )
        }
        _ => None,
    };
    let audit_annotations = response
        .get("auditAnnotations")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default();
    Ok(Ok(Answer {
        patch,
        warnings,
        audit_annotations,
    }))
}

/// kube's refusal: the webhook's code (403 unless it gave one of 400 or
/// more) and `admission webhook "<name>" denied the request: <message>`.
fn denied(hook: &str, status: Option<&Value>) -> ApiError {
    let field = |k: &str| {
        status
            .and_then(|s| s.get(k))
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    let code = status
        .and_then(|s| s.get("code"))
        .and_then(Value::as_u64)
        .and_then(|c| u16::try_from(c).ok())
        .filter(|c| *c >= 400)
        .unwrap_or(403);
    let denied_by = format!("admission webhook {hook:?} denied the request");
    let message = match (field("message"), field("reason")) {
        ("", "") => format!("{denied_by} without explanation"),
        ("", reason) => format!("{denied_by}: {reason}"),
        (message, _) => format!("{denied_by}: {message}"),
    };
    ApiError::Rejected { code, message }
}

#[cfg(test)]
#[path = "review_tests.rs"]
mod tests;
