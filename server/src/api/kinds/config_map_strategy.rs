//! ConfigMap rules: valid and distinct keys in `data` and `binaryData`, at
//! most 1 MiB of values, and nothing of the data changing once `immutable`.

use serde_json::Value;

use super::checks::{causes, object_at};
use super::data_keys::{self, MAX_TOTAL_BYTES};
use crate::api::error::Cause;
use crate::api::kind::Strategy;
use crate::api::schema::FieldError;

pub struct ConfigMapStrategy;

fn content_errors(obj: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    data_keys::check_keys(obj, "data", &mut errors);
    let data = object_at(obj, "/data");
    let binary = object_at(obj, "/binaryData");
    // A key in both would name one file twice in a volume.
    if let (Some(data), Some(binary)) = (data, binary) {
        for key in data.keys().filter(|k| binary.contains_key(*k)) {
            errors.push(FieldError::invalid(
                format!("data[{key}]"),
                Value::from(key.as_str()),
                "duplicate of key present in binaryData",
            ));
        }
    }
    data_keys::check_keys(obj, "binaryData", &mut errors);
    if data_keys::value_bytes(data, false) + data_keys::value_bytes(binary, true) > MAX_TOTAL_BYTES
    {
        errors.push(data_keys::too_long(""));
    }
    errors
}

impl Strategy for ConfigMapStrategy {
    fn validate(&self, obj: &Value) -> Vec<Cause> {
        causes(&content_errors(obj))
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<Cause> {
        let mut errors = Vec::new();
        data_keys::check_frozen(new, old, &["data", "binaryData"], &mut errors);
        errors.extend(content_errors(new));
        causes(&errors)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::api::kinds::cause_lines as lines;

    #[test]
    fn valid_configmaps_pass() {
        let cm = json!({"metadata": {"name": "a"}, "data": {"k.conf": "v"}, "binaryData": {"bin": "AAE="}});
        assert!(ConfigMapStrategy.validate(&cm).is_empty());
        assert!(
            ConfigMapStrategy
                .validate(&json!({"metadata": {"name": "a"}}))
                .is_empty()
        );
    }

    #[test]
    fn bad_and_repeated_keys_are_rejected() {
        let cm = json!({"data": {"a/b": "x", "both": "y"}, "binaryData": {"both": "AA==", "..": "AA=="}});
        assert_eq!(
            lines(&ConfigMapStrategy.validate(&cm)),
            [
                "data[a/b]: Invalid value: \"a/b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
                "data[both]: Invalid value: \"both\": duplicate of key present in binaryData",
                "binaryData[..]: Invalid value: \"..\": must not be '..'",
            ]
        );
        let cause = &ConfigMapStrategy.validate(&cm)[0];
        assert_eq!(cause.reason, "FieldValueInvalid");
    }

    #[test]
    fn more_than_a_mebibyte_is_too_long() {
        let half = "x".repeat(MAX_TOTAL_BYTES / 2);
        let at_limit = json!({"data": {"a": half, "b": half}});
        assert!(ConfigMapStrategy.validate(&at_limit).is_empty());
        let over = json!({"data": {"a": half, "b": half}, "binaryData": {"c": "AA=="}});
        let causes = ConfigMapStrategy.validate(&over);
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].reason, "FieldValueTooLong");
        assert_eq!(
            causes[0].message,
            "Too long: may not be more than 1048576 bytes"
        );
    }

    #[test]
    fn immutable_configmaps_keep_their_data() {
        let old = json!({"immutable": true, "data": {"a": "1"}, "binaryData": {"b": "AA=="}});
        let mut same = old.clone();
        same["metadata"] = json!({"labels": {"x": "y"}});
        assert!(ConfigMapStrategy.validate_update(&same, &old).is_empty());
        let changed = json!({"immutable": true, "data": {"a": "2"}, "binaryData": {"b": "AA=="}});
        assert_eq!(
            lines(&ConfigMapStrategy.validate_update(&changed, &old)),
            ["data: Forbidden: field is immutable when `immutable` is set"]
        );
        let thawed = json!({"immutable": false, "data": {"a": "1"}});
        assert_eq!(
            lines(&ConfigMapStrategy.validate_update(&thawed, &old)),
            [
                "immutable: Forbidden: field is immutable when `immutable` is set",
                "binaryData: Forbidden: field is immutable when `immutable` is set",
            ]
        );
        // A mutable configmap may become immutable and change in the same update.
        let mutable = json!({"data": {"a": "1"}});
        assert!(
            ConfigMapStrategy
                .validate_update(&changed, &mutable)
                .is_empty()
        );
    }
}
