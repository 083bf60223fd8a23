//! `rbac.authorization.{domain}/v1` `Role` and `ClusterRole` as data: their
//! schemas (rules and, for cluster roles, an aggregation rule; the fields
//! are top-level, there is no `spec`) and the rule checks Kubernetes makes.

use serde_json::Value;

use super::checks::{causes, items_at};
use crate::api::error::Cause;
use crate::api::kind::{NameRule, Strategy};
use crate::api::schema::{FieldError, Schema, go_quote};

fn policy_rule() -> Schema {
    Schema::object([
        ("verbs", Schema::string_list().atomic_list()),
        ("apiGroups", Schema::string_list().atomic_list()),
        ("resources", Schema::string_list().atomic_list()),
        ("resourceNames", Schema::string_list().atomic_list()),
        ("nonResourceURLs", Schema::string_list().atomic_list()),
    ])
    .required(["verbs"])
    .proto_fields([
        ("verbs", 1),
        ("apiGroups", 2),
        ("resources", 3),
        ("resourceNames", 4),
        ("nonResourceURLs", 5),
    ])
}

/// `metav1.LabelSelector`.
#[must_use]
pub fn label_selector() -> Schema {
    let requirement = Schema::object([
        ("key", Schema::string()),
        ("operator", Schema::string()),
        ("values", Schema::string_list().atomic_list()),
    ])
    .required(["key", "operator"])
    .proto_fields([("key", 1), ("operator", 2), ("values", 3)]);
    Schema::object([
        ("matchLabels", Schema::string_map()),
        ("matchExpressions", Schema::array(requirement).atomic_list()),
    ])
    .atomic_map()
    .proto_fields([("matchLabels", 1), ("matchExpressions", 2)])
}

fn rules() -> Schema {
    Schema::array(policy_rule())
        .atomic_list()
        .describe("Rules holds all the PolicyRules for this role.")
}

/// The schema of an rbac/v1 Role.
#[must_use]
pub fn role_schema() -> Schema {
    Schema::resource([("rules", rules())])
        .proto_fields([("metadata", 1), ("rules", 2)])
        .describe("Role is a namespaced, logical grouping of PolicyRules.")
}

/// The schema of an rbac/v1 ClusterRole.
#[must_use]
pub fn cluster_role_schema() -> Schema {
    Schema::resource([
        ("rules", rules()),
        (
            "aggregationRule",
            Schema::object([(
                "clusterRoleSelectors",
                Schema::array(label_selector()).atomic_list(),
            )])
            .proto_fields([("clusterRoleSelectors", 1)])
            .describe("Selects the ClusterRoles whose rules this role aggregates."),
        ),
    ])
    .proto_fields([("metadata", 1), ("rules", 2), ("aggregationRule", 3)])
    .describe("ClusterRole is a cluster level, logical grouping of PolicyRules.")
}

/// A string list as Go's `%#v` prints a `[]string`.
fn go_string_slice(list: &[Value]) -> String {
    let items: Vec<String> = list
        .iter()
        .map(|v| go_quote(v.as_str().unwrap_or_default()))
        .collect();
    format!("[]string{{{}}}", items.join(", "))
}

/// Kubernetes' checks of one policy rule at `rules[i]`.
fn rule_causes(rule: &Value, path: &str, namespaced: bool) -> Vec<Cause> {
    let list = |field: &str| items_at(rule, &format!("/{field}"));
    let mut errors = Vec::new();
    if list("verbs").is_empty() {
        errors.push(FieldError::required(
            format!("{path}.verbs"),
            "verbs must contain at least one value",
        ));
    }
    let mut out = causes(&errors);
    let urls = list("nonResourceURLs");
    if !urls.is_empty() {
        let invalid = |detail: &str| {
            Cause::new(
                "FieldValueInvalid",
                format!("{path}.nonResourceURLs"),
                format!("Invalid value: {}: {detail}", go_string_slice(urls)),
            )
        };
        if namespaced {
            out.push(invalid(
                "namespaced rules cannot apply to non-resource URLs",
            ));
        }
        if !list("apiGroups").is_empty()
            || !list("resources").is_empty()
            || !list("resourceNames").is_empty()
        {
            out.push(invalid(
                "rules cannot apply to both regular resources and non-resource URLs",
            ));
        }
        return out;
    }
    let mut errors = Vec::new();
    if list("apiGroups").is_empty() {
        errors.push(FieldError::required(
            format!("{path}.apiGroups"),
            "resource rules must supply at least one api group",
        ));
    }
    if list("resources").is_empty() {
        errors.push(FieldError::required(
            format!("{path}.resources"),
            "resource rules must supply at least one resource",
        ));
    }
    out.extend(causes(&errors));
    out
}

