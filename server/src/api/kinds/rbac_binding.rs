//! `rbac.authorization.{domain}/v1` `RoleBinding` and `ClusterRoleBinding`
//! as data: their schemas (top-level `roleRef` and `subjects`, no `spec`)
//! and Kubernetes' rules: API groups defaulted, a role reference of the
//! right kind that never changes, and subjects of a known kind.

use serde_json::{Value, json};

use super::checks::{causes, default_field, items_at, object_field, str_at};
use crate::api::error::Cause;
use crate::api::kind::{NameRule, Strategy};
use crate::api::schema::{FieldError, Schema, go_quote};

fn role_ref() -> Schema {
    Schema::object([
        ("apiGroup", Schema::string()),
        ("kind", Schema::string()),
        ("name", Schema::string()),
    ])
    .required(["kind", "name"])
    .atomic_map()
    .proto_fields([("apiGroup", 1), ("kind", 2), ("name", 3)])
    .describe("The Role or ClusterRole granted; it cannot change.")
}

fn subject() -> Schema {
    Schema::object([
        ("kind", Schema::string()),
        ("apiGroup", Schema::string()),
        ("name", Schema::string()),
        ("namespace", Schema::string()),
    ])
    .required(["kind", "name"])
    .atomic_map()
    .proto_fields([("kind", 1), ("apiGroup", 2), ("name", 3), ("namespace", 4)])
}

fn binding_schema(description: &str) -> Schema {
    Schema::resource([
        ("subjects", Schema::array(subject()).atomic_list()),
        ("roleRef", role_ref()),
    ])
    .required(["roleRef"])
    .proto_fields([("metadata", 1), ("subjects", 2), ("roleRef", 3)])
    .describe(description)
}

/// The schema of an rbac/v1 RoleBinding.
#[must_use]
pub fn role_binding_schema() -> Schema {
    binding_schema("RoleBinding grants the permissions of a role to subjects within a namespace.")
}

/// The schema of an rbac/v1 ClusterRoleBinding.
#[must_use]
pub fn cluster_role_binding_schema() -> Schema {
    binding_schema(
        "ClusterRoleBinding grants the permissions of a ClusterRole to subjects cluster-wide.",
    )
}

/// RoleBinding and ClusterRoleBinding rules.
pub struct BindingStrategy {
    /// The RBAC API group (`rbac.authorization.{domain}`).
    pub group: String,
    /// RoleBindings (namespaced) may grant Roles; ClusterRoleBindings only ClusterRoles.
    pub namespaced: bool,
}

impl BindingStrategy {
    fn apply_defaults(&self, binding: &mut Value) {
        default_field(
            object_field(binding, "roleRef"),
            "apiGroup",
            json!(self.group),
        );
        if let Some(subjects) = binding.get_mut("subjects").and_then(Value::as_array_mut) {
            for subject in subjects.iter_mut().filter_map(Value::as_object_mut) {
                let group = match subject.get("kind").and_then(Value::as_str) {
                    Some("User" | "Group") => self.group.clone(),
                    _ => String::new(),
                };
                let given = subject.get("apiGroup").and_then(Value::as_str);
                if given.unwrap_or_default().is_empty() {
                    // Kubernetes' Subject omits an empty apiGroup (a
                    // ServiceAccount's): writing "" would make every
                    // re-apply of the same manifest a change.
                    if group.is_empty() {
                        subject.remove("apiGroup");
                    } else {
                        subject.insert("apiGroup".into(), json!(group));
                    }
                }
            }
        }
    }

