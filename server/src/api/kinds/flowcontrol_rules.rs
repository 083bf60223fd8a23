//! kube-apiserver's semantic checks of FlowSchema specs, in its words (the
//! schema has already checked types and required fields); the shared
//! wording helpers. PriorityLevelConfiguration's: `flowcontrol_level_rules`.

use serde_json::Value;

pub use super::flowcontrol_level_rules::priority_level_causes;
use crate::api::error::Cause;
use crate::api::kind::NameRule;
use crate::api::meta::name_problem;

const VERBS: [&str; 9] = [
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "proxy",
    "update",
    "watch",
];

fn strings(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

pub(super) fn int(v: Option<&Value>) -> i64 {
    v.and_then(Value::as_i64).unwrap_or(0)
}

/// Go's `%#v` of a string slice: `[]string{"a", "b"}`.
fn go_slice(list: &[&str]) -> String {
    let quoted: Vec<String> = list.iter().map(|s| format!("{s:?}")).collect();
    format!("[]string{{{}}}", quoted.join(", "))
}

pub(super) fn invalid_raw(field: &str, shown: &str, detail: &str) -> Cause {
    Cause::new(
        "FieldValueInvalid",
        field,
        format!("Invalid value: {shown}: {detail}"),
    )
}

pub(super) fn required(field: &str, detail: &str) -> Cause {
    let message = if detail.is_empty() {
        "Required value".to_string()
    } else {
        format!("Required value: {detail}")
    };
    Cause::new("FieldValueRequired", field, message)
}

pub(super) fn not_supported(field: &str, shown: &str, supported: &[&str]) -> Cause {
    let list: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
    Cause::new(
        "FieldValueNotSupported",
        field,
        format!(
            "Unsupported value: {shown}: supported values: {}",
            list.join(", ")
        ),
    )
}

/// A list that may be `["*"]` but not `*` among others.
fn wildcard_alone(causes: &mut Vec<Cause>, field: &str, list: &[&str], what: &str) {
    if list.len() > 1 && list.contains(&"*") {
        causes.push(invalid_raw(
            field,
            &go_slice(list),
            &format!("if '*' is present, must not specify other {what}"),
        ));
    }
}

fn verbs(causes: &mut Vec<Cause>, at: &str, rule: &Value) {
    let field = format!("{at}.verbs");
    let list = strings(rule.get("verbs"));
    if list.is_empty() {
        causes.push(required(&field, "verbs must contain at least one value"));
    } else if list.contains(&"*") {
        wildcard_alone(causes, &field, &list, "verbs");
    } else if list.iter().any(|v| !VERBS.contains(v)) {
        causes.push(not_supported(&field, &go_slice(&list), &VERBS));
    }
}

fn resource_rule(causes: &mut Vec<Cause>, at: &str, rule: &Value) {
    verbs(causes, at, rule);
    for (field, what, message) in [
        (
            "apiGroups",
            "api groups",
            "resource rules must supply at least one api group",
        ),
        (
            "resources",
            "resources",
            "resource rules must supply at least one resource",
        ),
    ] {
        let list = strings(rule.get(field));
        let path = format!("{at}.{field}");
        if list.is_empty() {
            causes.push(required(&path, message));
        } else {
            wildcard_alone(causes, &path, &list, what);
        }
    }
    let namespaces = strings(rule.get("namespaces"));
    let path = format!("{at}.namespaces");
    let cluster_scope = rule.get("clusterScope").and_then(Value::as_bool) == Some(true);
    if namespaces.is_empty() && !cluster_scope {
        causes.push(required(
            &path,
            "resource rules that are not cluster scoped must supply at least one namespace",
        ));
    } else if namespaces.contains(&"*") {
        wildcard_alone(causes, &path, &namespaces, "namespaces");
    } else {
        for (i, ns) in namespaces.iter().enumerate() {
            if let Some(problem) = name_problem(ns, NameRule::Label) {
                causes.push(Cause::invalid(
                    format!("{path}[{i}]"),
                    ns,
                    &format!("each member of this list must be '*' or a DNS-1123 label; {problem}"),
                ));
            }
        }
    }
}

fn url_problem(url: &str) -> Option<&'static str> {
    if url.is_empty() {
        return Some("must not be empty");
    }
    if url == "/" {
        return None;
    }
    if !url.starts_with('/') {
        return Some("must start with slash");
    }
    if url.contains(' ') {
        return Some("must not contain white-space");
    }
    if url.contains("//") {
        return Some("must not contain double slash");
    }
    let stars = url.matches('*').count();
    (stars > 1 || (stars == 1 && !url.ends_with("/*")))
        .then_some("wildcard can only do suffix matching")
}

