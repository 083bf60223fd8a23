//! core/v1 `ConfigMap` as data: its schema (string `data`, base64
//! `binaryData`, `immutable`).

use crate::api::schema::Schema;

/// The schema of a core/v1 ConfigMap.
#[must_use]
pub fn schema() -> Schema {
    Schema::resource([
        (
            "data",
            Schema::string_map().describe("Configuration data; keys are [-._a-zA-Z0-9]+."),
        ),
        (
            "binaryData",
            Schema::map(Schema::bytes()).describe(
                "Binary configuration data, base64 encoded; keys may not repeat those of data.",
            ),
        ),
        (
            "immutable",
            Schema::boolean().describe("When true, data and binaryData can no longer change."),
        ),
    ])
    .proto_fields([
        ("metadata", 1),
        ("data", 2),
        ("binaryData", 3),
        ("immutable", 4),
    ])
    .describe("ConfigMap holds configuration data for pods to consume.")
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
    fn a_configmap_as_kubectl_creates_it_is_valid() {
        // kubectl create configmap app --from-literal=mode=fast --from-file=logo.png -o json
        let cm = json!({
            "kind": "ConfigMap", "apiVersion": "v1",
            "metadata": {"name": "app", "creationTimestamp": null},
            "data": {"mode": "fast", "app.properties": "a=1\nb=2\n"},
            "binaryData": {"logo.png": "iVBORw0KGgo="},
            "immutable": false
        });
        assert_eq!(errors(&cm), Vec::<String>::new());
        assert!(unknown_fields(&schema(), &cm).is_empty());
    }

    #[test]
    fn wrong_types_are_named_by_path() {
        let cm = json!({
            "data": {"n": 5}, "binaryData": {"b": "not base64!"}, "immutable": "yes"
        });
        assert_eq!(
            errors(&cm),
            [
                "metadata: Required value",
                "data[n]: Invalid value: \"integer\": data[n] in body must be of type string: \"integer\"",
                "binaryData[b]: Invalid value: \"not base64!\": binaryData[b] in body must be of type byte: \"not base64!\"",
                "immutable: Invalid value: \"string\": immutable in body must be of type boolean: \"string\"",
            ]
        );
    }
}
