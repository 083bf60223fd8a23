//! Value validations at validation time: numeric bounds, lengths, patterns,
//! item and property counts, junctors (`allOf`, `anyOf`, `oneOf`, `not`) and
//! the uniqueness of `x-kubernetes-list-type: set`/`map` lists — each
//! reported with the words kube-openapi and apiextensions-apiserver use.

use serde_json::{Map, Value};

use super::error::{FieldError, subject};
use super::model::{Limits, Schema};
use super::numbers::{go_float, json_eq};

/// Appends every violation of `schema`'s limits (and list-type uniqueness)
/// by `value`, a value already known to have the node's type.
pub(super) fn check(schema: &Schema, value: &Value, path: &str, errors: &mut Vec<FieldError>) {
    let limits = &schema.limits;
    match value {
        Value::Number(_) => number(limits, value, path, errors),
        Value::String(s) => string(limits, s, path, errors),
        Value::Array(items) => {
            array(limits, items, path, errors);
            unique_items(schema, items, path, errors);
        }
        Value::Object(fields) => object(limits, fields, path, errors),
        _ => {}
    }
    junctors(limits, value, path, errors);
}

fn number(limits: &Limits, value: &Value, path: &str, errors: &mut Vec<FieldError>) {
    let Some(n) = value.as_f64() else {
        return;
    };
    let integral = !value.as_number().is_some_and(serde_json::Number::is_f64);
    let show = |bound: f64| bound_text(bound, integral);
    // Formatted only for an error: every number of every request passes here.
    let subject_text = || subject(path);
    if let Some(max) = limits.maximum {
        let detail = if limits.exclusive_maximum && n >= max {
            Some(format!(
                "{} should be less than {}",
                subject_text(),
                show(max)
            ))
        } else if n > max {
            Some(format!(
                "{} should be less than or equal to {}",
                subject_text(),
                show(max)
            ))
        } else {
            None
        };
        if let Some(detail) = detail {
            errors.push(FieldError::invalid(path, value.clone(), detail));
        }
    }
    if let Some(min) = limits.minimum {
        let detail = if limits.exclusive_minimum && n <= min {
            Some(format!(
                "{} should be greater than {}",
                subject_text(),
                show(min)
            ))
        } else if n < min {
            Some(format!(
                "{} should be greater than or equal to {}",
                subject_text(),
                show(min)
            ))
        } else {
            None
        };
        if let Some(detail) = detail {
            errors.push(FieldError::invalid(path, value.clone(), detail));
        }
    }
    if let Some(factor) = limits.multiple_of
        && factor > 0.0
        && !is_multiple(n, factor)
    {
        errors.push(FieldError::invalid(
            path,
            value.clone(),
            format!(
                "{} should be a multiple of {}",
                subject_text(),
                show(factor)
            ),
        ));
    }
}

/// A bound as kube-openapi prints it: as an integer next to integer data,
/// else with Go's `%v` for floats.
fn bound_text(bound: f64, integral: bool) -> String {
    if integral && bound.fract() == 0.0 && bound.abs() < 9.2e18 {
        #[allow(clippy::cast_possible_truncation)]
        let i = bound as i64;
        i.to_string()
    } else {
        go_float(bound)
    }
}

fn is_multiple(n: f64, factor: f64) -> bool {
    let q = n / factor;
    (q - q.round()).abs() < 1e-9
}

fn string(limits: &Limits, s: &str, path: &str, errors: &mut Vec<FieldError>) {
    let len = || s.chars().count() as u64;
    if let Some(max) = limits.max_length
        && len() > max
    {
        errors.push(FieldError::too_long(path, max));
    }
    if let Some(min) = limits.min_length
        && len() < min
    {
        errors.push(FieldError::invalid(
            path,
            Value::from(s),
            format!("{} should be at least {min} chars long", subject(path)),
        ));
    }
    if let Some(p) = &limits.pattern
        && !p.is_match(s)
    {
        errors.push(FieldError::invalid(
            path,
            Value::from(s),
            format!("{} should match '{}'", subject(path), p.as_str()),
        ));
    }
}

fn array(limits: &Limits, items: &[Value], path: &str, errors: &mut Vec<FieldError>) {
    let n = items.len() as u64;
    if let Some(max) = limits.max_items
        && n > max
    {
        errors.push(FieldError::too_many(path, n, max));
    }
    if let Some(min) = limits.min_items
        && n < min
    {
        errors.push(FieldError::invalid(
            path,
            Value::from(n),
            format!("{} should have at least {min} items", subject(path)),
        ));
    }
}

fn object(limits: &Limits, fields: &Map<String, Value>, path: &str, errors: &mut Vec<FieldError>) {
    let n = fields.len() as u64;
    if let Some(max) = limits.max_properties
        && n > max
    {
        errors.push(FieldError::too_many(path, n, max));
    }
    if let Some(min) = limits.min_properties
        && n < min
    {
        errors.push(FieldError::invalid(
            path,
            Value::from(n),
            format!("{} should have at least {min} properties", subject(path)),
        ));
    }
}

