//! Lists under strategic merge patch: merging by key or by value, the
//! `$patch` elements, and the order of the result (Kubernetes' rules: patch
//! items in patch order, the server's other items kept at their relative
//! places between them).

use serde_json::Value;

use super::json_equal;
use super::strategic::{BAD_SET_ELEMENT_ORDER, Object, PATCH, bad, fresh_value, merge_map};
use crate::api::error::ApiError;
use crate::api::schema::Schema;

/// The patch metadata of one field, read from its schema.
pub(super) struct ListRules<'a> {
    /// `patchStrategy` names `merge`: the list merges with the original.
    pub merge: bool,
    /// `patchStrategy` names `replace`: a map is replaced, not merged.
    pub replace: bool,
    /// `patchMergeKey`: the element field items are matched by.
    pub key: Option<&'a str>,
    /// The schema of the list's items.
    pub items: Option<&'a Schema>,
}

impl<'a> ListRules<'a> {
    pub(super) fn of(schema: Option<&'a Schema>) -> ListRules<'a> {
        let strategy = schema
            .and_then(|s| s.patch_strategy.as_deref())
            .unwrap_or("");
        let named = |name: &str| strategy.split(',').any(|s| s.trim() == name);
        ListRules {
            merge: named("merge"),
            replace: named("replace"),
            key: schema.and_then(|s| s.patch_merge_key.as_deref()),
            items: schema.and_then(|s| s.items.as_deref()),
        }
    }
}

/// The JSON type shared by a list's elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ElementKind {
    Object,
    String,
    Number,
    Bool,
    Null,
}

/// The element type of lists `a` and `b` together (`None` when both are
/// empty); mixed types and lists of lists cannot be merged.
pub(super) fn element_kind(a: &[Value], b: &[Value]) -> Result<Option<ElementKind>, ApiError> {
    let mut kind = None;
    for v in a.iter().chain(b) {
        let this = match v {
            Value::Array(_) => return Err(bad("lists of lists are not supported")),
            Value::Object(_) => ElementKind::Object,
            Value::String(_) => ElementKind::String,
            Value::Number(_) => ElementKind::Number,
            Value::Bool(_) => ElementKind::Bool,
            Value::Null => ElementKind::Null,
        };
        match kind {
            None => kind = Some(this),
            Some(k) if k != this => {
                return Err(bad("list element types are not identical"));
            }
            Some(_) => {}
        }
    }
    Ok(kind)
}

fn no_merge_key(item: &Value, key: &str) -> ApiError {
    bad(format!(
        "map: {item} does not contain declared merge key: {key}"
    ))
}

fn not_a_map(item: &Value) -> ApiError {
    bad(format!("expected a map, but received {item}"))
}

/// Merges a patch list into a list whose field has the merge strategy.
pub(super) fn merge_list(
    original: Vec<Value>,
    patch: Vec<Value>,
    schema: Option<&Schema>,
) -> Result<Vec<Value>, ApiError> {
    if original.is_empty() && patch.is_empty() {
        return Ok(original);
    }
    let rules = ListRules::of(schema);
    match element_kind(&original, &patch)? {
        Some(ElementKind::Object) => merge_by_key(original, patch, &rules),
        _ => match rules.key {
            Some(_) => Err(not_a_map(patch.first().unwrap_or(&original[0]))),
            None => Ok(union(original, patch)),
        },
    }
}

/// A patch list for a field the original lacks: merged into nothing, or
/// taken as sent when not merged (elements carrying `$patch` are
/// directives, not items, and are dropped, as Kubernetes drops them).
pub(super) fn fresh_list(
    patch: Vec<Value>,
    schema: Option<&Schema>,
) -> Result<Vec<Value>, ApiError> {
    let rules = ListRules::of(schema);
    if rules.merge {
        return merge_list(Vec::new(), patch, schema);
    }
    let mut out = Vec::with_capacity(patch.len());
    for item in patch {
        if item.get(PATCH).is_some() {
            continue;
        }
        if let Some(v) = fresh_value(item, rules.items)? {
            out.push(v);
        }
    }
    Ok(out)
}

/// Scalars merged as a set: the original's and the patch's, each once.
fn union(original: Vec<Value>, patch: Vec<Value>) -> Vec<Value> {
    let mut merged: Vec<Value> = Vec::with_capacity(original.len() + patch.len());
    for v in original.iter().chain(&patch) {
        if !merged.iter().any(|m| json_equal(m, v)) {
            merged.push(v.clone());
        }
    }
    arrange(merged, &patch, &original, None)
}

