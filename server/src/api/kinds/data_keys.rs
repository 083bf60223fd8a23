//! Rules ConfigMaps and Secrets share: what a data key may be
//! (Kubernetes' `IsConfigMapKey`), the 1 MiB limit on their data, and what
//! `immutable: true` freezes.

use serde_json::{Map, Value};

use crate::api::schema::{ErrorType, FieldError};

/// Most bytes the values of one ConfigMap or Secret may hold together.
pub const MAX_TOTAL_BYTES: usize = 1024 * 1024;

/// The longest key (a DNS-1123 subdomain's limit).
const MAX_KEY_LENGTH: usize = 253;

const KEY_FORMAT: &str = "[-._a-zA-Z0-9]+";

const IMMUTABLE: &str = "field is immutable when `immutable` is set";

/// Why `key` cannot name a data entry (empty when it can), worded as Kubernetes words it.
#[must_use]
pub fn key_problems(key: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if key.len() > MAX_KEY_LENGTH {
        problems.push(format!("must be no more than {MAX_KEY_LENGTH} characters"));
    }
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_');
    if key.is_empty() || !key.chars().all(allowed) {
        problems.push(format!(
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.' \
             (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '{KEY_FORMAT}')"
        ));
    }
    // Keys become file names in volumes; these would escape the directory.
    if key == "." {
        problems.push("must not be '.'".into());
    } else if key == ".." {
        problems.push("must not be '..'".into());
    } else if key.starts_with("..") {
        problems.push("must not start with '..'".into());
    }
    problems
}

/// Invalid-key errors for every key of the map `field` of `obj`.
pub fn check_keys(obj: &Value, field: &str, errors: &mut Vec<FieldError>) {
    let Some(map) = obj.get(field).and_then(Value::as_object) else {
        return;
    };
    for key in map.keys() {
        for problem in key_problems(key) {
            errors.push(FieldError::invalid(
                format!("{field}[{key}]"),
                Value::from(key.as_str()),
                problem,
            ));
        }
    }
}

/// How many bytes a base64 string decodes to.
#[must_use]
pub fn decoded_len(encoded: &str) -> usize {
    let body = encoded.bytes().filter(|c| *c != b'\r' && *c != b'\n');
    let (mut len, mut padding) = (0usize, 0usize);
    for c in body {
        len += 1;
        if c == b'=' {
            padding += 1;
        }
    }
    (len / 4 * 3).saturating_sub(padding)
}

/// Bytes held by a map's values: plain strings as they are, `byte` fields decoded.
#[must_use]
pub fn value_bytes(map: Option<&Map<String, Value>>, base64: bool) -> usize {
    map.into_iter()
        .flat_map(Map::values)
        .filter_map(Value::as_str)
        .map(|v| if base64 { decoded_len(v) } else { v.len() })
        .sum()
}

/// The error for data beyond `MAX_TOTAL_BYTES`, at `field`.
#[must_use]
pub fn too_long(field: &str) -> FieldError {
    FieldError {
        error_type: ErrorType::TooLong,
        field: field.into(),
        value: None,
        detail: format!("may not be more than {MAX_TOTAL_BYTES} bytes"),
    }
}

/// Once stored with `immutable: true`, neither `immutable` nor these data
/// fields may change.
pub fn check_frozen(new: &Value, old: &Value, data_fields: &[&str], errors: &mut Vec<FieldError>) {
    if !super::checks::is_true(old, "immutable") {
        return;
    }
    if !super::checks::is_true(new, "immutable") {
        errors.push(FieldError::forbidden("immutable", IMMUTABLE));
    }
    for field in data_fields {
        if !same_map(new.get(*field), old.get(*field)) {
            errors.push(FieldError::forbidden(*field, IMMUTABLE));
        }
    }
}

/// Map equality where absent, null and `{}` are one (Go's nil and empty map
/// compare unequal, but neither survives a round trip through JSON).
fn same_map(a: Option<&Value>, b: Option<&Value>) -> bool {
    let empty = |v: Option<&Value>| {
        v.is_none_or(|v| v.is_null() || v.as_object().is_some_and(Map::is_empty))
    };
    (empty(a) && empty(b)) || a == b
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn keys_follow_kubernetes() {
        for ok in [
            "a",
            "key.name",
            "KEY_NAME",
            "key-name",
            ".hidden",
            "a..b",
            &"k".repeat(253),
        ] {
            assert_eq!(key_problems(ok), Vec::<String>::new(), "{ok}");
        }
        assert_eq!(key_problems("a b").len(), 1);
        assert!(key_problems("a/b")[0].starts_with("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"));
        assert_eq!(key_problems(""), [key_problems("!")[0].clone()]);
        assert_eq!(key_problems("."), ["must not be '.'"]);
        assert_eq!(key_problems(".."), ["must not be '..'"]);
        assert_eq!(key_problems("..x"), ["must not start with '..'"]);
        assert_eq!(
            key_problems(&"k".repeat(254)),
            ["must be no more than 253 characters"]
        );
    }

    #[test]
    fn key_errors_name_the_entry() {
        let mut errors = Vec::new();
        check_keys(
            &json!({"data": {"ok": "1", "not ok": "2"}}),
            "data",
            &mut errors,
        );
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0]
                .to_string()
                .starts_with("data[not ok]: Invalid value: \"not ok\": a valid config key")
        );
    }

    #[test]
    fn decoded_lengths_count_padding() {
        assert_eq!(decoded_len(""), 0);
        assert_eq!(decoded_len("YQ=="), 1);
        assert_eq!(decoded_len("YWI="), 2);
        assert_eq!(decoded_len("YWJj"), 3);
        assert_eq!(decoded_len("YWJj\nZGVm"), 6);
    }

    #[test]
    fn immutable_freezes_data_and_itself() {
        let old = json!({"immutable": true, "data": {"a": "1"}});
        let mut errors = Vec::new();
        check_frozen(
            &json!({"immutable": true, "data": {"a": "1"}}),
            &old,
            &["data", "binaryData"],
            &mut errors,
        );
        assert!(errors.is_empty());
        check_frozen(
            &json!({"data": {"a": "2"}, "binaryData": {}}),
            &old,
            &["data", "binaryData"],
            &mut errors,
        );
        let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "immutable: Forbidden: field is immutable when `immutable` is set",
                "data: Forbidden: field is immutable when `immutable` is set",
            ]
        );
        errors.clear();
        check_frozen(
            &json!({"data": {"a": "2"}}),
            &json!({"immutable": false}),
            &["data"],
            &mut errors,
        );
        assert!(errors.is_empty());
    }
}