/// `set` lists may not repeat an element, `map` lists may not repeat a key.
fn unique_items(schema: &Schema, items: &[Value], path: &str, errors: &mut Vec<FieldError>) {
    let keyed: Vec<Option<Value>> = match schema.list_type.as_deref() {
        Some("set") => items.iter().cloned().map(Some).collect(),
        Some("map") => items
            .iter()
            .map(|item| {
                let fields = item.as_object()?;
                let key: Map<String, Value> = schema
                    .list_map_keys
                    .iter()
                    .filter_map(|k| fields.get(k).map(|v| (k.clone(), v.clone())))
                    .collect();
                Some(Value::Object(key))
            })
            .collect(),
        _ => return,
    };
    // Quadratic in the worst case, like Kubernetes' own check for values
    // that are not hashable; lists are bounded by the request size.
    for (i, key) in keyed.iter().enumerate() {
        let Some(key) = key else { continue };
        if keyed[..i]
            .iter()
            .flatten()
            .any(|earlier| json_eq(earlier, key))
        {
            errors.push(FieldError::duplicate(format!("{path}[{i}]"), key.clone()));
        }
    }
}

fn junctors(limits: &Limits, value: &Value, path: &str, errors: &mut Vec<FieldError>) {
    // Every node of every write passes here; most have no junctors.
    let quoted = || format!("{path:?}");
    if !limits.all_of.is_empty() {
        let failures: Vec<Vec<FieldError>> = limits
            .all_of
            .iter()
            .map(|s| nested_errors(s, value, path))
            .collect();
        let failing = failures.iter().filter(|f| !f.is_empty()).count();
        if failing > 0 {
            errors.push(composite(format!(
                "{} must validate all the schemas (allOf). Failing {failing} schemas",
                quoted()
            )));
            errors.extend(failures.into_iter().flatten());
        }
    }
    if !limits.any_of.is_empty() {
        let failures: Vec<Vec<FieldError>> = limits
            .any_of
            .iter()
            .map(|s| nested_errors(s, value, path))
            .collect();
        if failures.iter().all(|f| !f.is_empty()) {
            errors.push(composite(format!(
                "{} must validate at least one schema (anyOf)",
                quoted()
            )));
            errors.extend(fewest(failures));
        }
    }
    if !limits.one_of.is_empty() {
        let failures: Vec<Vec<FieldError>> = limits
            .one_of
            .iter()
            .map(|s| nested_errors(s, value, path))
            .collect();
        let valid = failures.iter().filter(|f| f.is_empty()).count();
        if valid == 0 {
            errors.push(composite(format!(
                "{} must validate one and only one schema (oneOf). Found none valid",
                quoted()
            )));
            errors.extend(fewest(failures));
        } else if valid > 1 {
            errors.push(composite(format!(
                "{} must validate one and only one schema (oneOf). Found {valid} valid alternatives",
                quoted()
            )));
        }
    }
    if let Some(not) = &limits.not
        && nested_errors(not, value, path).is_empty()
    {
        errors.push(composite(format!(
            "{} must not validate the schema (not)",
            quoted()
        )));
    }
}

/// kube-openapi's junctor errors carry no field, so apiextensions reports
/// them at the root with an empty value.
fn composite(detail: String) -> FieldError {
    FieldError::invalid("", Value::from(""), detail)
}

/// The failures of the alternative that came closest to passing.
fn fewest(failures: Vec<Vec<FieldError>>) -> Vec<FieldError> {
    failures
        .into_iter()
        .min_by_key(Vec::len)
        .unwrap_or_default()
}

/// The problems of `value` against a junctor's nested schema, which has no
/// type of its own: required fields, enums, limits, recursively.
fn nested_errors(schema: &Schema, value: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    nested(schema, value, path, &mut errors);
    errors
}

fn nested(schema: &Schema, value: &Value, path: &str, errors: &mut Vec<FieldError>) {
    match value {
        Value::Object(fields) => {
            for name in &schema.required {
                if fields.get(name).is_none_or(Value::is_null) {
                    errors.push(FieldError::required(join(path, name), ""));
                }
            }
            for (name, prop) in &schema.properties {
                if let Some(child) = fields.get(name) {
                    nested(prop, child, &join(path, name), errors);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = &schema.items {
                for (i, item) in items.iter().enumerate() {
                    nested(item_schema, item, &format!("{path}[{i}]"), errors);
                }
            }
        }
        _ => {}
    }
    if !schema.enum_values.is_empty() && !schema.enum_values.iter().any(|e| json_eq(e, value)) {
        errors.push(FieldError::not_supported(
            path,
            value.clone(),
            &schema.enum_values,
        ));
    }
    check(schema, value, path, errors);
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}
