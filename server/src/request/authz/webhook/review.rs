//! The SubjectAccessReview a webhook is sent, and how its answer is read.
//! The spec is built once in v1 form (what match conditions see as
//! `request`, and the cache key); v1beta1 differs only in `group` for
//! `groups`.

use serde_json::{Map, Value, json};

use crate::config::authz::ReviewVersion;
use crate::request::authz::{Attributes, Decision};

/// The v1 `spec` for a request, empty fields left out as Kubernetes'
/// `omitempty` leaves them.
#[must_use]
pub fn spec(attrs: &Attributes<'_>) -> Value {
    let info = attrs.info;
    let user = attrs.user;
    let mut spec = Map::new();
    match &info.resource {
        Some(r) => {
            let mut attributes = Map::new();
            put(&mut attributes, "namespace", info.namespace());
            put(&mut attributes, "verb", &info.verb);
            put(&mut attributes, "group", &r.group);
            put(&mut attributes, "version", &r.version);
            put(&mut attributes, "resource", &r.resource);
            put(
                &mut attributes,
                "subresource",
                r.subresource.as_deref().unwrap_or_default(),
            );
            put(&mut attributes, "name", info.name());
            spec.insert("resourceAttributes".into(), Value::Object(attributes));
        }
        None => {
            let mut attributes = Map::new();
            put(&mut attributes, "path", &info.path);
            put(&mut attributes, "verb", &info.verb);
            spec.insert("nonResourceAttributes".into(), Value::Object(attributes));
        }
    }
    put(&mut spec, "user", &user.name);
    if !user.groups.is_empty() {
        spec.insert("groups".into(), json!(user.groups));
    }
    if !user.extra.is_empty() {
        spec.insert("extra".into(), json!(user.extra));
    }
    put(&mut spec, "uid", &user.uid);
    Value::Object(spec)
}

fn put(map: &mut Map<String, Value>, key: &str, value: &str) {
    if !value.is_empty() {
        map.insert(key.into(), Value::from(value));
    }
}

/// The request body: a SubjectAccessReview of `version` at
/// `authorization.<domain>` around the v1 `spec`.
#[must_use]
pub fn body(spec: &Value, version: ReviewVersion, group: &str) -> Value {
    let mut spec = spec.clone();
    if version == ReviewVersion::V1beta1
        && let Some(fields) = spec.as_object_mut()
        && let Some(groups) = fields.remove("groups")
    {
        fields.insert("group".into(), groups);
    }
    json!({
        "apiVersion": format!("{group}/{}", version.as_str()),
        "kind": "SubjectAccessReview",
        "metadata": {"creationTimestamp": null},
        "spec": spec,
        "status": {"allowed": false}
    })
}

/// The webhook's verdict, as cached.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Status {
    pub allowed: bool,
    pub denied: bool,
    pub reason: String,
    pub evaluation_error: String,
}

impl Status {
    /// Denied wins over allowed (a webhook saying both is refused, as
    /// Kubernetes refuses it); neither is no opinion, with the reason.
    #[must_use]
    pub fn decision(&self) -> Decision {
        if self.denied {
            Decision::Deny(self.reason.clone())
        } else if self.allowed {
            Decision::Allow
        } else {
            Decision::NoOpinion(self.reason.clone())
        }
    }
}

/// Reads a webhook's answer; anything that is not a SubjectAccessReview
/// with a well-typed status is malformed (the error says how).
pub fn read_answer(bytes: &[u8], group: &str) -> Result<Status, String> {
    let doc: Value =
        serde_json::from_slice(bytes).map_err(|e| format!("the answer is not JSON: {e}"))?;
    let top = doc.as_object().ok_or("the answer is not a JSON object")?;
    if let Some(kind) = top.get("kind").and_then(Value::as_str)
        && kind != "SubjectAccessReview"
    {
        return Err(format!(
            "the answer is a {kind:?}, not a SubjectAccessReview"
        ));
    }
    if let Some(api_version) = top.get("apiVersion").and_then(Value::as_str) {
        let known = ["v1", "v1beta1"].map(|v| format!("{group}/{v}"));
        if !known.iter().any(|k| k == api_version) {
            return Err(format!(
                "the answer's apiVersion {api_version:?} is not {group}/v1 or v1beta1"
            ));
        }
    }
    let status = match top.get("status") {
        None | Some(Value::Null) => return Ok(Status::default()),
        Some(Value::Object(status)) => status,
        Some(_) => return Err("the answer's status is not an object".into()),
    };
    Ok(Status {
        allowed: flag(status, "allowed")?,
        denied: flag(status, "denied")?,
        reason: text(status, "reason")?,
        evaluation_error: text(status, "evaluationError")?,
    })
}

fn flag(status: &Map<String, Value>, key: &str) -> Result<bool, String> {
    match status.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(format!("the answer's status.{key} is not a boolean")),
    }
}

fn text(status: &Map<String, Value>, key: &str) -> Result<String, String> {
    match status.get(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(format!("the answer's status.{key} is not a string")),
    }
}
