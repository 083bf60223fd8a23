//! Webhook configurations' v1 defaults and validation, in kube-apiserver
//! 1.32's words: names fully qualified and unique, rules, sideEffects
//! (None or NoneOnDryRun), admissionReviewVersions (one of v1, v1beta1),
//! timeoutSeconds 1–30 (default 10), failurePolicy (default Fail),
//! matchPolicy (default Equivalent), selectors (default `{}`),
//! reinvocationPolicy (default Never), and a client config with exactly
//! one of an https `url` or a `service` (port default 443).

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::checks::{causes, default_field};
use super::label_selector;
use crate::api::cel::Expression;
use crate::api::error::Cause;
use crate::api::kind::{NameRule, Strategy};
use crate::api::meta::name_problem;
use crate::api::schema::{FieldError, go_quote};

const OPERATIONS: [&str; 5] = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
const SCOPES: [&str; 3] = ["*", "Cluster", "Namespaced"];
const REVIEW_VERSIONS: [&str; 2] = ["v1", "v1beta1"];

pub struct WebhookConfigurationStrategy {
    pub mutating: bool,
}

impl Strategy for WebhookConfigurationStrategy {
    fn prepare_for_create(&self, obj: &mut Value) {
        default_webhooks(obj, self.mutating);
    }
    fn prepare_for_update(&self, new: &mut Value, _old: &Value) {
        default_webhooks(new, self.mutating);
    }
    fn validate(&self, obj: &Value) -> Vec<Cause> {
        webhook_errors(obj, self.mutating)
    }
}

/// kube's v1 defaults of every webhook.
pub fn default_webhooks(obj: &mut Value, mutating: bool) {
    let Some(hooks) = obj.get_mut("webhooks").and_then(Value::as_array_mut) else {
        return;
    };
    for hook in hooks.iter_mut().filter_map(Value::as_object_mut) {
        default_field(hook, "failurePolicy", "Fail".into());
        default_field(hook, "matchPolicy", "Equivalent".into());
        default_field(hook, "namespaceSelector", json!({}));
        default_field(hook, "objectSelector", json!({}));
        default_field(hook, "timeoutSeconds", 10.into());
        if mutating {
            default_field(hook, "reinvocationPolicy", "Never".into());
        }
        if let Some(rules) = hook.get_mut("rules").and_then(Value::as_array_mut) {
            for rule in rules.iter_mut().filter_map(Value::as_object_mut) {
                default_field(rule, "scope", "*".into());
            }
        }
        if let Some(service) = hook
            .get_mut("clientConfig")
            .and_then(|c| c.get_mut("service"))
            .and_then(Value::as_object_mut)
        {
            default_field(service, "port", 443.into());
        }
    }
}

pub(super) fn strings(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn text<'a>(hook: &'a Map<String, Value>, field: &str) -> Option<&'a str> {
    hook.get(field).and_then(Value::as_str)
}

pub(super) fn quoted(list: &[&str]) -> Vec<Value> {
    list.iter().map(|s| Value::from(*s)).collect()
}

/// Every problem of the configuration's webhooks, as a 422's causes.
#[must_use]
pub fn webhook_errors(obj: &Value, mutating: bool) -> Vec<Cause> {
    let mut errs: Vec<Cause> = Vec::new();
    let mut seen = BTreeSet::new();
    let hooks = obj.get("webhooks").and_then(Value::as_array);
    for (i, hook) in hooks.into_iter().flatten().enumerate() {
        let at = format!("webhooks[{i}]");
        let Some(hook) = hook.as_object() else {
            continue;
        };
        let name = text(hook, "name").unwrap_or_default();
        if !name.is_empty() && !seen.insert(name) {
            errs.extend(causes(&[FieldError::duplicate(
                format!("{at}.name"),
                name.into(),
            )]));
        } else {
            errs.extend(causes(&qualified_name(&format!("{at}.name"), name)));
        }
        for (j, rule) in hook
            .get("rules")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            errs.extend(causes(&rule_errors(&format!("{at}.rules[{j}]"), rule)));
        }
        errs.extend(causes(&enum_errors(hook, &at, mutating)));
        errs.extend(review_version_errors(
            &format!("{at}.admissionReviewVersions"),
            &strings(hook.get("admissionReviewVersions")),
        ));
        if let Some(t) = hook.get("timeoutSeconds").and_then(Value::as_i64)
            && !(1..=30).contains(&t)
        {
            errs.extend(causes(&[FieldError::invalid(
                format!("{at}.timeoutSeconds"),
                t.into(),
                "the timeout value must be between 1 and 30 seconds",
            )]));
        }
        for selector in ["namespaceSelector", "objectSelector"] {
            if let Some(s) = hook.get(selector) {
                errs.extend(label_selector::errors(s, &format!("{at}.{selector}")));
            }
        }
        errs.extend(causes(&condition_errors(
            &format!("{at}.matchConditions"),
            hook.get("matchConditions"),
        )));
        errs.extend(causes(&client_config_errors(
            &format!("{at}.clientConfig"),
            hook.get("clientConfig"),
        )));
    }
    errs
}

