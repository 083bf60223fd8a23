//! Computed Table cells the apps/v1 and batch/v1 printers share: replica
//! counts read as 0 when unset, a pod template's containers and images,
//! and label selectors in kubectl's text form.

use serde_json::{Map, Value};

use super::checks::items_at;

/// The integer at `pointer`; 0 when unset, as Go's printers show it.
#[must_use]
pub fn count(obj: &Value, pointer: &str) -> i64 {
    obj.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

/// `ready/desired` from two pointers.
#[must_use]
pub fn ratio(obj: &Value, ready: &str, desired: &str) -> Value {
    Value::from(format!("{}/{}", count(obj, ready), count(obj, desired)))
}

fn container_field(obj: &Value, template: &str, field: &str) -> Value {
    let list: Vec<&str> = items_at(obj, &format!("{template}/spec/containers"))
        .iter()
        .filter_map(|c| c.get(field).and_then(Value::as_str))
        .collect();
    Value::from(list.join(","))
}

/// The template's container names, comma-separated.
#[must_use]
pub fn containers(obj: &Value, template: &str) -> Value {
    container_field(obj, template, "name")
}

/// The template's container images, comma-separated.
#[must_use]
pub fn images(obj: &Value, template: &str) -> Value {
    container_field(obj, template, "image")
}

/// `k=v,...` of a string map, sorted; `<none>` when empty.
#[must_use]
pub fn format_labels(labels: Option<&Map<String, Value>>) -> String {
    let mut pairs: Vec<String> = labels
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    pairs.sort();
    if pairs.is_empty() {
        "<none>".into()
    } else {
        pairs.join(",")
    }
}

fn requirement(expression: &Value) -> String {
    let key = expression.get("key").and_then(Value::as_str).unwrap_or("");
    let mut values: Vec<&str> = expression
        .get("values")
        .and_then(Value::as_array)
        .map(|v| v.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    values.sort_unstable();
    match expression.get("operator").and_then(Value::as_str) {
        Some("In") => format!("{key} in ({})", values.join(",")),
        Some("NotIn") => format!("{key} notin ({})", values.join(",")),
        Some("DoesNotExist") => format!("!{key}"),
        _ => key.to_owned(),
    }
}

/// A `metav1.LabelSelector` as kubectl prints it (`app=web,tier in (a,b)`,
/// requirements sorted by key, `!canary` under `canary`); `<none>` when it has no terms.
#[must_use]
pub fn format_selector(selector: Option<&Value>) -> Value {
    let text = selector.map(selector_text).unwrap_or_default();
    Value::from(if text.is_empty() {
        "<none>".to_owned()
    } else {
        text
    })
}

/// A `metav1.LabelSelector` in label-selector syntax (a Scale's
/// `status.selector`); empty when it has no terms.
#[must_use]
pub fn selector_text(selector: &Value) -> String {
    if !selector.is_object() {
        return String::new();
    }
    let mut terms: Vec<(String, String)> = selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), format!("{k}={}", v.as_str().unwrap_or_default())))
        .collect();
    for expression in items_at(selector, "/matchExpressions") {
        let key = expression.get("key").and_then(Value::as_str).unwrap_or("");
        terms.push((key.to_owned(), requirement(expression)));
    }
    terms.sort();
    let text: Vec<String> = terms.into_iter().map(|(_, t)| t).collect();
    text.join(",")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn selectors_print_as_kubectl_prints_them() {
        let selector = json!({"matchLabels": {"app": "web"},
            "matchExpressions": [{"key": "tier", "operator": "In", "values": ["b", "a"]}, {"key": "canary", "operator": "DoesNotExist"}]});
        assert_eq!(
            format_selector(Some(&selector)),
            json!("app=web,!canary,tier in (a,b)")
        );
        assert_eq!(format_selector(Some(&json!({}))), json!("<none>"));
    }

    #[test]
    fn containers_and_images_join_with_commas() {
        let d = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "a", "image": "nginx"}, {"name": "b", "image": "busybox"}]}}}});
        assert_eq!(containers(&d, "/spec/template"), json!("a,b"));
        assert_eq!(images(&d, "/spec/template"), json!("nginx,busybox"));
        assert_eq!(
            ratio(&d, "/status/readyReplicas", "/spec/replicas"),
            json!("0/0")
        );
    }
}
