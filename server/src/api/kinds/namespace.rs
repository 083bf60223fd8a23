//! core/v1 `Namespace` as data: its schema and the fields its field selectors read.

use crate::api::schema::Schema;

/// Field-selector fields Kubernetes supports for Namespaces.
pub const FIELD_SELECTORS: &[&str] = &["metadata.name", "status.phase"];

/// The schema of a core/v1 Namespace.
#[must_use]
pub fn schema() -> Schema {
    let condition = Schema::condition();
    Schema::resource([
        (
            "spec",
            Schema::object([("finalizers", Schema::string_list().atomic_list())])
                .proto_fields([("finalizers", 1)])
                .describe("Spec defines the behavior of the Namespace."),
        ),
        (
            "status",
            Schema::object([
                // "" is the unset phase, which the server fills in on create.
                (
                    "phase",
                    Schema::string().one_of(["Active", "Terminating", ""]),
                ),
                (
                    "conditions",
                    Schema::array(condition).map_list(["type"]).merge_by("type"),
                ),
            ])
            .proto_fields([("phase", 1), ("conditions", 2)])
            .describe("Status describes the current status of a Namespace."),
        ),
    ])
    .proto_fields([("metadata", 1), ("spec", 2), ("status", 3)])
    .describe("Namespace provides a scope for Names.")
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::api::schema::{unknown_fields, validate};

    fn errors(obj: &Value) -> Vec<String> {
        crate::api::kinds::schema_errors(&schema(), obj)
    }

    #[test]
    fn a_namespace_as_kubernetes_serves_it_is_valid() {
        let ns = json!({
            "apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": "team-a", "labels": {"kubernetes.io/metadata.name": "team-a"}},
            "spec": {"finalizers": ["kubernetes"]},
            "status": {"phase": "Terminating", "conditions": [{
                "type": "NamespaceContentRemaining", "status": "True",
                "lastTransitionTime": "2024-05-01T10:00:00Z", "reason": "SomeResourcesRemain", "message": "m"
            }]}
        });
        assert_eq!(errors(&ns), Vec::<String>::new());
        assert!(unknown_fields(&schema(), &ns).is_empty());
        assert!(
            validate(
                &schema(),
                &json!({"metadata": {"name": "x"}, "status": {"phase": ""}})
            )
            .is_empty()
        );
    }

    #[test]
    fn phase_is_an_enumeration() {
        assert_eq!(
            errors(&json!({"metadata": {}, "status": {"phase": "Gone"}})),
            [
                "status.phase: Unsupported value: \"Gone\": supported values: \"Active\", \"Terminating\", \"\""
            ]
        );
    }

    #[test]
    fn shapes_are_enforced() {
        let ns = json!({"spec": {"finalizers": "kubernetes"}, "status": {"conditions": [{"type": "X"}]}});
        assert_eq!(
            errors(&ns),
            [
                "metadata: Required value",
                "spec.finalizers: Invalid value: \"string\": spec.finalizers in body must be of type array: \"string\"",
                "status.conditions[0].status: Required value",
            ]
        );
        assert_eq!(
            unknown_fields(&schema(), &json!({"metadata": {}, "spec": {"foo": 1}})),
            ["spec.foo"]
        );
    }
}
