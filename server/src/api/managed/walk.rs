//! Field sets computed from objects: what an applied configuration claims,
//! and what changed between two versions of an object (added, modified,
//! removed), both walked with the kind's schema.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::path::PathElement;
use super::set::FieldSet;
use super::shape::{Shape, field_schema, item_step, object_is_owned_when_added, shape};
use crate::api::schema::Schema;

/// Top-level fields no manager owns (besides the scope's exclusions).
const UNOWNED_TOP_LEVEL: [&str; 2] = ["apiVersion", "kind"];

/// Metadata fields no manager owns.
const STRIPPED_METADATA: [&str; 9] = [
    "name",
    "namespace",
    "creationTimestamp",
    "selfLink",
    "uid",
    "clusterName",
    "generation",
    "managedFields",
    "resourceVersion",
];

/// Which part of an object a write may own: top-level fields it leaves to
/// other endpoints (`status` for the main resource of a kind with a status
/// subresource; `spec` for `/status`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Scope {
    pub excluded: &'static [&'static str],
    /// Whether objects and lists a write creates are owned nodes themselves
    /// (custom resources; built-in kinds' structs exist empty before).
    pub structs_owned: bool,
}

/// The changes between two versions of an object.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Diff {
    pub added: FieldSet,
    pub modified: FieldSet,
    pub removed: FieldSet,
}

impl Diff {
    /// Added and modified paths: what the writer now owns.
    #[must_use]
    pub fn changed(&self) -> FieldSet {
        let mut out = self.added.clone();
        out.union_with(&self.modified);
        out
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.modified.is_empty() && self.removed.is_empty()
    }
}

/// What an applied configuration claims: its leaves, atomic values and list
/// items, within `scope`.
#[must_use]
pub fn claimed_by(schema: &Schema, config: &Value, scope: Scope) -> FieldSet {
    let mut set = claimed(Some(schema), config);
    strip(&mut set, scope);
    set
}

/// Every path of `value` that a writer owns after creating it from nothing.
/// Every create walks this, so fields no manager owns are skipped on the
/// way rather than built and stripped after.
#[must_use]
pub fn created(schema: &Schema, value: &Value, scope: Scope) -> FieldSet {
    let structs = scope.structs_owned;
    let (Shape::Object(s), Value::Object(fields)) = (shape(Some(schema), value), value) else {
        let mut set = whole(Some(schema), value, structs);
        strip(&mut set, scope);
        return set;
    };
    let mut set = FieldSet::default();
    for (k, v) in fields {
        if is_unowned_top_level(k, scope) {
            continue;
        }
        let cs = field_schema(s, k);
        let child = if k == "metadata" {
            owned_metadata(cs, v, structs)
        } else {
            whole(cs, v, structs)
        };
        set.insert_child(PathElement::Field(k.clone()), child);
    }
    set
}

fn is_unowned_top_level(name: &str, scope: Scope) -> bool {
    UNOWNED_TOP_LEVEL.contains(&name) || scope.excluded.contains(&name)
}

/// `whole` of a created object's metadata, without the fields no manager owns.
fn owned_metadata(schema: Option<&Schema>, meta: &Value, structs: bool) -> FieldSet {
    match (shape(schema, meta), meta) {
        (Shape::Object(s), Value::Object(fields)) => {
            whole_fields(s, fields, structs, |k| STRIPPED_METADATA.contains(&k))
        }
        _ => FieldSet::default(),
    }
}

/// The fields of an object, each `whole`, except those `skip` names.
fn whole_fields(
    schema: Option<&Schema>,
    fields: &serde_json::Map<String, Value>,
    structs: bool,
    skip: impl Fn(&str) -> bool,
) -> FieldSet {
    let mut set = FieldSet::default();
    for (k, v) in fields {
        if !skip(k) {
            set.insert_child(
                PathElement::Field(k.clone()),
                whole(field_schema(schema, k), v, structs),
            );
        }
    }
    set
}

/// What changed from `old` to `new`, within `scope`.
#[must_use]
pub fn diff(schema: &Schema, old: &Value, new: &Value, scope: Scope) -> Diff {
    let mut out = Diff::default();
    diff_node(Some(schema), old, new, scope.structs_owned, &mut out);
    strip(&mut out.added, scope);
    strip(&mut out.modified, scope);
    strip(&mut out.removed, scope);
    out
}

fn strip(set: &mut FieldSet, scope: Scope) {
    set.set_member(false);
    for name in UNOWNED_TOP_LEVEL.iter().chain(scope.excluded) {
        set.remove_child(&PathElement::field(name));
    }
    let meta_step = PathElement::field("metadata");
    if let Some(mut meta) = set.take_child(&meta_step) {
        meta.set_member(false);
        for name in STRIPPED_METADATA {
            meta.remove_child(&PathElement::field(name));
        }
        set.insert_child(meta_step, meta);
    }
}

