//! `metav1.LabelSelector` as workloads use it: whether it selects a set of
//! labels, its validation, and how Go prints it in validation messages.

use serde_json::{Map, Value};

use crate::api::error::Cause;
use crate::api::schema::go_quote;

fn expressions(selector: &Value) -> &[Value] {
    selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn match_labels(selector: &Value) -> Option<&Map<String, Value>> {
    selector.get("matchLabels").and_then(Value::as_object)
}

fn values(expression: &Value) -> Vec<&str> {
    expression
        .get("values")
        .and_then(Value::as_array)
        .map(|v| v.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Whether the selector has no terms (it would select everything).
#[must_use]
pub fn is_empty(selector: &Value) -> bool {
    match_labels(selector).is_none_or(Map::is_empty) && expressions(selector).is_empty()
}

/// Whether `selector` selects an object with `labels`.
#[must_use]
pub fn matches(selector: &Value, labels: Option<&Map<String, Value>>) -> bool {
    let label = |key: &str| labels.and_then(|l| l.get(key)).and_then(Value::as_str);
    let by_labels = match_labels(selector)
        .into_iter()
        .flatten()
        .all(|(k, v)| label(k).is_some() && label(k) == v.as_str());
    by_labels
        && expressions(selector).iter().all(|e| {
            let key = e.get("key").and_then(Value::as_str).unwrap_or_default();
            let listed = |v: &str| values(e).contains(&v);
            match e
                .get("operator")
                .and_then(Value::as_str)
                .unwrap_or_default()
            {
                "In" => label(key).is_some_and(listed),
                "NotIn" => !label(key).is_some_and(listed),
                "Exists" => label(key).is_some(),
                "DoesNotExist" => label(key).is_none(),
                _ => false,
            }
        })
}

/// The selector's own mistakes (operators and their values), under `path`.
#[must_use]
pub fn errors(selector: &Value, path: &str) -> Vec<Cause> {
    let mut out = Vec::new();
    for (i, expression) in expressions(selector).iter().enumerate() {
        let here = format!("{path}.matchExpressions[{i}]");
        let operator = expression
            .get("operator")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let count = values(expression).len();
        match operator {
            "In" | "NotIn" if count == 0 => out.push(Cause::new(
                "FieldValueRequired",
                format!("{here}.values"),
                "Required value: must be specified when `operator` is 'In' or 'NotIn'",
            )),
            "Exists" | "DoesNotExist" if count > 0 => out.push(Cause::forbidden(
                format!("{here}.values"),
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            other => out.push(Cause::new(
                "FieldValueInvalid",
                format!("{here}.operator"),
                format!(
                    "Invalid value: {}: not a valid selector operator",
                    go_quote(other)
                ),
            )),
        }
    }
    out
}

/// Go's `%#v` of a `map[string]string`.
#[must_use]
pub fn go_string_map(labels: Option<&Map<String, Value>>) -> String {
    let Some(labels) = labels else {
        return "map[string]string(nil)".to_owned();
    };
    let mut entries: Vec<(&String, &Value)> = labels.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    let inner: Vec<String> = entries
        .iter()
        .map(|(k, v)| {
            format!(
                "{}:{}",
                go_quote(k),
                go_quote(v.as_str().unwrap_or_default())
            )
        })
        .collect();
    format!("map[string]string{{{}}}", inner.join(", "))
}

fn go_requirement(expression: &Value) -> String {
    let field = |name: &str| expression.get(name).and_then(Value::as_str).unwrap_or("");
    let list = expression.get("values").and_then(Value::as_array);
    let values = match list {
        None => "[]string(nil)".to_owned(),
        Some(items) => {
            let quoted: Vec<String> = items
                .iter()
                .map(|v| go_quote(v.as_str().unwrap_or_default()))
                .collect();
            format!("[]string{{{}}}", quoted.join(", "))
        }
    };
    format!(
        "v1.LabelSelectorRequirement{{Key:{}, Operator:{}, Values:{values}}}",
        go_quote(field("key")),
        go_quote(field("operator"))
    )
}

/// Go's `%#v` of a `metav1.LabelSelector`, as apps validation prints it.
#[must_use]
pub fn go_label_selector(selector: &Value) -> String {
    let expressions = match selector.get("matchExpressions").and_then(Value::as_array) {
        None => "[]v1.LabelSelectorRequirement(nil)".to_owned(),
        Some(list) => {
            let inner: Vec<String> = list.iter().map(go_requirement).collect();
            format!("[]v1.LabelSelectorRequirement{{{}}}", inner.join(", "))
        }
    };
    format!(
        "v1.LabelSelector{{MatchLabels:{}, MatchExpressions:{expressions}}}",
        go_string_map(match_labels(selector))
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn labels_and_expressions_both_must_match() {
        let selector = json!({"matchLabels": {"app": "web"},
            "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]},
                                 {"key": "canary", "operator": "DoesNotExist"}]});
        let labels = json!({"app": "web", "tier": "a"});
        assert!(matches(&selector, labels.as_object()));
        let canary = json!({"app": "web", "tier": "a", "canary": "1"});
        assert!(!matches(&selector, canary.as_object()));
        assert!(!matches(&selector, None));
        assert!(is_empty(&json!({"matchLabels": {}})));
    }

    #[test]
    fn go_prints_a_selector_as_kubernetes_messages_show_it() {
        assert_eq!(
            go_label_selector(&json!({"matchLabels": {"app": "x"}})),
            "v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"x\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}"
        );
    }

    #[test]
    fn operators_are_checked() {
        let selector = json!({"matchExpressions": [{"key": "a", "operator": "In"}, {"key": "b", "operator": "Near"}]});
        let lines: Vec<String> = errors(&selector, "spec.selector")
            .iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect();
        assert_eq!(
            lines,
            [
                "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
                "spec.selector.matchExpressions[1].operator: Invalid value: \"Near\": not a valid selector operator"
            ]
        );
    }
}