/// Role and ClusterRole rules; only cluster roles may name non-resource URLs.
pub struct RoleStrategy {
    pub namespaced: bool,
}

impl Strategy for RoleStrategy {
    /// RBAC names are path segments (`system:discovery`), as in Kubernetes.
    fn name_rule(&self) -> NameRule {
        NameRule::PathSegment
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        items_at(obj, "/rules")
            .iter()
            .enumerate()
            .flat_map(|(i, rule)| rule_causes(rule, &format!("rules[{i}]"), self.namespaced))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::api::kinds::cause_lines as lines;
    use crate::api::schema::{unknown_fields, validate};

    fn errors(schema: &Schema, obj: &Value) -> Vec<String> {
        validate(schema, obj)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn roles_as_kubectl_creates_them_are_valid() {
        // kubectl create role pod-reader --verb=get,list --resource=pods -o json
        let role = json!({
            "kind": "Role", "apiVersion": "rbac.authorization.k8s.io/v1",
            "metadata": {"name": "pod-reader", "creationTimestamp": null},
            "rules": [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}]
        });
        assert_eq!(errors(&role_schema(), &role), Vec::<String>::new());
        assert!(unknown_fields(&role_schema(), &role).is_empty());
        assert!(RoleStrategy { namespaced: true }.validate(&role).is_empty());
        let aggregate = json!({
            "metadata": {"name": "monitoring"},
            "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"rbac.example.com/aggregate-to-monitoring": "true"}}]},
            "rules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz", "/metrics"]}]
        });
        assert_eq!(
            errors(&cluster_role_schema(), &aggregate),
            Vec::<String>::new()
        );
        assert!(unknown_fields(&cluster_role_schema(), &aggregate).is_empty());
        assert!(
            RoleStrategy { namespaced: false }
                .validate(&aggregate)
                .is_empty()
        );
        // A Role has no aggregation rule.
        assert_eq!(
            unknown_fields(&role_schema(), &aggregate),
            ["aggregationRule"]
        );
    }

    #[test]
    fn schema_requires_verbs_and_checks_types() {
        let role = json!({"metadata": {}, "rules": [{"apiGroups": "", "resources": ["pods"]}]});
        assert_eq!(
            errors(&role_schema(), &role),
            [
                "rules[0].verbs: Required value",
                "rules[0].apiGroups: Invalid value: \"string\": rules[0].apiGroups in body must be of type array: \"string\"",
            ]
        );
    }

    #[test]
    fn rule_checks_speak_as_kubernetes() {
        let role = json!({"rules": [
            {"verbs": [], "apiGroups": [], "resources": []},
            {"verbs": ["get"], "nonResourceURLs": ["/healthz"], "resources": ["pods"]}
        ]});
        assert_eq!(
            lines(&RoleStrategy { namespaced: true }.validate(&role)),
            [
                "rules[0].verbs: Required value: verbs must contain at least one value",
                "rules[0].apiGroups: Required value: resource rules must supply at least one api group",
                "rules[0].resources: Required value: resource rules must supply at least one resource",
                "rules[1].nonResourceURLs: Invalid value: []string{\"/healthz\"}: namespaced rules cannot apply to non-resource URLs",
                "rules[1].nonResourceURLs: Invalid value: []string{\"/healthz\"}: rules cannot apply to both regular resources and non-resource URLs",
            ]
        );
    }
}
