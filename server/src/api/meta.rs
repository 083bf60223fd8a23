//! ObjectMeta rules shared by every kind: names, namespaces, system fields.

use std::borrow::Cow;
use std::time::SystemTime;

use serde_json::{Map, Value, json};

use crate::api::error::Cause;
use crate::api::kind::{KindSpec, NameRule};
use crate::api::object::metadata_mut;
use crate::util::{random, time};

pub fn is_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

/// RFC 1123 subdomain.
#[must_use]
pub fn is_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(is_label)
}

/// Checks a name against a rule; `None` when valid, else the Kubernetes text.
#[must_use]
pub fn name_problem(name: &str, rule: NameRule) -> Option<String> {
    match rule {
        NameRule::Label if !is_label(name) => Some(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')".into(),
        ),
        NameRule::Subdomain if !is_subdomain(name) => Some(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".into(),
        ),
        NameRule::PathSegment => path_segment_problem(name),
        _ => None,
    }
}

/// Why a name cannot be a path segment, in Kubernetes' words.
fn path_segment_problem(name: &str) -> Option<String> {
    match name {
        "." | ".." => Some(format!("may not be '{name}'")),
        _ => ['/', '%']
            .into_iter()
            .find(|c| name.contains(*c))
            .map(|c| format!("may not contain '{c}'")),
    }
}

/// Field causes for `metadata` of an object about to be stored.
#[must_use]
pub fn validate_meta(kind: &KindSpec, obj: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let meta = obj.get("metadata").and_then(Value::as_object);
    match meta.and_then(|m| m.get("name")).and_then(Value::as_str) {
        None | Some("") => causes.push(Cause::required("metadata.name")),
        Some(n) => {
            if let Some(p) = name_problem(n, kind.strategy.name_rule()) {
                causes.push(Cause::invalid("metadata.name", n, &p));
            }
        }
    }
    let ns = meta
        .and_then(|m| m.get("namespace"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    if kind.namespaced && ns.is_empty() {
        causes.push(Cause::required("metadata.namespace"));
    }
    if !kind.namespaced && !ns.is_empty() {
        causes.push(Cause::forbidden(
            "metadata.namespace",
            "not allowed on this type",
        ));
    }
    causes
}

/// Sets the fields the server owns on create: name from generateName, uid,
/// creationTimestamp, generation; clears what a client may not set.
pub fn prepare_create(obj: &mut Value, now: SystemTime) {
    let meta = metadata_mut(obj);
    let needs_name = meta
        .get("name")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty);
    if needs_name
        && let Some(prefix) = meta
            .get("generateName")
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty())
    {
        let name = random::generated_name(prefix);
        meta.insert("name".into(), json!(name));
    }
    meta.insert("uid".into(), json!(random::uuid_v4()));
    meta.insert("creationTimestamp".into(), json!(time::rfc3339(now)));
    meta.insert("generation".into(), json!(1));
    for field in [
        "resourceVersion",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "selfLink",
    ] {
        meta.remove(field);
    }
}

/// Carries the server-owned fields of the stored object into an update.
pub fn preserve_on_update(new: &mut Value, old: &Value) {
    let old_meta = old
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let meta = metadata_mut(new);
    for field in [
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "generation",
        "namespace",
    ] {
        match old_meta.get(field) {
            Some(v) => {
                meta.insert(field.into(), v.clone());
            }
            None => {
                meta.remove(field);
            }
        }
    }
    meta.remove("resourceVersion");
    meta.remove("selfLink");
}

/// The object with `kind`, `apiVersion` and `metadata` first, as stored and
/// served (clients read them first; stored bytes stay predictable).
#[must_use]
pub fn canonical(kind: &KindSpec, obj: Value) -> Value {
    let Value::Object(mut fields) = obj else {
        return obj;
    };
    // Reordered in place, keeping the client's keys and values where they
    // already say the right thing: every write comes through here.
    place(&mut fields, 0, "kind", Cow::Borrowed(&kind.kind));
    place(&mut fields, 1, "apiVersion", Cow::Owned(kind.api_version()));
    if let Some((key, meta)) = fields.shift_remove_entry("metadata") {
        fields.shift_insert(2, key, meta);
    }
    Value::Object(fields)
}

/// Puts `key: value` at position `at` of `fields`, moving what is there.
fn place(fields: &mut Map<String, Value>, at: usize, key: &str, value: Cow<'_, str>) {
    let (key, kept) = match fields.shift_remove_entry(key) {
        Some((k, v)) => (k, Some(v).filter(|v| v.as_str() == Some(&*value))),
        None => (key.to_owned(), None),
    };
    let value = kept.unwrap_or_else(|| Value::String(value.into_owned()));
    fields.shift_insert(at, key, value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(is_subdomain("a.b-c.d1"));
        assert!(!is_subdomain("A"));
        assert!(!is_subdomain("-a"));
        assert!(!is_subdomain("a..b"));
        assert!(name_problem("kube-system", NameRule::Label).is_none());
        assert!(name_problem("a.b", NameRule::Label).is_some());
        assert!(name_problem("system:discovery", NameRule::PathSegment).is_none());
        assert_eq!(
            name_problem("a/b", NameRule::PathSegment).as_deref(),
            Some("may not contain '/'")
        );
        assert_eq!(
            name_problem("..", NameRule::PathSegment).as_deref(),
            Some("may not be '..'")
        );
    }

    #[test]
    fn canonical_puts_kind_api_version_and_metadata_first() {
        let no_fields = crate::api::schema::Schema::resource(Vec::<(String, _)>::new());
        let kind = KindSpec::new("", "v1", "Event", "events", true, no_fields);
        let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
        let out = canonical(
            &kind,
            json!({"reason": "r", "metadata": {"name": "a"}, "apiVersion": "v2", "type": "t"}),
        );
        assert_eq!(
            keys(&out),
            ["kind", "apiVersion", "metadata", "reason", "type"]
        );
        assert_eq!(out["kind"], "Event");
        assert_eq!(out["apiVersion"], "v1", "a wrong value is replaced");
        let out = canonical(&kind, json!({"type": "t", "kind": "Event"}));
        assert_eq!(keys(&out), ["kind", "apiVersion", "type"]);
        assert_eq!(canonical(&kind, json!("x")), json!("x"));
    }
}
