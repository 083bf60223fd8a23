//! Recognising a stored value as a Kubernetes object: a JSON object with a
//! string `kind` and a `metadata` object naming it.

use serde_json::Value;

/// What identifies a stored Kubernetes object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Object {
    pub api_version: Option<String>,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
}

impl Object {
    /// `namespace/name`, or `name` for a cluster-scoped object.
    pub fn full_name(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{ns}/{}", self.name),
            None => self.name.clone(),
        }
    }
}

/// The object `value` holds, if it is one.
pub fn decode(value: &[u8]) -> Option<Object> {
    let start = value.iter().position(|b| !b.is_ascii_whitespace())?;
    if value[start] != b'{' {
        return None;
    }
    let v: Value = serde_json::from_slice(value).ok()?;
    let kind = v.get("kind")?.as_str()?.to_string();
    let metadata = v.get("metadata")?.as_object()?;
    let text = |field: &str| {
        metadata
            .get(field)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    Some(Object {
        api_version: v
            .get("apiVersion")
            .and_then(Value::as_str)
            .map(str::to_string),
        kind,
        namespace: text("namespace"),
        name: text("name").or_else(|| text("generateName"))?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubernetes_objects_and_everything_else() {
        let pod =
            br#" {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"prod"}}"#;
        let o = decode(pod).expect("a pod");
        assert_eq!(
            (o.kind.as_str(), o.full_name()),
            ("Pod", "prod/web".to_string())
        );
        let node = br#"{"kind":"Node","metadata":{"name":"n1"}}"#;
        assert_eq!(decode(node).expect("a node").full_name(), "n1");
        for not in [
            &b"plain text"[..],
            br#"{"kind":"Pod"}"#,
            br#"{"metadata":{"name":"x"}}"#,
            br#"{"kind":3,"metadata":{"name":"x"}}"#,
            br#"{"kind":"Pod","metadata":{"name":"x""#,
            b"",
            &[0xff, 0x00],
        ] {
            assert_eq!(decode(not), None, "{}", not.escape_ascii());
        }
    }
}
