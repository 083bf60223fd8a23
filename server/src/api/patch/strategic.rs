//! Strategic merge patch (`application/strategic-merge-patch+json`): a merge
//! patch whose lists follow the kind's schema (`patch_strategy`,
//! `patch_merge_key`), plus the `$patch`, `$retainKeys`, `$setElementOrder/`
//! and `$deleteFromPrimitiveList/` directives, with Kubernetes' semantics.

use serde_json::{Map, Value};

use super::strategic_list::{self, ListRules};
use crate::api::decode;
use crate::api::error::ApiError;
use crate::api::kind::{KindSpec, Origin};
use crate::api::schema::Schema;

pub(super) type Object = Map<String, Value>;

pub(super) const PATCH: &str = "$patch";
const RETAIN_KEYS: &str = "$retainKeys";
const SET_ELEMENT_ORDER: &str = "$setElementOrder";
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList";

/// Kubernetes' texts for malformed directives (answered with 400).
pub(super) const BAD_PRIMITIVE_LIST: &str = "invalid patch format of primitive list";
const BAD_RETAIN_KEYS: &str = "invalid patch format of retainKeys";
pub(super) const BAD_SET_ELEMENT_ORDER: &str = "invalid patch format of setElementOrder list";

/// The patch types a kind accepts besides strategic merge patch: what a
/// 415 lists for kinds without patch metadata.
const GENERIC_PATCH_TYPES: [&str; 3] = [
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/apply-patch+yaml",
];

pub(super) fn bad(message: impl Into<String>) -> ApiError {
    ApiError::BadRequest(message.into())
}

/// Custom resources carry no patch metadata (their lists have no merge
/// keys), so Kubernetes refuses strategic merge patches for them with 415.
pub fn check_supported(kind: &KindSpec) -> Result<(), ApiError> {
    match kind.origin {
        Origin::BuiltIn => Ok(()),
        Origin::Crd(_) => Err(ApiError::UnsupportedMediaType(
            GENERIC_PATCH_TYPES.map(String::from).to_vec(),
        )),
    }
}

/// Applies a strategic merge patch to `target` under `schema`; returns the
/// result and the patch's duplicate fields.
pub fn strategic(
    schema: &Schema,
    target: &Value,
    body: &[u8],
) -> Result<(Value, Vec<String>), ApiError> {
    let patch =
        decode::parse_json(body).map_err(|e| bad(format!("invalid strategic merge patch: {e}")))?;
    let Value::Object(patch_map) = patch.value else {
        return Err(bad(
            "invalid strategic merge patch: the patch must be a JSON object",
        ));
    };
    let original = match target {
        Value::Object(o) => o.clone(),
        _ => Object::new(),
    };
    let merged = merge_map(original, patch_map, Some(schema))?;
    Ok((Value::Object(merged), patch.duplicates))
}

/// The schema of field `key` of an object under `schema`.
pub(super) fn child<'a>(schema: Option<&'a Schema>, key: &str) -> Option<&'a Schema> {
    schema.and_then(|s| s.field_schema(key))
}

/// An object whose contents the schema does not model (a free-form
/// object): its `$`-prefixed keys are plain data, as they are for
/// Kubernetes' untyped fields.
fn opaque(schema: Option<&Schema>) -> bool {
    schema.is_none_or(|s| s.properties.is_empty() && s.additional_properties.is_none())
}

/// Merges patch map `patch` into `original`.
pub(super) fn merge_map(
    mut original: Object,
    mut patch: Object,
    schema: Option<&Schema>,
) -> Result<Object, ApiError> {
    if let Some(directive) = patch.shift_remove(PATCH) {
        match directive.as_str() {
            Some("replace") => return merge_map(Object::new(), patch, schema),
            Some("delete") => return Ok(Object::new()),
            // The default, spelled out.
            Some("merge") => {}
            _ => return Err(unknown_patch_type(&directive, &patch)),
        }
    }
    if let Some(retain) = patch.shift_remove(RETAIN_KEYS) {
        retain_keys(&mut original, &patch, &retain)?;
    }
    let orders = take_prefixed(&mut patch, SET_ELEMENT_ORDER, BAD_SET_ELEMENT_ORDER)?;
    let deletions = take_prefixed(&mut patch, DELETE_FROM_PRIMITIVE_LIST, BAD_PRIMITIVE_LIST)?;
    for (field, order) in orders {
        set_element_order(&mut original, &mut patch, &field, order, schema)?;
    }
    for (key, value) in patch {
        if key.starts_with('$') && child(schema, &key).is_none() && !opaque(schema) {
            return Err(bad(format!(
                "unknown directive {key:?} in strategic merge patch"
            )));
        }
        if value.is_null() {
            original.shift_remove(&key);
            continue;
        }
        let field_schema = child(schema, &key);
        match original.get_mut(&key) {
            Some(slot) => match merge_value(std::mem::take(slot), value, field_schema)? {
                Some(merged) => *slot = merged,
                None => {
                    original.shift_remove(&key);
                }
            },
            None => {
                if let Some(fresh) = fresh_value(value, field_schema)? {
                    original.insert(key, fresh);
                }
            }
        }
    }
    for (field, values) in deletions {
        delete_from_primitive_list(&mut original, &field, values)?;
    }
    Ok(original)
}

fn unknown_patch_type(directive: &Value, patch: &Object) -> ApiError {
    let name = directive
        .as_str()
        .map_or_else(|| directive.to_string(), str::to_owned);
    bad(format!(
        "unknown patch type: {name} in map: {}",
        Value::Object(patch.clone())
    ))
}