fn claimed(schema: Option<&Schema>, value: &Value) -> FieldSet {
    let sh = shape(schema, value);
    let mut set = FieldSet::default();
    match (&sh, value) {
        (Shape::Object(s), Value::Object(fields)) => {
            for (k, v) in fields {
                set.insert_child(
                    PathElement::Field(k.clone()),
                    claimed(field_schema(*s, k), v),
                );
            }
        }
        (Shape::SetList, Value::Array(items)) => {
            for item in items {
                set.insert_child(super::shape::value_step(item), FieldSet::leaf());
            }
        }
        (
            Shape::MapList {
                items: item_schema, ..
            },
            Value::Array(items),
        ) => {
            for (i, item) in items.iter().enumerate() {
                let mut child = claimed(*item_schema, item);
                child.set_member(true);
                set.insert_child(item_step(&sh, item, i), child);
            }
        }
        _ => return FieldSet::leaf(),
    }
    set
}

/// Every node of a value that appears or disappears as a whole.
fn whole(schema: Option<&Schema>, value: &Value, structs: bool) -> FieldSet {
    let sh = shape(schema, value);
    let mut set = FieldSet::default();
    match (&sh, value) {
        (Shape::Object(s), Value::Object(fields)) => {
            set = whole_fields(*s, fields, structs, |_| false);
            set.set_member(object_is_owned_when_added(*s, structs) || !set.has_children());
        }
        (Shape::SetList, Value::Array(items)) => {
            for item in items {
                set.insert_child(super::shape::value_step(item), FieldSet::leaf());
            }
            set.set_member(structs || !set.has_children());
        }
        (
            Shape::MapList {
                items: item_schema, ..
            },
            Value::Array(items),
        ) => {
            for (i, item) in items.iter().enumerate() {
                let mut child = whole(*item_schema, item, structs);
                child.set_member(true);
                set.insert_child(item_step(&sh, item, i), child);
            }
            set.set_member(structs || !set.has_children());
        }
        _ => return FieldSet::leaf(),
    }
    set
}

fn diff_node(schema: Option<&Schema>, old: &Value, new: &Value, structs: bool, out: &mut Diff) {
    let old_shape = shape(schema, old);
    let new_shape = shape(schema, new);
    match (&old_shape, &new_shape, old, new) {
        (Shape::Object(s), Shape::Object(_), Value::Object(a), Value::Object(b)) => {
            for (k, nv) in b {
                let cs = field_schema(*s, k);
                match a.get(k) {
                    Some(ov) => {
                        let mut child = Diff::default();
                        diff_node(cs, ov, nv, structs, &mut child);
                        insert_diff(out, PathElement::Field(k.clone()), child);
                    }
                    None => out
                        .added
                        .insert_child(PathElement::Field(k.clone()), whole(cs, nv, structs)),
                }
            }
            for (k, ov) in a {
                if !b.contains_key(k) {
                    out.removed.insert_child(
                        PathElement::Field(k.clone()),
                        whole(field_schema(*s, k), ov, structs),
                    );
                }
            }
        }
        (Shape::SetList, Shape::SetList, Value::Array(a), Value::Array(b)) => {
            let before: HashSet<String> = a.iter().map(Value::to_string).collect();
            let after: HashSet<String> = b.iter().map(Value::to_string).collect();
            for v in after.difference(&before) {
                out.added
                    .insert_child(PathElement::Value(v.clone()), FieldSet::leaf());
            }
            for v in before.difference(&after) {
                out.removed
                    .insert_child(PathElement::Value(v.clone()), FieldSet::leaf());
            }
        }
        (
            Shape::MapList {
                items: item_schema, ..
            },
            Shape::MapList { .. },
            Value::Array(a),
            Value::Array(b),
        ) => {
            let mut before: HashMap<PathElement, &Value> = HashMap::with_capacity(a.len());
            for (i, item) in a.iter().enumerate() {
                before.entry(item_step(&old_shape, item, i)).or_insert(item);
            }
            let mut seen: HashSet<PathElement> = HashSet::with_capacity(b.len());
            for (i, nv) in b.iter().enumerate() {
                let step = item_step(&new_shape, nv, i);
                match before.get(&step) {
                    Some(ov) => {
                        let mut child = Diff::default();
                        diff_node(*item_schema, ov, nv, structs, &mut child);
                        insert_diff(out, step.clone(), child);
                    }
                    None => {
                        let mut child = whole(*item_schema, nv, structs);
                        child.set_member(true);
                        out.added.insert_child(step.clone(), child);
                    }
                }
                seen.insert(step);
            }
            for (step, ov) in before {
                if !seen.contains(&step) {
                    let mut child = whole(*item_schema, ov, structs);
                    child.set_member(true);
                    out.removed.insert_child(step, child);
                }
            }
        }
        _ => {
            if old != new {
                out.modified.set_member(true);
            }
        }
    }
}

fn insert_diff(out: &mut Diff, step: PathElement, child: Diff) {
    if !child.added.is_empty() {
        out.added.insert_child(step.clone(), child.added);
    }
    if !child.modified.is_empty() {
        out.modified.insert_child(step.clone(), child.modified);
    }
    out.removed.insert_child(step, child.removed);
}
