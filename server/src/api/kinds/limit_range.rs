//! LimitRange defaults and validation, as Kubernetes has them: a
//! `Container` item's missing `default` comes from `max`, a missing
//! `defaultRequest` from `default`, then from `min`; every value is a
//! quantity, `min ≤ defaultRequest ≤ default ≤ max`, a `Pod` item has no
//! defaults, `maxLimitRequestRatio` is at least 1, and no type repeats.

use serde_json::{Map, Value};

use crate::api::error::Cause;
use crate::api::quantity::{Quantity, canonical_text};

const BOUNDS: [&str; 5] = [
    "max",
    "min",
    "default",
    "defaultRequest",
    "maxLimitRequestRatio",
];

fn section<'a>(item: &'a Value, field: &str) -> Option<&'a Map<String, Value>> {
    item.get(field).and_then(Value::as_object)
}

/// Fills `into[key]` from `from[key]` where `into` lacks it.
fn fill(item: &mut Map<String, Value>, into: &str, from: &str) {
    let Some(source) = item.get(from).and_then(Value::as_object).cloned() else {
        return;
    };
    let target = item
        .entry(into)
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(target) = target.as_object_mut() {
        for (key, value) in source {
            target.entry(key).or_insert(value);
        }
    }
}

/// Kubernetes' defaults of each `Container` item.
pub fn defaults(obj: &mut Value) {
    let Some(items) = obj
        .pointer_mut("/spec/limits")
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    for item in items.iter_mut().filter_map(Value::as_object_mut) {
        if item.get("type").and_then(Value::as_str) != Some("Container") {
            continue;
        }
        fill(item, "default", "max");
        fill(item, "defaultRequest", "default");
        fill(item, "defaultRequest", "min");
    }
}

fn quantity(item: &Value, field: &str, key: &str) -> Option<(Quantity, String)> {
    let text = section(item, field)?.get(key)?.as_str()?;
    Some((Quantity::parse(text).ok()?, canonical_text(text)))
}

/// `lower ≤ upper` for every key both sections have.
fn ordered(item: &Value, at: &str, (lower, upper): (&str, &str), causes: &mut Vec<Cause>) {
    let names = |f: &str| match f {
        "min" => "min value",
        "max" => "max value",
        "default" => "default value",
        _ => "default request value",
    };
    let keys: Vec<&String> = section(item, lower)
        .into_iter()
        .flatten()
        .map(|(k, _)| k)
        .collect();
    for key in keys {
        let (Some((low, low_text)), Some((high, high_text))) =
            (quantity(item, lower, key), quantity(item, upper, key))
        else {
            continue;
        };
        if low.compare(&high).is_gt() {
            let upper_name = if (lower, upper) == ("defaultRequest", "default") {
                "default limit value"
            } else {
                names(upper)
            };
            causes.push(Cause::invalid(
                format!("{at}.{lower}[{key}]"),
                &low_text,
                &format!(
                    "{} {low_text} is greater than {upper_name} {high_text}",
                    names(lower)
                ),
            ));
        }
    }
}

/// One item's causes; `at` is `spec.limits[i]`.
fn item_causes(item: &Value, at: &str, causes: &mut Vec<Cause>) {
    let kind = item.get("type").and_then(Value::as_str).unwrap_or_default();
    if kind.is_empty() {
        causes.push(Cause::required(format!("{at}.type")));
    }
    for field in BOUNDS {
        for (key, value) in section(item, field).into_iter().flatten() {
            let valid = value.as_str().is_some_and(|t| Quantity::parse(t).is_ok());
            if !valid {
                causes.push(Cause::invalid(
                    format!("{at}.{field}[{key}]"),
                    &value
                        .as_str()
                        .map_or_else(|| value.to_string(), String::from),
                    crate::api::quantity::QUANTITY_ERROR,
                ));
            }
        }
    }
    if kind == "Pod" {
        for field in ["default", "defaultRequest"] {
            if section(item, field).is_some_and(|m| !m.is_empty()) {
                causes.push(Cause::forbidden(
                    format!("{at}.{field}"),
                    "may not be specified when `type` is 'Pod'",
                ));
            }
        }
    }
    for pair in [
        ("min", "max"),
        ("min", "default"),
        ("default", "max"),
        ("min", "defaultRequest"),
        ("defaultRequest", "max"),
        ("defaultRequest", "default"),
    ] {
        ordered(item, at, pair, causes);
    }
    let one = Quantity::from_int(1);
    for (key, value) in section(item, "maxLimitRequestRatio").into_iter().flatten() {
        let Some(ratio) = value.as_str().and_then(|t| Quantity::parse(t).ok()) else {
            continue;
        };
        if ratio.compare(&one).is_lt() {
            let text = canonical_text(value.as_str().unwrap_or_default());
            causes.push(Cause::invalid(
                format!("{at}.maxLimitRequestRatio[{key}]"),
                &text,
                &format!("ratio {text} is less than 1"),
            ));
        }
    }
}

/// Kubernetes' validation of a LimitRange.
pub fn checks(obj: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    let items = obj.pointer("/spec/limits").and_then(Value::as_array);
    for (i, item) in items.into_iter().flatten().enumerate() {
        let at = format!("spec.limits[{i}]");
        item_causes(item, &at, &mut causes);
        let kind = item.get("type").and_then(Value::as_str).unwrap_or_default();
        if !kind.is_empty() && seen.contains(&kind) {
            causes.push(Cause::new(
                "FieldValueDuplicate",
                format!("{at}.type"),
                format!("Duplicate value: \"{kind}\""),
            ));
        }
        seen.push(kind);
    }
    causes
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn container_items_default_from_max_default_and_min() {
        let mut lr = json!({"spec": {"limits": [
            {"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "64Mi"},
             "default": {"memory": "256Mi"}},
            {"type": "Pod", "max": {"cpu": "4"}}
        ]}});
        defaults(&mut lr);
        let item = &lr["spec"]["limits"][0];
        assert_eq!(item["default"], json!({"cpu": "2", "memory": "256Mi"}));
        assert_eq!(
            item["defaultRequest"],
            json!({"cpu": "2", "memory": "256Mi"})
        );
        assert!(lr["spec"]["limits"][1].get("default").is_none());
        assert!(checks(&lr).is_empty(), "{:?}", checks(&lr));
    }

    #[test]
    fn bounds_out_of_order_bad_quantities_and_repeats_are_named() {
        let lr = json!({"spec": {"limits": [
            {"type": "Container", "min": {"cpu": "2"}, "max": {"cpu": "1"}},
            {"type": "Pod", "default": {"cpu": "1"}, "max": {"memory": "lots"},
             "maxLimitRequestRatio": {"cpu": "500m"}},
            {"type": "Container"}
        ]}});
        let messages: Vec<String> = checks(&lr)
            .iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect();
        for expected in [
            "spec.limits[0].min[cpu]: Invalid value: \"2\": min value 2 is greater than max value 1",
            "spec.limits[1].default: Forbidden: may not be specified when `type` is 'Pod'",
            "spec.limits[1].maxLimitRequestRatio[cpu]: Invalid value: \"500m\": ratio 500m is less than 1",
            "spec.limits[2].type: Duplicate value: \"Container\"",
        ] {
            assert!(
                messages.iter().any(|m| m == expected),
                "{expected} not in {messages:?}"
            );
        }
        assert!(
            messages
                .iter()
                .any(|m| m.starts_with("spec.limits[1].max[memory]: Invalid value")),
            "{messages:?}"
        );
    }
}
