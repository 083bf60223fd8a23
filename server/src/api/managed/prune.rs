//! Removing what an applier stopped sending: a path it owned before and no
//! manager owns now (including the applier's new configuration) goes, with
//! everything below it, unless someone still owns something below it.

use serde_json::Value;

use super::path::PathElement;
use super::set::FieldSet;
use super::shape::{Shape, field_schema, item_step, shape};
use crate::api::schema::Schema;

/// Prunes `object` (the merged result) given the applier's previous set
/// and the union of every manager's set after the apply.
pub fn prune(schema: &Schema, object: &mut Value, last: &FieldSet, owned: &FieldSet) {
    let Some(fields) = object.as_object_mut() else {
        return;
    };
    let nobody = FieldSet::default();
    fields.retain(|name, value| {
        let step = PathElement::Field(name.clone());
        let Some(last_child) = last.child(&step) else {
            return true;
        };
        let field = field_schema(Some(schema), name);
        match owned.child(&step) {
            Some(o) => {
                prune_node(field, value, last_child, o);
                true
            }
            // `metadata` itself always stays; its system fields are owned
            // by no one.
            None if name == "metadata" => {
                prune_node(field, value, last_child, &nobody);
                true
            }
            None => false,
        }
    });
}

fn prune_node(schema: Option<&Schema>, value: &mut Value, last: &FieldSet, owned: &FieldSet) {
    if !last.has_children() {
        return;
    }
    let sh = shape(schema, value);
    match (&sh, value) {
        (Shape::Object(s), Value::Object(fields)) => {
            let s = *s;
            fields.retain(|k, v| {
                let step = PathElement::Field(k.clone());
                let Some(last_child) = last.child(&step) else {
                    return true;
                };
                match owned.child(&step) {
                    None => false,
                    Some(o) => {
                        prune_node(field_schema(s, k), v, last_child, o);
                        true
                    }
                }
            });
        }
        (Shape::SetList | Shape::MapList { .. }, Value::Array(items)) => {
            let item_schema = match &sh {
                Shape::MapList { items, .. } => *items,
                _ => None,
            };
            let mut index = 0;
            items.retain_mut(|item| {
                let step = item_step(&sh, item, index);
                index += 1;
                let Some(last_child) = last.child(&step) else {
                    return true;
                };
                match owned.child(&step) {
                    None => false,
                    Some(o) => {
                        prune_node(item_schema, item, last_child, o);
                        true
                    }
                }
            });
        }
        _ => {}
    }
}
