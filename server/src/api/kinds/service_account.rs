//! core/v1 `ServiceAccount` as data: its schema (secrets, image pull
//! secrets, token automount).

use crate::api::schema::Schema;

/// The schema of a core/v1 ServiceAccount.
#[must_use]
pub fn schema() -> Schema {
    Schema::resource([
        (
            "secrets",
            Schema::array(Schema::object_reference())
                .map_list(["name"])
                .merge_by("name")
                .describe(
                    "Secrets in the same namespace that pods of this service account may use.",
                ),
        ),
        (
            "imagePullSecrets",
            Schema::array(
                Schema::object([("name", Schema::string())])
                    .atomic_map()
                    .proto_fields([("name", 1)]),
            )
            .atomic_list()
            .describe("Secrets used to pull images of pods that run as this service account."),
        ),
        (
            "automountServiceAccountToken",
            Schema::boolean()
                .describe("Whether pods of this service account get an API token mounted."),
        ),
    ])
    .proto_fields([
        ("metadata", 1),
        ("secrets", 2),
        ("imagePullSecrets", 3),
        ("automountServiceAccountToken", 4),
    ])
    .describe("ServiceAccount binds together a name, a principal and a set of secrets.")
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
    fn a_service_account_as_kubectl_creates_it_is_valid() {
        let sa = json!({
            "kind": "ServiceAccount", "apiVersion": "v1",
            "metadata": {"name": "builder", "namespace": "ci", "creationTimestamp": null},
            "secrets": [{"name": "builder-token"}],
            "imagePullSecrets": [{"name": "registry"}],
            "automountServiceAccountToken": false
        });
        assert_eq!(errors(&sa), Vec::<String>::new());
        assert!(unknown_fields(&schema(), &sa).is_empty());
    }

    #[test]
    fn wrong_types_are_named_by_path() {
        let sa = json!({"metadata": {}, "secrets": [{"name": 1}], "imagePullSecrets": "registry", "automountServiceAccountToken": "no"});
        assert_eq!(
            errors(&sa),
            [
                "secrets[0].name: Invalid value: \"integer\": secrets[0].name in body must be of type string: \"integer\"",
                "imagePullSecrets: Invalid value: \"string\": imagePullSecrets in body must be of type array: \"string\"",
                "automountServiceAccountToken: Invalid value: \"string\": automountServiceAccountToken in body must be of type boolean: \"string\"",
            ]
        );
        assert_eq!(
            unknown_fields(&schema(), &json!({"secrets": [{"nmae": "x"}]})),
            ["secrets[0].nmae"]
        );
    }
}