    fn allowed_role_kinds(&self) -> &'static [&'static str] {
        if self.namespaced {
            &["Role", "ClusterRole"]
        } else {
            &["ClusterRole"]
        }
    }

    fn subject_errors(&self, subject: &Value, path: &str, errors: &mut Vec<FieldError>) {
        let group = str_at(subject, "/apiGroup");
        if str_at(subject, "/name").is_empty() {
            errors.push(FieldError::required(format!("{path}.name"), ""));
        }
        match str_at(subject, "/kind") {
            "ServiceAccount" => {
                if !group.is_empty() {
                    errors.push(FieldError::not_supported(
                        format!("{path}.apiGroup"),
                        json!(group),
                        &[json!("")],
                    ));
                }
                if !self.namespaced && str_at(subject, "/namespace").is_empty() {
                    errors.push(FieldError::required(format!("{path}.namespace"), ""));
                }
            }
            "User" | "Group" => {
                if group != self.group {
                    errors.push(FieldError::not_supported(
                        format!("{path}.apiGroup"),
                        json!(group),
                        &[json!(self.group)],
                    ));
                }
            }
            other => errors.push(FieldError::not_supported(
                format!("{path}.kind"),
                json!(other),
                &[json!("ServiceAccount"), json!("User"), json!("Group")],
            )),
        }
    }

    fn binding_errors(&self, binding: &Value) -> Vec<FieldError> {
        let mut errors = Vec::new();
        let group = str_at(binding, "/roleRef/apiGroup");
        if group != self.group {
            errors.push(FieldError::not_supported(
                "roleRef.apiGroup",
                json!(group),
                &[json!(self.group)],
            ));
        }
        let kind = str_at(binding, "/roleRef/kind");
        if !self.allowed_role_kinds().contains(&kind) {
            let allowed: Vec<Value> = self.allowed_role_kinds().iter().map(|k| json!(k)).collect();
            errors.push(FieldError::not_supported(
                "roleRef.kind",
                json!(kind),
                &allowed,
            ));
        }
        if str_at(binding, "/roleRef/name").is_empty() {
            errors.push(FieldError::required("roleRef.name", ""));
        }
        for (i, subject) in items_at(binding, "/subjects").iter().enumerate() {
            self.subject_errors(subject, &format!("subjects[{i}]"), &mut errors);
        }
        errors
    }
}

/// A role reference as Go's `%#v` prints the `rbac.RoleRef` struct.
fn go_role_ref(binding: &Value) -> String {
    format!(
        "rbac.RoleRef{{APIGroup:{}, Kind:{}, Name:{}}}",
        go_quote(str_at(binding, "/roleRef/apiGroup")),
        go_quote(str_at(binding, "/roleRef/kind")),
        go_quote(str_at(binding, "/roleRef/name")),
    )
}

impl Strategy for BindingStrategy {
    /// RBAC names are path segments (`system:discovery`), as in Kubernetes.
    fn name_rule(&self) -> NameRule {
        NameRule::PathSegment
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        self.apply_defaults(obj);
    }

