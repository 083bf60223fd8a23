//! ValidatingAdmissionPolicy and its binding: v1 defaults and validation
//! in kube-apiserver 1.32's words. A policy defaults `failurePolicy` (Fail),
//! `matchPolicy` (Equivalent), its selectors (`{}`) and each rule's scope
//! (`*`); it needs `matchConstraints.resourceRules` and at least one
//! validation or audit annotation, and every expression must compile over
//! the variables a policy sees. A binding needs a `policyName` and
//! `validationActions` (Deny, Warn, Audit; not Deny with Warn).

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::admission_webhooks_rules::{quoted, rule_errors, strings};
use super::checks::{causes, default_field};
use crate::api::cel::{Evident, Expression};
use crate::api::error::Cause;
use crate::api::kind::Strategy;
use crate::api::schema::FieldError;

/// The variables every expression of a policy may name.
pub const POLICY_VARIABLES: [&str; 7] = [
    "object",
    "oldObject",
    "request",
    "params",
    "namespaceObject",
    "authorizer",
    "variables",
];

const FAILURE_POLICIES: [&str; 2] = ["Fail", "Ignore"];
const MATCH_POLICIES: [&str; 2] = ["Equivalent", "Exact"];
const ACTIONS: [&str; 3] = ["Audit", "Deny", "Warn"];
const NOT_FOUND_ACTIONS: [&str; 2] = ["Allow", "Deny"];

pub struct PolicyStrategy;
pub struct BindingStrategy;

/// A policy's `NamedRuleWithOperations`: a webhook rule that may also
/// list `resourceNames`.
fn named_rule_errors(at: &str, rule: &Value) -> Vec<FieldError> {
    let mut errs = rule_errors(at, rule);
    let names = strings(rule.get("resourceNames"));
    let mut seen = BTreeSet::new();
    for (i, name) in names.iter().enumerate() {
        if !seen.insert(*name) {
            errs.push(FieldError::duplicate(
                format!("{at}.resourceNames[{i}]"),
                (*name).into(),
            ));
        }
    }
    errs
}

fn default_match_resources(m: &mut Map<String, Value>) {
    default_field(m, "matchPolicy", "Equivalent".into());
    default_field(m, "namespaceSelector", json!({}));
    default_field(m, "objectSelector", json!({}));
    for field in ["resourceRules", "excludeResourceRules"] {
        if let Some(rules) = m.get_mut(field).and_then(Value::as_array_mut) {
            for rule in rules.iter_mut().filter_map(Value::as_object_mut) {
                default_field(rule, "scope", "*".into());
            }
        }
    }
}

fn default_policy(obj: &mut Value) {
    let Some(spec) = obj.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    default_field(spec, "failurePolicy", "Fail".into());
    if let Some(m) = spec
        .get_mut("matchConstraints")
        .and_then(Value::as_object_mut)
    {
        default_match_resources(m);
    }
}

fn default_binding(obj: &mut Value) {
    if let Some(m) = obj
        .pointer_mut("/spec/matchResources")
        .and_then(Value::as_object_mut)
    {
        default_match_resources(m);
    }
}

fn one_of(at: String, value: Option<&Value>, allowed: &[&str], errs: &mut Vec<FieldError>) {
    match value.and_then(Value::as_str) {
        None => errs.push(FieldError::required(at, "")),
        Some(v) if !allowed.contains(&v) => {
            errs.push(FieldError::not_supported(at, v.into(), &quoted(allowed)));
        }
        Some(_) => {}
    }
}

fn match_resources_errors(at: &str, m: &Value, policy: bool, errs: &mut Vec<FieldError>) {
    let rules = m.get("resourceRules").and_then(Value::as_array);
    if policy && rules.is_none_or(Vec::is_empty) {
        errs.push(FieldError::required(format!("{at}.resourceRules"), ""));
    }
    for field in ["resourceRules", "excludeResourceRules"] {
        for (i, rule) in m
            .get(field)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            errs.extend(named_rule_errors(&format!("{at}.{field}[{i}]"), rule));
        }
    }
    one_of(
        format!("{at}.matchPolicy"),
        m.get("matchPolicy"),
        &MATCH_POLICIES,
        errs,
    );
}

/// What an expression must evaluate to (kube's return types per field).
#[derive(Clone, Copy)]
enum Returns {
    Bool,
    Text,
    TextOrNull,
    Any,
}

impl Returns {
    /// kube's refusal when the expression evidently yields `t`.
    fn refusal(self, t: Evident) -> Option<&'static str> {
        match self {
            Returns::Bool if t != Evident::Bool => Some("must evaluate to bool"),
            Returns::Text if t != Evident::String => Some("must evaluate to string"),
            Returns::TextOrNull if !matches!(t, Evident::String | Evident::Null) => {
                Some("must evaluate to one of [string null_type]")
            }
            _ => None,
        }
    }
}

/// `expression` at `at` compiles over the policy's variables and may
/// evaluate to what the field `wants`.
fn expression_errors(
    at: String,
    expression: Option<&Value>,
    wants: Returns,
    errs: &mut Vec<FieldError>,
) {
    let text = expression.and_then(Value::as_str).unwrap_or("");
    if text.trim().is_empty() {
        errs.push(FieldError::required(at, ""));
        return;
    }
    match Expression::compile(text, &POLICY_VARIABLES) {
        Err(e) => errs.push(FieldError::invalid(
            at,
            text.into(),
            format!("compilation failed: {e}"),
        )),
        Ok(e) => {
            if let Some(refusal) = e.evident_type().and_then(|t| wants.refusal(t)) {
                errs.push(FieldError::invalid(at, text.into(), refusal));
            }
        }
    }
}