fn qualified_name(at: &str, name: &str) -> Vec<FieldError> {
    if name.is_empty() {
        return vec![FieldError::required(at, "")];
    }
    if let Some(problem) = name_problem(name, NameRule::Subdomain) {
        return vec![FieldError::invalid(at, name.into(), problem)];
    }
    if name.split('.').count() < 3 {
        return vec![FieldError::invalid(
            at,
            name.into(),
            "should be a domain with at least three segments separated by dots",
        )];
    }
    Vec::new()
}

fn enum_errors(hook: &Map<String, Value>, at: &str, mutating: bool) -> Vec<FieldError> {
    let mut errs = Vec::new();
    match text(hook, "sideEffects") {
        None | Some("") => errs.push(FieldError::required(
            format!("{at}.sideEffects"),
            "must specify one of None, NoneOnDryRun",
        )),
        Some("None" | "NoneOnDryRun") => {}
        Some(other) => errs.push(FieldError::not_supported(
            format!("{at}.sideEffects"),
            other.into(),
            &quoted(&["None", "NoneOnDryRun"]),
        )),
    }
    let mut choice = |field: &str, allowed: &[&str]| {
        if let Some(v) = text(hook, field)
            && !allowed.contains(&v)
        {
            errs.push(FieldError::not_supported(
                format!("{at}.{field}"),
                v.into(),
                &quoted(allowed),
            ));
        }
    };
    choice("failurePolicy", &["Fail", "Ignore"]);
    choice("matchPolicy", &["Equivalent", "Exact"]);
    if mutating {
        choice("reinvocationPolicy", &["IfNeeded", "Never"]);
    }
    errs
}

fn review_version_errors(at: &str, versions: &[&str]) -> Vec<Cause> {
    if versions.is_empty() {
        return causes(&[FieldError::required(
            at,
            format!("must specify one of {}", REVIEW_VERSIONS.join(", ")),
        )]);
    }
    let mut errs = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, v) in versions.iter().enumerate() {
        if !seen.insert(*v) {
            errs.extend(causes(&[FieldError::invalid(
                format!("{at}[{i}]"),
                (*v).into(),
                "duplicate version",
            )]));
        }
    }
    if !versions.iter().any(|v| REVIEW_VERSIONS.contains(v)) {
        // Go prints the list as the []string it is.
        let shown: Vec<String> = versions.iter().map(|v| go_quote(v)).collect();
        errs.push(Cause::new(
            "FieldValueInvalid",
            at,
            format!(
                "Invalid value: []string{{{}}}: must include at least one of {}",
                shown.join(", "),
                REVIEW_VERSIONS.join(", ")
            ),
        ));
    }
    errs
}

pub(super) fn rule_errors(at: &str, rule: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let operations = strings(rule.get("operations"));
    if operations.is_empty() {
        errs.push(FieldError::required(format!("{at}.operations"), ""));
    } else if operations.len() > 1 && operations.contains(&"*") {
        errs.push(FieldError::invalid(
            format!("{at}.operations"),
            Value::from(operations.clone()),
            "if '*' is present, must not specify other operations",
        ));
    }
    for (i, op) in operations.iter().enumerate() {
        if !OPERATIONS.contains(op) {
            errs.push(FieldError::not_supported(
                format!("{at}.operations[{i}]"),
                (*op).into(),
                &quoted(&OPERATIONS),
            ));
        }
    }
    for field in ["apiGroups", "apiVersions"] {
        let list = strings(rule.get(field));
        if list.is_empty() {
            errs.push(FieldError::required(format!("{at}.{field}"), ""));
        } else if list.len() > 1 && list.contains(&"*") {
            errs.push(FieldError::invalid(
                format!("{at}.{field}"),
                Value::from(list.clone()),
                format!("if '*' is present, must not specify other {field}"),
            ));
        }
        if field == "apiVersions" && list.contains(&"") {
            errs.push(FieldError::required(
                format!("{at}.{field}"),
                "must not be empty",
            ));
        }
    }
    let resources = strings(rule.get("resources"));
    if resources.is_empty() {
        errs.push(FieldError::required(format!("{at}.resources"), ""));
    }
    for (i, r) in resources.iter().enumerate() {
        if r.is_empty() {
            errs.push(FieldError::required(format!("{at}.resources[{i}]"), ""));
        } else if r.split('/').count() > 2 {
            errs.push(FieldError::invalid(
                format!("{at}.resources[{i}]"),
                (*r).into(),
                "must be of the form 'resource', 'resource/subresource', '*', '*/*', 'resource/*' or '*/subresource'",
            ));
        }
    }
    if let Some(scope) = rule.get("scope").and_then(Value::as_str)
        && !SCOPES.contains(&scope)
    {
        errs.push(FieldError::not_supported(
            format!("{at}.scope"),
            scope.into(),
            &quoted(&SCOPES),
        ));
    }
    errs
}