/// Maps merged by their merge key, after the `$patch` elements: `delete`
/// removes the items with that key, `replace` makes the patch's other
/// items the whole list.
fn merge_by_key(
    original: Vec<Value>,
    patch: Vec<Value>,
    rules: &ListRules<'_>,
) -> Result<Vec<Value>, ApiError> {
    let Some(key) = rules.key else {
        return Err(bad("cannot merge lists of maps without a merge key"));
    };
    let mut kept = original;
    let mut plain: Vec<Object> = Vec::with_capacity(patch.len());
    let mut replace = false;
    for item in patch {
        let Value::Object(mut map) = item else {
            return Err(not_a_map(&item));
        };
        let Some(directive) = map.get(PATCH) else {
            plain.push(map);
            continue;
        };
        match directive.as_str() {
            Some("delete") => {
                let Some(id) = map.get(key) else {
                    return Err(no_merge_key(&Value::Object(map), key));
                };
                kept.retain(|o| !o.get(key).is_some_and(|v| json_equal(v, id)));
            }
            Some("replace") => replace = true,
            Some("merge") => {
                map.shift_remove(PATCH);
                plain.push(map);
            }
            _ => {
                return Err(bad(format!(
                    "unknown patch type: {directive} in map: {}",
                    Value::Object(map.clone())
                )));
            }
        }
    }
    if replace {
        let mut out = Vec::with_capacity(plain.len());
        for map in plain {
            out.push(Value::Object(merge_map(Object::new(), map, rules.items)?));
        }
        return Ok(out);
    }
    let server_order: Vec<Value> = kept.iter().map(|o| key_only(o, key)).collect();
    let mut patch_order = Vec::with_capacity(plain.len());
    let mut merged = kept;
    for map in plain {
        let Some(id) = map.get(key).cloned() else {
            return Err(no_merge_key(&Value::Object(map), key));
        };
        let found = merged
            .iter()
            .position(|o| o.get(key).is_some_and(|v| json_equal(v, &id)));
        match found {
            Some(i) => {
                let current = match std::mem::take(&mut merged[i]) {
                    Value::Object(current) => current,
                    other => return Err(not_a_map(&other)),
                };
                merged[i] = Value::Object(merge_map(current, map, rules.items)?);
            }
            None => merged.push(Value::Object(merge_map(Object::new(), map, rules.items)?)),
        }
        patch_order.push(Value::Object(Object::from_iter([(key.to_owned(), id)])));
    }
    Ok(arrange(merged, &patch_order, &server_order, Some(key)))
}

/// Just the merge key of an item (for ordering by it).
fn key_only(item: &Value, key: &str) -> Value {
    match item.get(key) {
        Some(id) => Value::Object(Object::from_iter([(key.to_owned(), id.clone())])),
        None => Value::Object(Object::new()),
    }
}

/// What an item is matched by: its merge key, or itself.
fn identity<'v>(item: &'v Value, key: Option<&str>) -> Option<&'v Value> {
    match key {
        Some(k) => item.get(k),
        None => Some(item),
    }
}

/// Where `item` sits in `order` (matched by identity); two items without
/// a merge key match, as in Kubernetes.
fn position(order: &[Value], item: &Value, key: Option<&str>) -> Option<usize> {
    let id = identity(item, key);
    order.iter().position(|o| match (identity(o, key), id) {
        (Some(a), Some(b)) => json_equal(a, b),
        (None, None) => true,
        _ => false,
    })
}

/// Orders `items`: those named in `order` (the patch's) in its order, the
/// rest in `server_order`, interleaved so each keeps its place relative to
/// the server's items where both are known there.
fn arrange(
    items: Vec<Value>,
    order: &[Value],
    server_order: &[Value],
    key: Option<&str>,
) -> Vec<Value> {
    let (mut listed, mut rest): (Vec<Value>, Vec<Value>) = items
        .into_iter()
        .partition(|i| position(order, i, key).is_some());
    listed.sort_by_cached_key(|i| position(order, i, key));
    rest.sort_by_cached_key(|i| position(server_order, i, key).unwrap_or(usize::MAX));
    let server_place = |v: &Value| position(server_order, v, key);
    let mut out = Vec::with_capacity(listed.len() + rest.len());
    let mut rest = rest.into_iter().peekable();
    let mut listed = listed.into_iter().peekable();
    loop {
        let take_rest = match (rest.peek(), listed.peek()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(r), Some(l)) => {
                matches!((server_place(r), server_place(l)), (Some(a), Some(b)) if a < b)
            }
        };
        let next = if take_rest {
            rest.next()
        } else {
            listed.next()
        };
        out.extend(next);
    }
    out
}

/// `$setElementOrder` must list the patch's items (deletions aside) in the
/// order the patch has them.
pub(super) fn check_order_matches(
    patch: &[Value],
    order: &[Value],
    rules: &ListRules<'_>,
) -> Result<(), ApiError> {
    if order.is_empty() || patch.is_empty() {
        return Ok(());
    }
    let is_directive = |v: &Value| v.get(PATCH).is_some();
    let items: Vec<&Value> = patch
        .iter()
        .filter(|v| rules.key.is_none() || v.get(PATCH).and_then(Value::as_str) != Some("delete"))
        .collect();
    let (mut p, mut o) = (0, 0);
    while p < items.len() && o < order.len() {
        if is_directive(items[p]) {
            p += 1;
            continue;
        }
        if same_item(items[p], &order[o], rules.key)? {
            p += 1;
        }
        o += 1;
    }
    if p < items.len() {
        return Err(bad(format!(
            "the order in patch list {} doesn't match $setElementOrder list {}",
            Value::Array(patch.to_vec()),
            Value::Array(order.to_vec())
        )));
    }
    Ok(())
}

fn same_item(a: &Value, b: &Value, key: Option<&str>) -> Result<bool, ApiError> {
    let Some(key) = key else {
        return Ok(json_equal(a, b));
    };
    let ka = a.as_object().ok_or_else(|| not_a_map(a))?;
    let kb = b.as_object().ok_or_else(|| not_a_map(b))?;
    match (ka.get(key), kb.get(key)) {
        (Some(x), Some(y)) => Ok(json_equal(x, y)),
        (None, _) => Err(no_merge_key(a, key)),
        (_, None) => Err(no_merge_key(b, key)),
    }
}

/// Orders a merged list by a `$setElementOrder` list: its items as listed,
/// the server's others (in `server_order`) at their relative places.
pub(super) fn order_by(
    merged: Vec<Value>,
    order: &[Value],
    server_order: &[Value],
    key: Option<&str>,
) -> Result<Vec<Value>, ApiError> {
    if let Some(key) = key {
        for item in merged.iter().chain(order) {
            if !item.is_object() {
                return Err(bad(BAD_SET_ELEMENT_ORDER));
            }
            if item.get(key).is_none() {
                return Err(no_merge_key(item, key));
            }
        }
    }
    Ok(arrange(merged, order, server_order, key))
}
