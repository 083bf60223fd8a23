//! Request and response bodies as an event embeds them: compact JSON on
//! one line, taken from the bytes in hand (whitespace outside strings
//! dropped, nothing re-encoded) unless managed fields must be left out;
//! YAML bodies (apply) are converted once.

use serde_json::Value;

/// `bytes` as one line of compact JSON, `None` when they are not JSON
/// (nor YAML) text. With `omit_managed_fields`, `metadata.managedFields`
/// of the object (or of each item of a list) is left out.
#[must_use]
pub fn compact(bytes: &[u8], omit_managed_fields: bool) -> Option<Vec<u8>> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace())?;
    if !matches!(first, b'{' | b'[') {
        let value = crate::api::decode::parse_yaml(bytes).ok()?.value;
        return encode(value, omit_managed_fields);
    }
    if omit_managed_fields {
        return encode(serde_json::from_slice(bytes).ok()?, true);
    }
    if !bytes.iter().any(u8::is_ascii_whitespace) {
        return Some(bytes.to_vec());
    }
    Some(strip_whitespace(bytes))
}

/// A decoded value (a body that was neither JSON nor YAML text) as compact JSON.
#[must_use]
pub fn compact_value(value: &Value, omit_managed_fields: bool) -> Option<Vec<u8>> {
    encode(value.clone(), omit_managed_fields)
}

fn encode(mut value: Value, omit_managed_fields: bool) -> Option<Vec<u8>> {
    if omit_managed_fields {
        drop_managed_fields(&mut value);
        if let Some(Value::Array(items)) = value.get_mut("items") {
            items.iter_mut().for_each(drop_managed_fields);
        }
    }
    serde_json::to_vec(&value).ok()
}

fn drop_managed_fields(object: &mut Value) {
    if let Some(Value::Object(meta)) = object.get_mut("metadata") {
        meta.remove("managedFields");
    }
}

/// Whitespace outside strings removed; the JSON is otherwise kept byte for byte.
fn strip_whitespace(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut in_string = false;
    let mut escaped = false;
    for &b in bytes {
        if in_string {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
            out.push(b);
        } else if !b.is_ascii_whitespace() {
            out.push(b);
        }
    }
    out
}

/// Where the bodies of a resource carry bearer tokens, which an event
/// never records (kube's policy decides; cairn never writes them):
/// TokenReview's `spec.token` and TokenRequest's `status.token`.
fn token_pointer(resource: &str, subresource: &str) -> Option<&'static str> {
    match (resource, subresource) {
        ("tokenreviews", "") => Some("/spec"),
        ("serviceaccounts", "token") => Some("/status"),
        _ => None,
    }
}

/// `bytes` (compact JSON of `resource`/`subresource`) with its bearer
/// token removed, if that kind carries one.
#[must_use]
pub fn without_tokens(resource: &str, subresource: &str, bytes: Vec<u8>) -> Vec<u8> {
    let Some(pointer) = token_pointer(resource, subresource) else {
        return bytes;
    };
    let Ok(mut value) = serde_json::from_slice::<Value>(&bytes) else {
        return bytes;
    };
    if let Some(Value::Object(holder)) = value.pointer_mut(pointer) {
        holder.remove("token");
    }
    serde_json::to_vec(&value).unwrap_or(bytes)
}

/// The identifying metadata of a request's object, for the event's objectRef.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Identity {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub resource_version: String,
}

/// The part of a JSON body the objectRef needs: the rest is skipped
/// without being built.
#[derive(serde::Deserialize)]
struct Head {
    #[serde(default)]
    metadata: HeadMeta,
}

#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct HeadMeta {
    namespace: Option<String>,
    name: Option<String>,
    uid: Option<String>,
    resource_version: Option<String>,
}

/// Reads `metadata` of a JSON (or YAML) body; empty when it has none.
#[must_use]
pub fn identity(bytes: &[u8]) -> Identity {
    if let Ok(Head { metadata: m }) = serde_json::from_slice::<Head>(bytes) {
        return Identity {
            namespace: m.namespace.unwrap_or_default(),
            name: m.name.unwrap_or_default(),
            uid: m.uid.unwrap_or_default(),
            resource_version: m.resource_version.unwrap_or_default(),
        };
    }
    crate::api::decode::parse_yaml(bytes)
        .map(|d| identity_of(&d.value))
        .unwrap_or_default()
}

/// Reads `metadata` of a decoded object.
#[must_use]
pub fn identity_of(value: &Value) -> Identity {
    let text = |key: &str| {
        value
            .pointer(&format!("/metadata/{key}"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    Identity {
        namespace: text("namespace"),
        name: text("name"),
        uid: text("uid"),
        resource_version: text("resourceVersion"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_json_becomes_one_line_keeping_strings() {
        let body = b"{\n  \"a\": \"x y\\\" z\",\n  \"b\": [1, 2]\n}\n";
        let out = compact(body, false).expect("json");
        assert_eq!(out, br#"{"a":"x y\" z","b":[1,2]}"#);
    }

    #[test]
    fn managed_fields_are_left_out_when_asked() {
        let body = br#"{"metadata":{"name":"a","managedFields":[{"manager":"m"}]},"items":[{"metadata":{"managedFields":[]}}]}"#;
        let kept = compact(body, false).expect("json");
        assert_eq!(kept, body.to_vec(), "compact bodies are kept as they are");
        let out: Value = serde_json::from_slice(&compact(body, true).expect("json")).expect("json");
        assert_eq!(
            out,
            serde_json::json!({"metadata":{"name":"a"},"items":[{"metadata":{}}]})
        );
    }

    #[test]
    fn bearer_tokens_are_never_recorded() {
        let review =
            br#"{"kind":"TokenReview","spec":{"token":"secret","audiences":["a"]}}"#.to_vec();
        let out = without_tokens("tokenreviews", "", review);
        assert_eq!(out, br#"{"kind":"TokenReview","spec":{"audiences":["a"]}}"#);
        let issued =
            br#"{"kind":"TokenRequest","status":{"token":"jwt","expirationTimestamp":"t"}}"#
                .to_vec();
        let out = without_tokens("serviceaccounts", "token", issued);
        assert_eq!(
            out,
            br#"{"kind":"TokenRequest","status":{"expirationTimestamp":"t"}}"#
        );
        let cm = br#"{"data":{"token":"kept"}}"#.to_vec();
        assert_eq!(without_tokens("configmaps", "", cm.clone()), cm);
    }

    #[test]
    fn yaml_bodies_are_converted_and_binary_is_not_embedded() {
        let out = compact(b"metadata:\n  name: cm\n", false).expect("yaml");
        assert_eq!(out, br#"{"metadata":{"name":"cm"}}"#);
        assert_eq!(compact(b"k8s\x00\x0a\x02", false), None);
        let id = identity(b"metadata:\n  name: cm\n  namespace: ns\n");
        assert_eq!((id.name.as_str(), id.namespace.as_str()), ("cm", "ns"));
        let id = identity(
            br#"{"data":{"x":[1]},"metadata":{"name":"a","resourceVersion":"7","uid":"u"}}"#,
        );
        assert_eq!(
            (
                id.name.as_str(),
                id.resource_version.as_str(),
                id.uid.as_str()
            ),
            ("a", "7", "u")
        );
        assert_eq!(
            identity(br#"{"kind":"DeleteOptions"}"#),
            Identity::default()
        );
    }
}
