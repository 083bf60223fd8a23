//! `status.typeChecking` of a ValidatingAdmissionPolicy, as kube's policy
//! controller writes it: every expression of the policy is checked against
//! each kind its match constraints name exactly (rules without wildcards,
//! subresources aside, at most ten kinds), with `object` and `oldObject`
//! typed as that kind, `namespaceObject` as a Namespace and `params` as the
//! param kind when one is served. A field a kind does not declare becomes a
//! warning naming the kind, in cel-go's words; nothing is refused.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::api::cel::Expression;
use crate::api::kind::KindSpec;
use crate::api::kinds::admission_policies_rules::POLICY_VARIABLES;
use crate::api::registry::Registry;

/// kube checks at most this many kinds per policy.
const MAX_KINDS: usize = 10;

/// The `expressionWarnings` of the policy `spec` (empty when all is well
/// or nothing can be checked).
#[must_use]
pub fn warnings(spec: &Value, registry: &Registry) -> Vec<Value> {
    let kinds = kinds_to_check(spec, registry);
    if kinds.is_empty() {
        return Vec::new();
    }
    let namespace = registry.lookup("", "v1", "namespaces");
    let params = param_kind(spec, registry);
    let mut out = Vec::new();
    for (field, source) in expressions(spec) {
        let Ok(expression) = Expression::compile(source, &POLICY_VARIABLES) else {
            continue;
        };
        let problems: Vec<String> = kinds
            .iter()
            .filter_map(|kind| {
                let mut typed = vec![("object", &kind.schema), ("oldObject", &kind.schema)];
                typed.extend(namespace.iter().map(|n| ("namespaceObject", &n.schema)));
                typed.extend(params.iter().map(|p| ("params", &p.schema)));
                let problem = expression.undeclared_field(&typed)?;
                Some(format!("{}: {problem}", group_version_kind(kind)))
            })
            .collect();
        if !problems.is_empty() {
            out.push(json!({"fieldRef": field, "warning": problems.join("\n")}));
        }
    }
    out
}

/// Go's `GroupVersionKind.String()`.
fn group_version_kind(kind: &KindSpec) -> String {
    format!("{}/{}, Kind={}", kind.group, kind.version, kind.kind)
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .map(|items| items.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The served kinds the resource rules name without wildcards.
fn kinds_to_check(spec: &Value, registry: &Registry) -> Vec<Arc<KindSpec>> {
    let mut kinds: Vec<Arc<KindSpec>> = Vec::new();
    let rules = spec.pointer("/matchConstraints/resourceRules");
    for rule in rules.and_then(Value::as_array).into_iter().flatten() {
        for group in strings(&rule["apiGroups"]) {
            for version in strings(&rule["apiVersions"]) {
                for resource in strings(&rule["resources"]) {
                    if [group, version, resource].contains(&"*") || resource.contains('/') {
                        continue;
                    }
                    let Some(kind) = registry.lookup(group, version, resource) else {
                        continue;
                    };
                    if kinds.len() < MAX_KINDS && !kinds.iter().any(|k| Arc::ptr_eq(k, &kind)) {
                        kinds.push(kind);
                    }
                }
            }
        }
    }
    kinds
}

/// The kind `paramKind` names, when it is served.
fn param_kind(spec: &Value, registry: &Registry) -> Option<Arc<KindSpec>> {
    let api_version = spec.pointer("/paramKind/apiVersion")?.as_str()?;
    let kind = spec.pointer("/paramKind/kind")?.as_str()?;
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    registry
        .in_group_version(group, version)
        .into_iter()
        .find(|k| k.kind == kind)
}

/// Every expression of the policy with the field that holds it.
fn expressions(spec: &Value) -> Vec<(String, &str)> {
    let mut out = Vec::new();
    let mut add = |list: &str, fields: &[&str]| {
        let items = spec.get(list).and_then(Value::as_array);
        for (i, item) in items.into_iter().flatten().enumerate() {
            for field in fields {
                if let Some(text) = item.get(*field).and_then(Value::as_str) {
                    out.push((format!("spec.{list}[{i}].{field}"), text));
                }
            }
        }
    };
    add("validations", &["expression", "messageExpression"]);
    add("auditAnnotations", &["valueExpression"]);
    add("matchConditions", &["expression"]);
    add("variables", &["expression"]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry() -> Registry {
        use clap::Parser as _;
        let flags = crate::config::Flags::parse_from(["cairn-apiserver", "--api-domain", "k8s.io"]);
        crate::api::kinds::builtin(&crate::config::Config::from(flags))
    }

    fn policy(resources: Value, expression: &str) -> Value {
        json!({
            "matchConstraints": {"resourceRules": [{
                "apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"],
                "resources": resources
            }]},
            "validations": [
                {"expression": "object.spec.replicas <= 5"},
                {"expression": expression, "messageExpression": "'bad: ' + object.metadata.name"}
            ]
        })
    }

    #[test]
    fn fields_a_kind_lacks_are_warned_of_per_kind() {
        let r = registry();
        let spec = policy(json!(["deployments"]), "object.spec.replicaz > 1");
        let found = warnings(&spec, &r);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0]["fieldRef"], "spec.validations[1].expression");
        let warning = found[0]["warning"].as_str().unwrap();
        assert!(
            warning.starts_with("apps/v1, Kind=Deployment: ERROR: <input>:1:"),
            "{warning}"
        );
        assert!(warning.contains("undefined field 'replicaz'"), "{warning}");
        assert!(
            warning.contains("\n | object.spec.replicaz > 1\n | "),
            "{warning}"
        );

        let two = policy(
            json!(["deployments", "replicasets"]),
            "object.spec.replicaz > 1",
        );
        let warning = warnings(&two, &r)[0]["warning"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(
            warning.lines().filter(|l| l.contains("Kind=")).count(),
            2,
            "{warning}"
        );
    }

    #[test]
    fn wildcards_and_unknown_resources_are_not_checked() {
        let r = registry();
        for resources in [
            json!(["*"]),
            json!(["deployments/status"]),
            json!(["nonesuch"]),
        ] {
            let spec = policy(resources.clone(), "object.spec.replicaz > 1");
            assert!(warnings(&spec, &r).is_empty(), "{resources}");
        }
        let clean = policy(json!(["deployments"]), "has(object.spec.selector)");
        assert!(warnings(&clean, &r).is_empty());
    }
}