/// Merges a patch value into the current value of a field. `None`: the
/// field goes away.
fn merge_value(
    current: Value,
    patch: Value,
    schema: Option<&Schema>,
) -> Result<Option<Value>, ApiError> {
    let rules = ListRules::of(schema);
    match (current, patch) {
        (Value::Object(cur), Value::Object(p)) => {
            if rules.replace {
                merge_map(Object::new(), p, schema).map(|m| Some(Value::Object(m)))
            } else {
                merge_map(cur, p, schema).map(|m| Some(Value::Object(m)))
            }
        }
        (Value::Array(cur), Value::Array(p)) if rules.merge => {
            strategic_list::merge_list(cur, p, schema).map(|l| Some(Value::Array(l)))
        }
        (_, patch) => fresh_value(patch, schema),
    }
}

/// A patch value for a field the original lacks (or holds with another
/// type): its directives are applied to nothing. `None`: nothing is kept.
pub(super) fn fresh_value(
    patch: Value,
    schema: Option<&Schema>,
) -> Result<Option<Value>, ApiError> {
    match patch {
        Value::Object(p) => {
            if p.get(PATCH).and_then(Value::as_str) == Some("delete") {
                return Ok(None);
            }
            merge_map(Object::new(), p, schema).map(|m| Some(Value::Object(m)))
        }
        Value::Array(p) => strategic_list::fresh_list(p, schema).map(|l| Some(Value::Array(l))),
        other => Ok(Some(other)),
    }
}

/// `$retainKeys`: the original keeps only the listed fields, and the patch
/// may set no others.
fn retain_keys(original: &mut Object, patch: &Object, retain: &Value) -> Result<(), ApiError> {
    let Value::Array(keep) = retain else {
        return Err(bad(BAD_RETAIN_KEYS));
    };
    let kept = |k: &str| keep.iter().any(|v| v.as_str() == Some(k));
    let stray = patch.iter().any(|(k, v)| {
        !v.is_null()
            && !k.starts_with(DELETE_FROM_PRIMITIVE_LIST)
            && !k.starts_with(SET_ELEMENT_ORDER)
            && !kept(k)
    });
    if stray {
        return Err(bad(BAD_RETAIN_KEYS));
    }
    original.retain(|k, _| kept(k));
    Ok(())
}

/// Removes the `<prefix>/<field>` directives from `patch`, as (field, value).
fn take_prefixed(
    patch: &mut Object,
    prefix: &str,
    malformed: &str,
) -> Result<Vec<(String, Value)>, ApiError> {
    let keys: Vec<String> = patch
        .keys()
        .filter(|k| k.starts_with(prefix))
        .cloned()
        .collect();
    let mut taken = Vec::with_capacity(keys.len());
    for key in keys {
        let field = match key.split_once('/') {
            Some((head, field)) if head == prefix => field.to_owned(),
            _ => return Err(bad(malformed)),
        };
        if let Some(value) = patch.shift_remove(&key) {
            taken.push((field, value));
        }
    }
    Ok(taken)
}

/// `$deleteFromPrimitiveList/<field>`: removes these values from a list of
/// scalars; a missing list stays missing.
fn delete_from_primitive_list(
    original: &mut Object,
    field: &str,
    values: Value,
) -> Result<(), ApiError> {
    let Value::Array(values) = values else {
        return Err(bad(BAD_PRIMITIVE_LIST));
    };
    let Some(Value::Array(list)) = original.get_mut(field) else {
        return Ok(());
    };
    if list
        .iter()
        .chain(&values)
        .any(|v| v.is_object() || v.is_array())
    {
        return Err(bad(BAD_PRIMITIVE_LIST));
    }
    strategic_list::element_kind(list, &values)?;
    list.retain(|item| !values.iter().any(|v| super::json_equal(v, item)));
    Ok(())
}

/// `$setElementOrder/<field>`: merges the field's list now, then orders
/// it: the listed items as listed, the server's other items at their
/// relative places.
fn set_element_order(
    original: &mut Object,
    patch: &mut Object,
    field: &str,
    order: Value,
    schema: Option<&Schema>,
) -> Result<(), ApiError> {
    let Value::Array(order) = order else {
        return Err(bad(BAD_SET_ELEMENT_ORDER));
    };
    let list_schema = child(schema, field);
    let rules = ListRules::of(list_schema);
    let current = match original.get(field) {
        None => None,
        Some(Value::Array(items)) => Some(items.clone()),
        Some(_) => return Err(bad(format!("{field}: expected a list in the object"))),
    };
    let patched = match patch.shift_remove(field) {
        None => None,
        Some(Value::Array(items)) => Some(items),
        Some(_) => return Err(bad(BAD_SET_ELEMENT_ORDER)),
    };
    strategic_list::check_order_matches(patched.as_deref().unwrap_or(&[]), &order, &rules)?;
    let merged = match (&current, patched) {
        (None, None) => return Ok(()),
        (Some(cur), None) => cur.clone(),
        (Some(cur), Some(p)) if rules.merge => {
            strategic_list::merge_list(cur.clone(), p, list_schema)?
        }
        (_, Some(p)) => strategic_list::fresh_list(p, list_schema)?,
    };
    let ordered =
        strategic_list::order_by(merged, &order, current.as_deref().unwrap_or(&[]), rules.key)?;
    original.insert(field.to_owned(), Value::Array(ordered));
    Ok(())
}
