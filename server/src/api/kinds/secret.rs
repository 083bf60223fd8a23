//! core/v1 `Secret` as data: its schema (base64 `data`, write-only
//! `stringData`, `type`, `immutable`).

use crate::api::schema::Schema;

/// The schema of a core/v1 Secret.
#[must_use]
pub fn schema() -> Schema {
    Schema::resource([
        (
            "data",
            Schema::map(Schema::bytes())
                .describe("Secret data, base64 encoded; keys are [-._a-zA-Z0-9]+."),
        ),
        (
            "stringData",
            Schema::string_map().describe(
                "Write-only plain-text data, merged into data on write; never stored or served.",
            ),
        ),
        (
            "type",
            Schema::string().describe(
                "Used to facilitate programmatic handling of secret data; Opaque by default.",
            ),
        ),
        (
            "immutable",
            Schema::boolean().describe("When true, data can no longer change."),
        ),
    ])
    .proto_fields([
        ("metadata", 1),
        ("data", 2),
        ("type", 3),
        ("stringData", 4),
        ("immutable", 5),
    ])
    .describe("Secret holds secret data of a certain type.")
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::api::schema::unknown_fields;

    fn errors(obj: &Value) -> Vec<String> {
        crate::api::kinds::schema_errors(&schema(), obj)
    }

    #[test]
    fn a_secret_as_kubectl_creates_it_is_valid() {
        // kubectl create secret tls web --cert=tls.crt --key=tls.key -o json (shortened)
        let secret = json!({
            "kind": "Secret", "apiVersion": "v1",
            "metadata": {"name": "web", "creationTimestamp": null},
            "data": {"tls.crt": "LS0tLS1CRUdJTg==", "tls.key": "LS0tLS1CRUdJTg=="},
            "stringData": {"note": "plain"},
            "type": "kubernetes.io/tls",
            "immutable": true
        });
        assert_eq!(errors(&secret), Vec::<String>::new());
        assert!(unknown_fields(&schema(), &secret).is_empty());
    }

    #[test]
    fn data_must_be_base64_and_types_hold() {
        let secret = json!({
            "metadata": {"name": "s"},
            "data": {"password": "hunter2"}, "stringData": {"n": 1}, "type": 7
        });
        assert_eq!(
            errors(&secret),
            [
                "data[password]: Invalid value: \"hunter2\": data[password] in body must be of type byte: \"hunter2\"",
                "stringData[n]: Invalid value: \"integer\": stringData[n] in body must be of type string: \"integer\"",
                "type: Invalid value: \"integer\": type in body must be of type string: \"integer\"",
            ]
        );
        assert_eq!(errors(&json!({})), ["metadata: Required value"]);
    }
}