fn non_resource_rule(causes: &mut Vec<Cause>, at: &str, rule: &Value) {
    verbs(causes, at, rule);
    let path = format!("{at}.nonResourceURLs");
    let urls = strings(rule.get("nonResourceURLs"));
    if urls.is_empty() {
        causes.push(required(
            &path,
            "nonResourceURLs must contain at least one value",
        ));
    } else if urls.contains(&"*") {
        wildcard_alone(causes, &path, &urls, "non-resource URLs");
    } else {
        for (i, url) in urls.iter().enumerate() {
            if let Some(problem) = url_problem(url) {
                causes.push(Cause::invalid(format!("{path}[{i}]"), url, problem));
            }
        }
    }
}

fn subject(causes: &mut Vec<Cause>, at: &str, s: &Value) {
    let kind = s.get("kind").and_then(Value::as_str).unwrap_or_default();
    let (own, others): (&str, [(&str, &str); 2]) = match kind {
        "ServiceAccount" => ("serviceAccount", [("user", "User"), ("group", "Group")]),
        "User" => (
            "user",
            [("serviceAccount", "ServiceAccount"), ("group", "Group")],
        ),
        "Group" => (
            "group",
            [("serviceAccount", "ServiceAccount"), ("user", "User")],
        ),
        _ => {
            causes.push(not_supported(
                &format!("{at}.kind"),
                &format!("{kind:?}"),
                &["Group", "ServiceAccount", "User"],
            ));
            return;
        }
    };
    match s.get(own) {
        None | Some(Value::Null) => causes.push(required(
            &format!("{at}.{own}"),
            &format!("{own} is required when subject kind is '{kind}'"),
        )),
        Some(body) => {
            if kind == "ServiceAccount" && body.get("namespace").and_then(Value::as_str) == Some("")
            {
                causes.push(required(
                    &format!("{at}.serviceAccount.namespace"),
                    "must specify namespace for service account",
                ));
            }
            if body.get("name").and_then(Value::as_str) == Some("") {
                causes.push(required(&format!("{at}.{own}.name"), ""));
            }
        }
    }
    for (other, other_kind) in others {
        if s.get(other).is_some_and(|v| !v.is_null()) {
            causes.push(Cause::forbidden(
                format!("{at}.{other}"),
                &format!("{other} is forbidden when subject kind is not '{other_kind}'"),
            ));
        }
    }
}

/// The semantic causes of a FlowSchema.
#[must_use]
pub fn flow_schema_causes(obj: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let spec = obj.get("spec").unwrap_or(&Value::Null);
    let name = obj
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let precedence = int(spec.get("matchingPrecedence"));
    let field = "spec.matchingPrecedence";
    if precedence <= 0 {
        causes.push(invalid_raw(
            field,
            &precedence.to_string(),
            "must be a positive value",
        ));
    }
    if precedence > 10000 {
        causes.push(invalid_raw(
            field,
            &precedence.to_string(),
            "must not be greater than 10000",
        ));
    }
    if precedence == 1 && name != "exempt" {
        causes.push(invalid_raw(
            field,
            "1",
            "only the schema named 'exempt' may have matchingPrecedence 1",
        ));
    }
    if let Some(method) = spec
        .pointer("/distinguisherMethod/type")
        .and_then(Value::as_str)
        && !matches!(method, "ByNamespace" | "ByUser")
    {
        causes.push(not_supported(
            "spec.distinguisherMethod.type",
            &format!("{method:?}"),
            &["ByNamespace", "ByUser"],
        ));
    }
    match spec
        .pointer("/priorityLevelConfiguration/name")
        .and_then(Value::as_str)
    {
        None | Some("") => causes.push(required(
            "spec.priorityLevelConfiguration.name",
            "must reference a priority level",
        )),
        Some(level) => {
            if let Some(problem) = name_problem(level, NameRule::Subdomain) {
                causes.push(Cause::invalid(
                    "spec.priorityLevelConfiguration.name",
                    level,
                    &problem,
                ));
            }
        }
    }
    let rules = spec
        .get("rules")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for (i, rule) in rules.iter().enumerate() {
        let at = format!("spec.rules[{i}]");
        let subjects = rule
            .get("subjects")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        if subjects.is_empty() {
            causes.push(required(
                &format!("{at}.subjects"),
                "subjects must contain at least one value",
            ));
        }
        for (j, s) in subjects.iter().enumerate() {
            subject(&mut causes, &format!("{at}.subjects[{j}]"), s);
        }
        let resource_rules = rule
            .get("resourceRules")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        let url_rules = rule
            .get("nonResourceRules")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        if resource_rules.is_empty() && url_rules.is_empty() {
            causes.push(required(
                &at,
                "at least one of resourceRules and nonResourceRules has to be non-empty",
            ));
        }
        for (j, r) in resource_rules.iter().enumerate() {
            resource_rule(&mut causes, &format!("{at}.resourceRules[{j}]"), r);
        }
        for (j, r) in url_rules.iter().enumerate() {
            non_resource_rule(&mut causes, &format!("{at}.nonResourceRules[{j}]"), r);
        }
    }
    causes
}

#[cfg(test)]
#[path = "flowcontrol_rules_tests.rs"]
mod tests;