fn client_config_errors(at: &str, config: Option<&Value>) -> Vec<FieldError> {
    let url = config.and_then(|c| c.get("url")).and_then(Value::as_str);
    let service = config
        .and_then(|c| c.get("service"))
        .filter(|s| !s.is_null());
    match (url, service) {
        (Some(url), None) => url_errors(&format!("{at}.url"), url),
        (None, Some(service)) => service_errors(&format!("{at}.service"), service),
        _ => vec![FieldError::required(
            at,
            "exactly one of url or service is required",
        )],
    }
}

/// The variables a webhook's match conditions may name.
const CONDITION_VARIABLES: [&str; 3] = ["object", "oldObject", "request"];

/// At most 64 conditions, named uniquely, each compiling.
fn condition_errors(at: &str, conditions: Option<&Value>) -> Vec<FieldError> {
    let list = conditions
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let mut errs = Vec::new();
    if list.len() > 64 {
        errs.push(FieldError::too_many(at, list.len() as u64, 64));
    }
    let mut names = BTreeSet::new();
    for (i, condition) in list.iter().enumerate() {
        let name = condition.get("name").and_then(Value::as_str).unwrap_or("");
        if !name.is_empty() && !names.insert(name) {
            errs.push(FieldError::duplicate(
                format!("{at}[{i}].name"),
                name.into(),
            ));
        }
        let expression = condition
            .get("expression")
            .and_then(Value::as_str)
            .unwrap_or("");
        if expression.is_empty() {
            errs.push(FieldError::required(format!("{at}[{i}].expression"), ""));
        } else if let Err(e) = Expression::compile(expression, &CONDITION_VARIABLES) {
            errs.push(FieldError::invalid(
                format!("{at}[{i}].expression"),
                expression.into(),
                format!("compilation failed: {e}"),
            ));
        }
    }
    errs
}

fn url_errors(at: &str, url: &str) -> Vec<FieldError> {
    let invalid = |detail: &str| FieldError::invalid(at, url.into(), detail);
    let Some(rest) = url.strip_prefix("https://") else {
        return vec![invalid("'https' is the only allowed URL scheme")];
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let mut errs = Vec::new();
    if authority.contains('@') {
        errs.push(invalid("user information is not permitted in the URL"));
    }
    if authority.is_empty() {
        errs.push(invalid("host must be specified"));
    }
    if url.contains('#') {
        errs.push(invalid("fragments are not permitted in the URL"));
    }
    if url.contains('?') {
        errs.push(invalid("query parameters are not permitted in the URL"));
    }
    errs
}

fn service_errors(at: &str, service: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for field in ["name", "namespace"] {
        if service
            .get(field)
            .and_then(Value::as_str)
            .unwrap_or("")
            .is_empty()
        {
            errs.push(FieldError::required(
                format!("{at}.{field}"),
                format!("service {field} is required"),
            ));
        }
    }
    if let Some(path) = service.get("path").and_then(Value::as_str)
        && !path.is_empty()
        && !path.starts_with('/')
    {
        errs.push(FieldError::invalid(
            format!("{at}.path"),
            path.into(),
            "must start with a '/'",
        ));
    }
    if let Some(port) = service.get("port").and_then(Value::as_i64)
        && !(1..=65535).contains(&port)
    {
        errs.push(FieldError::invalid(
            format!("{at}.port"),
            port.into(),
            "port is not valid: must be between 1 and 65535, inclusive",
        ));
    }
    errs
}

#[cfg(test)]
#[path = "admission_webhooks_tests.rs"]
mod tests;
