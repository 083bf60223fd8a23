//! Policies and bindings as stored objects compile them, once per change:
//! match rules and selectors, the param kind and reference, and every CEL
//! expression (one that does not compile, which validation refuses, is
//! kept as its error and fails the policy under its failure policy).

use std::sync::Arc;

use serde_json::Value;

use crate::api::cel::Expression;
use crate::api::informer::KeyValue;
use crate::api::kind::KindSpec;
use crate::api::kinds::admission_policies_rules::POLICY_VARIABLES;
use crate::request::admission::Attributes;
use crate::request::admission::webhook::hook::Rule;
use crate::request::admission::webhook::matching::{
    namespace_selected, object_selected, rule_matches,
};

type Compiled = Result<Expression, String>;

fn compile(source: &str) -> Compiled {
    Expression::compile(source, &POLICY_VARIABLES)
}

fn text<'a>(v: &'a Value, field: &str) -> &'a str {
    v.get(field).and_then(Value::as_str).unwrap_or("")
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// A rule that may also name objects.
pub struct NamedRule {
    rule: Rule,
    names: Vec<String>,
}

impl NamedRule {
    fn of(v: &Value) -> NamedRule {
        NamedRule {
            rule: Rule {
                operations: strings(v.get("operations")),
                groups: strings(v.get("apiGroups")),
                versions: strings(v.get("apiVersions")),
                resources: strings(v.get("resources")),
                scope: match text(v, "scope") {
                    "" => "*".into(),
                    s => s.into(),
                },
            },
            names: strings(v.get("resourceNames")),
        }
    }

    fn matches(&self, kind: &KindSpec, attrs: &Attributes<'_>) -> bool {
        rule_matches(&self.rule, kind, attrs)
            && (self.names.is_empty() || self.names.iter().any(|n| n == attrs.name))
    }
}

/// `matchConstraints` of a policy, `matchResources` of a binding.
pub struct MatchResources {
    namespace_selector: Value,
    object_selector: Value,
    rules: Vec<NamedRule>,
    exclude: Vec<NamedRule>,
    equivalent: bool,
}

impl MatchResources {
    fn of(v: &Value) -> MatchResources {
        let rules = |field: &str| {
            v.get(field)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(NamedRule::of)
                .collect()
        };
        MatchResources {
            namespace_selector: v.get("namespaceSelector").cloned().unwrap_or(Value::Null),
            object_selector: v.get("objectSelector").cloned().unwrap_or(Value::Null),
            rules: rules("resourceRules"),
            exclude: rules("excludeResourceRules"),
            equivalent: text(v, "matchPolicy") != "Exact",
        }
    }

    /// Whether the write matches, and as which kind: `Some(None)` as its
    /// own, `Some(Some(k))` through the equivalent kind `k`. A binding's
    /// empty rules (`all_when_empty`) match every resource.
    pub fn matches(
        &self,
        attrs: &Attributes<'_>,
        object: Option<&Value>,
        equivalents: &[Arc<KindSpec>],
        namespace_labels: &dyn Fn(&str) -> Option<serde_json::Map<String, Value>>,
        all_when_empty: bool,
    ) -> Option<Option<Arc<KindSpec>>> {
        if !namespace_selected(&self.namespace_selector, attrs, object, namespace_labels)
            || !object_selected(&self.object_selector, object, attrs.old_object)
            || self.exclude.iter().any(|r| r.matches(attrs.kind, attrs))
        {
            return None;
        }
        if all_when_empty && self.rules.is_empty() {
            return Some(None);
        }
        if self.rules.iter().any(|r| r.matches(attrs.kind, attrs)) {
            return Some(None);
        }
        if !self.equivalent {
            return None;
        }
        equivalents
            .iter()
            .find(|k| self.rules.iter().any(|r| r.matches(k, attrs)))
            .map(|k| Some(Arc::clone(k)))
    }
}

/// One `validations` item.
pub struct Validation {
    pub expression: Compiled,
    pub message: Option<String>,
    pub message_expression: Option<Compiled>,
    pub reason: Option<String>,
}