    fn prepare_for_update(&self, new: &mut Value, _old: &Value) {
        self.apply_defaults(new);
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        causes(&self.binding_errors(obj))
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<Cause> {
        let mut out = self.validate(new);
        // Changing whom a binding grants would silently move permissions.
        let fields = ["apiGroup", "kind", "name"];
        let changed = fields.iter().any(|f| {
            str_at(new, &format!("/roleRef/{f}")) != str_at(old, &format!("/roleRef/{f}"))
        });
        if changed {
            out.push(Cause::new(
                "FieldValueInvalid",
                "roleRef",
                format!("Invalid value: {}: cannot change roleRef", go_role_ref(new)),
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::kinds::cause_lines as lines;
    use crate::api::schema::{unknown_fields, validate};

    const GROUP: &str = "rbac.authorization.k8s.io";

    fn strategy(namespaced: bool) -> BindingStrategy {
        BindingStrategy {
            group: GROUP.into(),
            namespaced,
        }
    }

    /// `kubectl create rolebinding read --role=pod-reader --user=alice --group=devs --serviceaccount=ci:builder -o json`
    fn read_binding() -> Value {
        json!({
            "kind": "RoleBinding", "apiVersion": "rbac.authorization.k8s.io/v1",
            "metadata": {"name": "read", "creationTimestamp": null},
            "roleRef": {"apiGroup": GROUP, "kind": "Role", "name": "pod-reader"},
            "subjects": [
                {"kind": "User", "apiGroup": GROUP, "name": "alice"},
                {"kind": "Group", "apiGroup": GROUP, "name": "devs"},
                {"kind": "ServiceAccount", "name": "builder", "namespace": "ci"}
            ]
        })
    }

    #[test]
    fn bindings_as_kubectl_creates_them_are_valid() {
        let schema = role_binding_schema();
        assert!(validate(&schema, &read_binding()).is_empty());
        assert!(unknown_fields(&schema, &read_binding()).is_empty());
        assert!(strategy(true).validate(&read_binding()).is_empty());
    }

    #[test]
    fn role_ref_and_subject_fields_are_required() {
        let messages = |obj: Value| -> Vec<String> {
            validate(&cluster_role_binding_schema(), &obj)
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        assert_eq!(
            messages(json!({"metadata": {}})),
            ["roleRef: Required value"]
        );
        assert_eq!(
            messages(
                json!({"metadata": {}, "roleRef": {"kind": "ClusterRole"}, "subjects": [{"name": 3}]})
            ),
            [
                "roleRef.name: Required value",
                "subjects[0].kind: Required value",
                "subjects[0].name: Invalid value: \"integer\": subjects[0].name in body must be of type string: \"integer\"",
            ]
        );
    }

    #[test]
    fn api_groups_default_as_kubernetes_defaults_them() {
        let mut binding = json!({
            "roleRef": {"kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "User", "name": "a"}, {"kind": "Group", "name": "g"}, {"kind": "ServiceAccount", "name": "s", "namespace": "n"}]
        });
        strategy(false).prepare_for_create(&mut binding);
        assert_eq!(binding["roleRef"]["apiGroup"], GROUP);
        assert_eq!(binding["subjects"][0]["apiGroup"], GROUP);
        assert_eq!(binding["subjects"][1]["apiGroup"], GROUP);
        // A ServiceAccount's empty apiGroup is omitted, given or not.
        assert_eq!(binding["subjects"][2].get("apiGroup"), None);
        assert!(strategy(false).validate(&binding).is_empty());
        let mut given = json!({
            "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "ServiceAccount", "apiGroup": "", "name": "s", "namespace": "n"}]
        });
        strategy(false).prepare_for_create(&mut given);
        assert_eq!(given["subjects"][0].get("apiGroup"), None);
    }

    #[test]
    fn role_refs_and_subjects_are_checked() {
        let binding = json!({
            "roleRef": {"apiGroup": "example.com", "kind": "Role", "name": ""},
            "subjects": [
                {"kind": "Robot", "name": "r"},
                {"kind": "ServiceAccount", "apiGroup": GROUP, "name": "s"},
                {"kind": "User", "apiGroup": "", "name": ""}
            ]
        });
        assert_eq!(
            lines(&strategy(false).validate(&binding)),
            [
                "roleRef.apiGroup: Unsupported value: \"example.com\": supported values: \"rbac.authorization.k8s.io\"",
                "roleRef.kind: Unsupported value: \"Role\": supported values: \"ClusterRole\"",
                "roleRef.name: Required value",
                "subjects[0].kind: Unsupported value: \"Robot\": supported values: \"ServiceAccount\", \"User\", \"Group\"",
                "subjects[1].apiGroup: Unsupported value: \"rbac.authorization.k8s.io\": supported values: \"\"",
                "subjects[1].namespace: Required value",
                "subjects[2].name: Required value",
                "subjects[2].apiGroup: Unsupported value: \"\": supported values: \"rbac.authorization.k8s.io\"",
            ]
        );
    }

    #[test]
    fn role_ref_cannot_change() {
        let old = read_binding();
        let mut new = old.clone();
        new["subjects"] = json!([]);
        assert!(strategy(true).validate_update(&new, &old).is_empty());
        new["roleRef"]["name"] = json!("pod-writer");
        assert_eq!(
            lines(&strategy(true).validate_update(&new, &old)),
            [
                "roleRef: Invalid value: rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", Kind:\"Role\", Name:\"pod-writer\"}: cannot change roleRef"
            ]
        );
    }
}
