//! What an access review asks, read from its spec as kube-apiserver reads
//! it: the request (`resourceAttributes` or `nonResourceAttributes`) as the
//! authorizers see one, the subject of a (Local)SubjectAccessReview, and
//! kube's validation of both, worded as kube words it.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::go_value;
use crate::api::error::Cause;
use crate::api::schema::go_quote;
use crate::api::selectors::{FieldSelector, LabelSelector};
use crate::request::authz::rbac::rule::string_list;
use crate::request::info::{RequestInfo, ResourceInfo};
use crate::request::user::UserInfo;

/// Go's rendering of a nil pointer in a field error.
const NULL: &str = "\"null\"";

/// A field of an object, `null` counting as absent (a nil pointer in Go).
fn present<'a>(object: &'a Value, key: &str) -> Option<&'a Value> {
    object.get(key).filter(|v| !v.is_null())
}

fn text<'a>(object: &'a Value, key: &str) -> &'a str {
    object.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn invalid(field: &str, shown: &str, detail: &str) -> Cause {
    Cause::new(
        "FieldValueInvalid",
        field,
        format!("Invalid value: {shown}: {detail}"),
    )
}

/// The request the spec describes, as the authorizers are asked it:
/// resource attributes verbatim (`*` passes through; an empty version
/// means every version), or a path and verb. `None` when the spec has
/// neither (validation refuses that first).
#[must_use]
pub fn request(spec: &Value) -> Option<RequestInfo> {
    if let Some(attrs) = present(spec, "resourceAttributes") {
        let named = |key: &str| Some(text(attrs, key).to_string()).filter(|s| !s.is_empty());
        let version = match text(attrs, "version") {
            "" => "*",
            v => v,
        };
        return Some(RequestInfo {
            verb: Cow::Owned(text(attrs, "verb").to_string()),
            path: String::new(),
            resource: Some(ResourceInfo {
                group: text(attrs, "group").to_string(),
                version: version.to_string(),
                // Always set, even empty: a review of `namespaces` without
                // a namespace asks at the cluster scope, unlike a request
                // to `/api/v1/namespaces/{name}`.
                namespace: Some(text(attrs, "namespace").to_string()),
                resource: text(attrs, "resource").to_string(),
                name: named("name"),
                subresource: named("subresource"),
                watch_path: false,
                selected_name: None,
            }),
        });
    }
    let attrs = present(spec, "nonResourceAttributes")?;
    Some(RequestInfo {
        verb: Cow::Owned(text(attrs, "verb").to_string()),
        path: text(attrs, "path").to_string(),
        resource: None,
    })
}

/// The user a (Local)SubjectAccessReview asks about, exactly as given: no
/// group is added.
#[must_use]
pub fn subject(spec: &Value) -> UserInfo {
    let extra: BTreeMap<String, Vec<String>> = present(spec, "extra")
        .and_then(Value::as_object)
        .map(|map| {
            map.iter()
                .map(|(k, v)| (k.clone(), string_list(Some(v))))
                .collect()
        })
        .unwrap_or_default();
    UserInfo {
        name: text(spec, "user").to_string(),
        uid: text(spec, "uid").to_string(),
        groups: string_list(spec.get("groups")),
        extra,
    }
}

/// Exactly one of the two attribute kinds.
pub fn check_attributes(spec: &Value, causes: &mut Vec<Cause>) {
    let resource = present(spec, "resourceAttributes");
    let non_resource = present(spec, "nonResourceAttributes");
    match (resource, non_resource) {
        (Some(_), Some(non_resource)) => causes.push(invalid(
            "spec.nonResourceAttributes",
            &go_value::non_resource_attributes(non_resource),
            "cannot be specified in combination with resourceAttributes",
        )),
        (None, None) => causes.push(invalid(
            "spec.resourceAttributes",
            NULL,
            "exactly one of nonResourceAttributes or resourceAttributes must be specified",
        )),
        _ => {}
    }
}

/// A SubjectAccessReview names a user or a group.
pub fn check_subject(spec: &Value, causes: &mut Vec<Cause>) {
    let user = text(spec, "user");
    if user.is_empty() && string_list(spec.get("groups")).is_empty() {
        causes.push(invalid(
            "spec.user",
            &go_quote(user),
            "at least one of user or group must be specified",
        ));
    }
}

/// A field or label selector gives a raw selector or requirements, not
/// both and not neither.
pub fn check_selectors(spec: &Value, causes: &mut Vec<Cause>) {
    let Some(attrs) = present(spec, "resourceAttributes") else {
        return;
    };
    for key in ["fieldSelector", "labelSelector"] {
        let Some(selector) = present(attrs, key) else {
            continue;
        };
        let path = format!("spec.resourceAttributes.{key}");
        let raw = text(selector, "rawSelector");
        let requirements = selector
            .get("requirements")
            .and_then(Value::as_array)
            .is_some_and(|r| !r.is_empty());
        if !raw.is_empty() && requirements {
            causes.push(invalid(
                &format!("{path}.rawSelector"),
                &go_quote(raw),
                "may not specified at the same time as requirements",
            ));
        }
        if raw.is_empty() && !requirements {
            causes.push(Cause::new(
                "FieldValueRequired",
                format!("{path}.requirements"),
                format!("Required value: when {path} is specified, requirements or rawSelector is required"),
            ));
        }
    }
}

/// A review's `metadata` must be empty (a LocalSubjectAccessReview's but
/// for its namespace); managed fields and a null creation time do not
/// count.
pub fn check_metadata(body: &Value, except_namespace: bool, causes: &mut Vec<Cause>) {
    let Some(metadata) = present(body, "metadata") else {
        return;
    };
    let empty = Map::new();
    let set = metadata
        .as_object()
        .unwrap_or(&empty)
        .iter()
        .any(|(key, value)| match key.as_str() {
            "managedFields" => false,
            "namespace" if except_namespace => false,
            _ => !is_zero(value),
        });
    if set {
        let detail = if except_namespace {
            "must be empty except for namespace"
        } else {
            "must be empty"
        };
        causes.push(invalid(
            "metadata",
            &go_value::object_meta(metadata),
            detail,
        ));
    }
}

/// What Go decodes to a zero value: null, "", 0, false, {} and [].
fn is_zero(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(fields) => fields.is_empty(),
    }
}

/// Kube's evaluation error for raw selectors it could not parse (and so
/// ignored), after the authorizers' own errors.
#[must_use]
pub fn selector_errors(spec: &Value) -> Vec<String> {
    let Some(attrs) = present(spec, "resourceAttributes") else {
        return Vec::new();
    };
    let raw = |key: &str| {
        present(attrs, key)
            .map(|s| text(s, "rawSelector"))
            .filter(|s| !s.is_empty())
    };
    let mut errors = Vec::new();
    if raw("fieldSelector").is_some_and(|s| FieldSelector::parse(s).is_err()) {
        errors.push("spec.resourceAttributes.fieldSelector ignored due to parse error".to_string());
    }
    if raw("labelSelector").is_some_and(|s| LabelSelector::parse(s).is_err()) {
        errors.push("spec.resourceAttributes.labelSelector ignored due to parse error".to_string());
    }
    errors
}