/// A compiled ValidatingAdmissionPolicy.
pub struct Policy {
    pub name: String,
    /// `paramKind` (apiVersion, kind).
    pub param_kind: Option<(String, String)>,
    pub constraints: MatchResources,
    pub validations: Vec<Validation>,
    pub audit_annotations: Vec<(String, Compiled)>,
    pub match_conditions: Vec<Compiled>,
    pub variables: Vec<(String, Compiled)>,
    /// `failurePolicy: Ignore`.
    pub ignore_failures: bool,
}

fn named(spec: &Value, field: &str, value: &str) -> Vec<(String, Compiled)> {
    spec.get(field)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|v| (text(v, "name").to_string(), compile(text(v, value))))
        .collect()
}

/// The compiled policy of a stored one.
pub fn policy(kv: &KeyValue) -> Option<Arc<Policy>> {
    let obj: Value = serde_json::from_slice(&kv.value).ok()?;
    let spec = obj.get("spec")?;
    let validations = spec
        .get("validations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|v| Validation {
            expression: compile(text(v, "expression")),
            message: Some(text(v, "message").to_string()).filter(|m| !m.is_empty()),
            message_expression: Some(text(v, "messageExpression"))
                .filter(|m| !m.is_empty())
                .map(compile),
            reason: Some(text(v, "reason").to_string()).filter(|r| !r.is_empty()),
        })
        .collect();
    let audit_annotations = spec
        .get("auditAnnotations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|a| {
            (
                text(a, "key").to_string(),
                compile(text(a, "valueExpression")),
            )
        })
        .collect();
    Some(Arc::new(Policy {
        name: crate::api::object::name(&obj).to_string(),
        param_kind: spec.get("paramKind").map(|k| {
            (
                text(k, "apiVersion").to_string(),
                text(k, "kind").to_string(),
            )
        }),
        constraints: MatchResources::of(spec.get("matchConstraints").unwrap_or(&Value::Null)),
        validations,
        audit_annotations,
        match_conditions: named(spec, "matchConditions", "expression")
            .into_iter()
            .map(|(_, c)| c)
            .collect(),
        variables: named(spec, "variables", "expression"),
        ignore_failures: text(spec, "failurePolicy") == "Ignore",
    }))
}

/// A binding's `paramRef`.
pub struct ParamRef {
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub selector: Option<Value>,
    /// `parameterNotFoundAction: Deny`.
    pub deny_when_missing: bool,
}

/// A compiled ValidatingAdmissionPolicyBinding.
pub struct Binding {
    pub name: String,
    pub policy: String,
    pub param_ref: Option<ParamRef>,
    pub match_resources: Option<MatchResources>,
    pub deny: bool,
    pub warn: bool,
    pub audit: bool,
    /// `validationActions` as written (for the audit annotation).
    pub actions: Vec<String>,
}

/// The compiled binding of a stored one.
pub fn binding(kv: &KeyValue) -> Option<Arc<Binding>> {
    let obj: Value = serde_json::from_slice(&kv.value).ok()?;
    let spec = obj.get("spec")?;
    let actions = strings(spec.get("validationActions"));
    let has = |a: &str| actions.iter().any(|x| x == a);
    Some(Arc::new(Binding {
        name: crate::api::object::name(&obj).to_string(),
        policy: text(spec, "policyName").to_string(),
        param_ref: spec.get("paramRef").map(|r| ParamRef {
            name: Some(text(r, "name").to_string()).filter(|n| !n.is_empty()),
            namespace: Some(text(r, "namespace").to_string()).filter(|n| !n.is_empty()),
            selector: r.get("selector").cloned(),
            deny_when_missing: text(r, "parameterNotFoundAction") == "Deny",
        }),
        match_resources: spec.get("matchResources").map(MatchResources::of),
        deny: has("Deny"),
        warn: has("Warn"),
        audit: has("Audit"),
        actions,
    }))
}
