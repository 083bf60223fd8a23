//! One step of a field path (`f:`, `k:`, `v:`, `i:`) and the path text
//! Kubernetes prints in apply conflicts (`.spec.containers[name="a"].image`).

use serde_json::Value;

/// A step into a value. The variant order is the sibling order of FieldsV1:
/// field names, then keys, then values, then indices.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathElement {
    /// A field of an object (`f:name`).
    Field(String),
    /// An item of a map list, by its key fields: compact JSON, keys sorted
    /// (`k:{"name":"a"}`).
    Key(String),
    /// An item of a set list, by its value as JSON (`v:"a"`).
    Value(String),
    /// An item of a list without identity, by position (`i:3`).
    Index(usize),
}

impl PathElement {
    #[must_use]
    pub fn field(name: &str) -> PathElement {
        PathElement::Field(name.to_owned())
    }

    /// The FieldsV1 key of this step.
    #[must_use]
    pub fn fields_v1_key(&self) -> String {
        // Every write encodes a key per owned field: `format!` cost more.
        let prefixed = |prefix: &str, text: &str| {
            let mut key = String::with_capacity(prefix.len() + text.len());
            key.push_str(prefix);
            key.push_str(text);
            key
        };
        match self {
            PathElement::Field(name) => prefixed("f:", name),
            PathElement::Key(json) => prefixed("k:", json),
            PathElement::Value(json) => prefixed("v:", json),
            PathElement::Index(i) => format!("i:{i}"),
        }
    }

    /// Reads a FieldsV1 key (other than `.`).
    pub fn parse_fields_v1_key(key: &str) -> Result<PathElement, String> {
        let (prefix, rest) = key
            .split_once(':')
            .ok_or_else(|| format!("invalid FieldsV1 key {key:?}"))?;
        match prefix {
            "f" => Ok(PathElement::Field(rest.to_owned())),
            // Kubernetes writes keys compact and sorted; only other
            // spellings need reading and rewriting.
            "k" if !rest.contains([' ', '\n', '\t', '\r', ',']) => {
                Ok(PathElement::Key(rest.to_owned()))
            }
            "k" => {
                let parsed: Value = serde_json::from_str(rest)
                    .map_err(|e| format!("invalid key in FieldsV1 {key:?}: {e}"))?;
                let Value::Object(fields) = parsed else {
                    return Err(format!("invalid key in FieldsV1 {key:?}: not an object"));
                };
                Ok(PathElement::Key(key_json(
                    fields.iter().map(|(k, v)| (k.as_str(), v)),
                )))
            }
            "v" => {
                let parsed: Value = serde_json::from_str(rest)
                    .map_err(|e| format!("invalid value in FieldsV1 {key:?}: {e}"))?;
                Ok(PathElement::Value(parsed.to_string()))
            }
            "i" => rest
                .parse()
                .map(PathElement::Index)
                .map_err(|_| format!("invalid index in FieldsV1 {key:?}")),
            _ => Err(format!("invalid FieldsV1 key {key:?}")),
        }
    }

    /// The text of this step in a conflict message.
    fn write_text(&self, out: &mut String) {
        match self {
            PathElement::Field(name) => {
                out.push('.');
                out.push_str(name);
            }
            PathElement::Key(json) => {
                out.push('[');
                if let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(json) {
                    let parts: Vec<String> =
                        fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    out.push_str(&parts.join(","));
                }
                out.push(']');
            }
            PathElement::Value(json) => {
                out.push_str("[=");
                out.push_str(json);
                out.push(']');
            }
            PathElement::Index(i) => {
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
        }
    }
}

/// The compact JSON of key fields, sorted by name.
pub fn key_json<'v>(fields: impl Iterator<Item = (&'v str, &'v Value)>) -> String {
    let mut sorted: Vec<(&str, &Value)> = fields.collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let mut out = String::from("{");
    for (i, (k, v)) in sorted.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&Value::from(k).to_string());
        out.push(':');
        out.push_str(&v.to_string());
    }
    out.push('}');
    out
}

/// A whole path as Kubernetes prints it.
#[must_use]
pub fn path_text(path: &[PathElement]) -> String {
    let mut out = String::new();
    for step in path {
        step.write_text(&mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_compact_json_and_print_as_kubernetes_does() {
        let item = json!({"protocol": "TCP", "containerPort": 80});
        let key = key_json(
            item.as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.as_str(), v)),
        );
        assert_eq!(key, r#"{"containerPort":80,"protocol":"TCP"}"#);
        let path = [
            PathElement::field("spec"),
            PathElement::field("containers"),
            PathElement::Key(r#"{"name":"nginx"}"#.into()),
            PathElement::field("image"),
        ];
        assert_eq!(path_text(&path), r#".spec.containers[name="nginx"].image"#);
        let set = [
            PathElement::field("finalizers"),
            PathElement::Value("\"a\"".into()),
        ];
        assert_eq!(path_text(&set), r#".finalizers[="a"]"#);
        assert_eq!(
            path_text(&[PathElement::field("args"), PathElement::Index(3)]),
            ".args[3]"
        );
        assert_eq!(
            PathElement::parse_fields_v1_key(r#"k:{"protocol":"TCP","containerPort":80}"#),
            Ok(PathElement::Key(key))
        );
        assert!(PathElement::parse_fields_v1_key("x:y").is_err());
        assert!(PathElement::Field("z".into()) < PathElement::Key("{}".into()));
        assert!(PathElement::Value("1".into()) < PathElement::Index(0));
    }
}