fn items<'a>(spec: &'a Value, field: &str) -> &'a [Value] {
    spec.get(field)
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
}

fn policy_errors(obj: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let spec = obj.get("spec").cloned().unwrap_or(Value::Null);
    match spec.get("matchConstraints") {
        Some(m) if m.is_object() => {
            match_resources_errors("spec.matchConstraints", m, true, &mut errs);
        }
        _ => errs.push(FieldError::required("spec.matchConstraints", "")),
    }
    if let Some(kind) = spec.get("paramKind") {
        for field in ["apiVersion", "kind"] {
            if kind
                .get(field)
                .and_then(Value::as_str)
                .unwrap_or("")
                .is_empty()
            {
                errs.push(FieldError::required(format!("spec.paramKind.{field}"), ""));
            }
        }
    }
    one_of(
        "spec.failurePolicy".into(),
        spec.get("failurePolicy"),
        &FAILURE_POLICIES,
        &mut errs,
    );
    let (validations, annotations) = (
        items(&spec, "validations"),
        items(&spec, "auditAnnotations"),
    );
    if validations.is_empty() && annotations.is_empty() {
        errs.push(FieldError::required(
            "spec.validations",
            "validations or auditAnnotations must contain at least one item",
        ));
    }
    for (i, v) in validations.iter().enumerate() {
        let at = format!("spec.validations[{i}]");
        let expression = v.get("expression");
        expression_errors(
            format!("{at}.expression"),
            expression,
            Returns::Bool,
            &mut errs,
        );
        if let Some(m) = v.get("messageExpression").filter(|m| !m.is_null()) {
            let at = format!("{at}.messageExpression");
            expression_errors(at, Some(m), Returns::Text, &mut errs);
        }
    }
    let mut keys = BTreeSet::new();
    for (i, a) in annotations.iter().enumerate() {
        let at = format!("spec.auditAnnotations[{i}]");
        let key = a.get("key").and_then(Value::as_str).unwrap_or("");
        if key.is_empty() {
            errs.push(FieldError::required(format!("{at}.key"), ""));
        } else if !keys.insert(key) {
            errs.push(FieldError::duplicate(format!("{at}.key"), key.into()));
        }
        expression_errors(
            format!("{at}.valueExpression"),
            a.get("valueExpression"),
            Returns::TextOrNull,
            &mut errs,
        );
    }
    for field in ["matchConditions", "variables"] {
        let mut names = BTreeSet::new();
        for (i, c) in items(&spec, field).iter().enumerate() {
            let at = format!("spec.{field}[{i}]");
            let name = c.get("name").and_then(Value::as_str).unwrap_or("");
            if name.is_empty() {
                errs.push(FieldError::required(format!("{at}.name"), ""));
            } else if !names.insert(name) {
                errs.push(FieldError::duplicate(format!("{at}.name"), name.into()));
            }
            let wants = if field == "matchConditions" {
                Returns::Bool
            } else {
                Returns::Any
            };
            expression_errors(
                format!("{at}.expression"),
                c.get("expression"),
                wants,
                &mut errs,
            );
        }
    }
    errs
}

fn binding_errors(obj: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let spec = obj.get("spec").cloned().unwrap_or(Value::Null);
    if spec
        .get("policyName")
        .and_then(Value::as_str)
        .unwrap_or("")
        .is_empty()
    {
        errs.push(FieldError::required("spec.policyName", ""));
    }
    let actions: Vec<&str> = items(&spec, "validationActions")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    if actions.is_empty() {
        errs.push(FieldError::required("spec.validationActions", ""));
    }
    for (i, action) in actions.iter().enumerate() {
        if !ACTIONS.contains(action) {
            errs.push(FieldError::not_supported(
                format!("spec.validationActions[{i}]"),
                (*action).into(),
                &quoted(&ACTIONS),
            ));
        }
    }
    if actions.contains(&"Deny") && actions.contains(&"Warn") {
        errs.push(FieldError::invalid(
            "spec.validationActions",
            Value::from(actions.clone()),
            "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
        ));
    }
    if let Some(r) = spec.get("paramRef") {
        let named = r
            .get("name")
            .and_then(Value::as_str)
            .is_some_and(|n| !n.is_empty());
        if named == r.get("selector").is_some() {
            errs.push(FieldError::required(
                "spec.paramRef",
                "one of `name` or `selector` must be set",
            ));
        }
        one_of(
            "spec.paramRef.parameterNotFoundAction".into(),
            r.get("parameterNotFoundAction"),
            &NOT_FOUND_ACTIONS,
            &mut errs,
        );
    }
    if let Some(m) = spec.get("matchResources") {
        match_resources_errors("spec.matchResources", m, false, &mut errs);
    }
    errs
}

impl Strategy for PolicyStrategy {
    fn prepare_for_create(&self, obj: &mut Value) {
        default_policy(obj);
    }
    fn prepare_for_update(&self, new: &mut Value, _old: &Value) {
        default_policy(new);
    }
    fn validate(&self, obj: &Value) -> Vec<Cause> {
        causes(&policy_errors(obj))
    }
}

impl Strategy for BindingStrategy {
    fn prepare_for_create(&self, obj: &mut Value) {
        default_binding(obj);
    }
    fn prepare_for_update(&self, new: &mut Value, _old: &Value) {
        default_binding(new);
    }
    fn validate(&self, obj: &Value) -> Vec<Cause> {
        causes(&binding_errors(obj))
    }
}

#[cfg(test)]
#[path = "admission_policies_tests.rs"]
mod tests;
