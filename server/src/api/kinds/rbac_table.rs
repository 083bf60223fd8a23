//! Computed cells of the binding tables: the granted role as `Kind/name`
//! and the subjects by kind, as Kubernetes' binding printers render them.

use serde_json::Value;

use super::checks::{items_at, str_at};

/// `Role/pod-reader`, `ClusterRole/view`.
#[must_use]
pub fn role(binding: &Value) -> Value {
    Value::from(format!(
        "{}/{}",
        str_at(binding, "/roleRef/kind"),
        str_at(binding, "/roleRef/name")
    ))
}

fn subjects_of(binding: &Value, kind: &str) -> Value {
    let names: Vec<String> = items_at(binding, "/subjects")
        .iter()
        .filter(|s| str_at(s, "/kind") == kind)
        .map(|s| {
            let (namespace, name) = (str_at(s, "/namespace"), str_at(s, "/name"));
            if kind == "ServiceAccount" && !namespace.is_empty() {
                format!("{namespace}/{name}")
            } else {
                name.to_owned()
            }
        })
        .collect();
    Value::from(names.join(", "))
}

#[must_use]
pub fn users(binding: &Value) -> Value {
    subjects_of(binding, "User")
}

#[must_use]
pub fn groups(binding: &Value) -> Value {
    subjects_of(binding, "Group")
}

/// Service accounts as `namespace/name`.
#[must_use]
pub fn service_accounts(binding: &Value) -> Value {
    subjects_of(binding, "ServiceAccount")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn cells_group_subjects_by_kind() {
        let binding = json!({
            "roleRef": {"kind": "ClusterRole", "name": "view"},
            "subjects": [
                {"kind": "User", "name": "alice"}, {"kind": "User", "name": "bob"},
                {"kind": "Group", "name": "devs"},
                {"kind": "ServiceAccount", "name": "builder", "namespace": "ci"}
            ]
        });
        assert_eq!(role(&binding), "ClusterRole/view");
        assert_eq!(users(&binding), "alice, bob");
        assert_eq!(groups(&binding), "devs");
        assert_eq!(service_accounts(&binding), "ci/builder");
        assert_eq!(users(&json!({})), "");
    }
}
