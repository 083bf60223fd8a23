//! policy/v1 PodDisruptionBudget checks (minAvailable xor maxUnavailable,
//! each a non-negative count or a percentage up to 100%) and the selector
//! checks NetworkPolicy shares.

use serde_json::Value;

use super::label_selector;
use crate::api::error::Cause;

const EVICTION_POLICIES: &str = "\"AlwaysAllow\", \"IfHealthyBudget\"";

/// Every PodDisruptionBudget check.
#[must_use]
pub fn checks(obj: &Value) -> Vec<Cause> {
    let mut out = Vec::new();
    let min = obj.pointer("/spec/minAvailable").filter(|v| !v.is_null());
    let max = obj.pointer("/spec/maxUnavailable").filter(|v| !v.is_null());
    if min.is_some() && max.is_some() {
        out.push(Cause::invalid(
            "spec",
            "object",
            "minAvailable and maxUnavailable cannot be both set",
        ));
    }
    for (field, value) in [("spec.minAvailable", min), ("spec.maxUnavailable", max)] {
        if let Some(value) = value {
            int_or_percent_causes(value, field, &mut out);
        }
    }
    if let Some(selector) = obj.pointer("/spec/selector").filter(|s| s.is_object()) {
        out.extend(label_selector::errors(selector, "spec.selector"));
    }
    match obj
        .pointer("/spec/unhealthyPodEvictionPolicy")
        .and_then(Value::as_str)
    {
        None | Some("AlwaysAllow" | "IfHealthyBudget") => {}
        Some(other) => out.push(Cause::new(
            "FieldValueNotSupported",
            "spec.unhealthyPodEvictionPolicy",
            format!("Unsupported value: {other:?}: supported values: {EVICTION_POLICIES}"),
        )),
    }
    out
}

fn int_or_percent_causes(value: &Value, field: &str, out: &mut Vec<Cause>) {
    match value {
        Value::Number(n) if n.as_i64().is_some_and(|n| n < 0) => out.push(Cause::new(
            "FieldValueInvalid",
            field,
            format!("Invalid value: {n}: must be greater than or equal to 0"),
        )),
        Value::String(s) => match s.strip_suffix('%').map(str::parse::<u64>) {
            Some(Ok(percent)) if percent > 100 => {
                out.push(Cause::invalid(field, s, "must not be greater than 100%"));
            }
            Some(Ok(_)) => {}
            _ => out.push(Cause::invalid(
                field,
                s,
                "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
            )),
        },
        _ => {}
    }
}

/// A NetworkPolicy's selectors are well formed.
#[must_use]
pub fn network_policy_checks(obj: &Value) -> Vec<Cause> {
    let mut out = Vec::new();
    if let Some(selector) = obj.pointer("/spec/podSelector").filter(|s| s.is_object()) {
        out.extend(label_selector::errors(selector, "spec.podSelector"));
    }
    for (i, t) in super::checks::items_at(obj, "/spec/policyTypes")
        .iter()
        .enumerate()
    {
        let t = t.as_str().unwrap_or_default();
        if t != "Ingress" && t != "Egress" {
            out.push(Cause::new(
                "FieldValueNotSupported",
                format!("spec.policyTypes[{i}]"),
                format!("Unsupported value: {t:?}: supported values: \"Egress\", \"Ingress\""),
            ));
        }
    }
    out
}

/// Whether the budget's selector selects a pod with `labels` (9.3: an
/// empty selector selects every pod of the namespace; none selects none).
#[must_use]
pub fn selects(budget: &Value, labels: Option<&serde_json::Map<String, Value>>) -> bool {
    budget
        .pointer("/spec/selector")
        .filter(|s| s.is_object())
        .is_some_and(|s| label_selector::matches(s, labels))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::cause_lines;
    use super::*;

    #[test]
    fn a_budget_has_one_bound() {
        assert!(checks(&json!({"spec": {"minAvailable": 1}})).is_empty());
        assert!(checks(&json!({"spec": {"maxUnavailable": "50%"}})).is_empty());
        assert_eq!(
            cause_lines(&checks(
                &json!({"spec": {"minAvailable": 1, "maxUnavailable": 1}})
            )),
            ["spec: Invalid value: \"object\": minAvailable and maxUnavailable cannot be both set"]
        );
        assert_eq!(
            cause_lines(&checks(&json!({"spec": {"minAvailable": -1}}))),
            ["spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"]
        );
        assert_eq!(
            cause_lines(&checks(&json!({"spec": {"maxUnavailable": "150%"}}))),
            ["spec.maxUnavailable: Invalid value: \"150%\": must not be greater than 100%"]
        );
    }

    #[test]
    fn an_empty_selector_selects_every_pod_and_none_selects_none() {
        let labels = json!({"app": "web"});
        let labels = labels.as_object();
        assert!(selects(&json!({"spec": {"selector": {}}}), labels));
        assert!(selects(
            &json!({"spec": {"selector": {"matchLabels": {"app": "web"}}}}),
            labels
        ));
        assert!(!selects(
            &json!({"spec": {"selector": {"matchLabels": {"app": "db"}}}}),
            labels
        ));
        assert!(!selects(&json!({"spec": {}}), labels));
    }
}
