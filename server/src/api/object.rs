//! Accessors for objects held as JSON values (`metadata.*` and friends).

use serde_json::{Map, Value};

/// `obj.metadata`, created empty if missing or not an object.
pub fn metadata_mut(obj: &mut Value) -> &mut Map<String, Value> {
    if !obj.get("metadata").is_some_and(Value::is_object) {
        obj["metadata"] = Value::Object(Map::new());
    }
    // `obj["metadata"]` would allocate the key on every call.
    obj.get_mut("metadata")
        .and_then(Value::as_object_mut)
        .expect("just ensured")
}

/// A string field of `metadata`.
#[must_use]
pub fn meta_str<'a>(obj: &'a Value, field: &str) -> Option<&'a str> {
    obj.get("metadata")?.get(field)?.as_str()
}

#[must_use]
pub fn name(obj: &Value) -> &str {
    meta_str(obj, "name").unwrap_or_default()
}

#[must_use]
pub fn namespace(obj: &Value) -> Option<&str> {
    meta_str(obj, "namespace")
}

/// Whether the object has a non-empty `metadata.finalizers`.
#[must_use]
pub fn has_finalizers(obj: &Value) -> bool {
    obj.get("metadata")
        .and_then(|m| m.get("finalizers"))
        .and_then(Value::as_array)
        .is_some_and(|f| !f.is_empty())
}

/// Whether `metadata.deletionTimestamp` is set.
#[must_use]
pub fn is_terminating(obj: &Value) -> bool {
    obj.get("metadata")
        .and_then(|m| m.get("deletionTimestamp"))
        .is_some_and(|t| !t.is_null())
}

/// Whether a stored object carries `metadata.deletionTimestamp`, read
/// without building a `Value`: every namespaced create asks it of its
/// namespace, and parsing the whole namespace cost more than the check.
pub fn stored_is_terminating(stored: &[u8]) -> Result<bool, serde_json::Error> {
    // Stored objects are serde_json's output, which never escapes a letter:
    // without these bytes there is no such field.
    if memchr::memmem::find(stored, b"\"deletionTimestamp\"").is_none() {
        return Ok(false);
    }
    #[derive(serde::Deserialize)]
    struct Stored {
        #[serde(default)]
        metadata: Meta,
    }
    #[derive(serde::Deserialize, Default)]
    struct Meta {
        #[serde(default, rename = "deletionTimestamp")]
        deletion_timestamp: Option<serde::de::IgnoredAny>,
    }
    let stored: Stored = serde_json::from_slice(stored)?;
    Ok(stored.metadata.deletion_timestamp.is_some())
}

/// `metadata.uid`, empty when missing.
#[must_use]
pub fn uid(obj: &Value) -> &str {
    meta_str(obj, "uid").unwrap_or_default()
}

/// `metadata.finalizers` (non-string entries skipped).
#[must_use]
pub fn finalizers(obj: &Value) -> Vec<String> {
    obj.get("metadata")
        .and_then(|m| m.get("finalizers"))
        .and_then(Value::as_array)
        .map(|f| {
            f.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `metadata.finalizers` holds `finalizer`.
#[must_use]
pub fn has_finalizer(obj: &Value, finalizer: &str) -> bool {
    obj.get("metadata")
        .and_then(|m| m.get("finalizers"))
        .and_then(Value::as_array)
        .is_some_and(|f| f.iter().any(|x| x.as_str() == Some(finalizer)))
}

/// Replaces `metadata.finalizers` (an empty list removes the field, as
/// Kubernetes omits empty lists).
pub fn set_finalizers(obj: &mut Value, finalizers: Vec<String>) {
    let meta = metadata_mut(obj);
    if finalizers.is_empty() {
        meta.remove("finalizers");
    } else {
        meta.insert("finalizers".into(), Value::from(finalizers));
    }
}

/// `metadata.deletionGracePeriodSeconds`.
#[must_use]
pub fn deletion_grace_period_seconds(obj: &Value) -> Option<i64> {
    obj.get("metadata")?
        .get("deletionGracePeriodSeconds")?
        .as_i64()
}

/// `metadata.ownerReferences` (empty when missing).
#[must_use]
pub fn owner_references(obj: &Value) -> &[Value] {
    obj.get("metadata")
        .and_then(|m| m.get("ownerReferences"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The string at a JSON pointer (`/spec/group`), `""` when absent.
#[must_use]
pub fn str_at<'a>(obj: &'a Value, pointer: &str) -> &'a str {
    obj.pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The strings of the list at a JSON pointer (non-strings skipped).
#[must_use]
pub fn strings_at(obj: &Value, pointer: &str) -> Vec<String> {
    obj.pointer(pointer)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// A written object's name: the URL's when the body names none; a body
/// naming another object is a bad request.
pub fn name_from_url(obj: &mut Value, name: &str) -> Result<(), crate::api::error::ApiError> {
    match meta_str(obj, "name") {
        Some(n) if n != name => Err(crate::api::error::ApiError::BadRequest(format!(
            "the name of the object ({n}) does not match the name on the URL ({name})"
        ))),
        Some(_) => Ok(()),
        None => {
            metadata_mut(obj).insert("name".into(), Value::String(name.into()));
            Ok(())
        }
    }
}

/// Kubernetes' `checkName`: a body must name the object of its URL, and
/// may name the URL's namespace only.
pub fn check_url_names(
    obj: &Value,
    name: &str,
    ns: Option<&str>,
) -> Result<(), crate::api::error::ApiError> {
    let named = self::name(obj);
    if named != name {
        return Err(crate::api::error::ApiError::BadRequest(format!(
            "the name of the object ({named}) does not match the name on the URL ({name})"
        )));
    }
    check_url_namespace(obj, ns)
}

/// A body's `metadata.namespace`, when set, must be the URL's.
pub fn check_url_namespace(
    obj: &Value,
    ns: Option<&str>,
) -> Result<(), crate::api::error::ApiError> {
    match (meta_str(obj, "namespace").filter(|n| !n.is_empty()), ns) {
        (Some(given), Some(url)) if given != url => {
            Err(crate::api::error::ApiError::BadRequest(format!(
                "the namespace of the object ({given}) does not match the namespace on the URL ({url})"
            )))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_termination_reads_only_the_deletion_timestamp() {
        let live = br#"{"kind":"Namespace","metadata":{"name":"a","labels":{"x":"y"}},"status":{"phase":"Active"}}"#;
        let null = br#"{"metadata":{"name":"a","deletionTimestamp":null}}"#;
        let going = br#"{"metadata":{"name":"a","deletionTimestamp":"2026-11-21T10:00:00Z"},"spec":{"finalizers":["kubernetes"]}}"#;
        assert!(!stored_is_terminating(live).unwrap());
        assert!(!stored_is_terminating(null).unwrap());
        assert!(stored_is_terminating(going).unwrap());
        assert!(!stored_is_terminating(b"{}").unwrap());
        let elsewhere = br#"{"metadata":{"name":"a","labels":{"deletionTimestamp":"x"}}}"#;
        assert!(!stored_is_terminating(elsewhere).unwrap());
        assert!(stored_is_terminating(b"{\"metadata\":{\"deletionTimestamp\":").is_err());
    }
}
