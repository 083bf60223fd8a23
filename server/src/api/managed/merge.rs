//! Merging an applied configuration into the live object: objects field by
//! field, set and map lists item by item (live order kept, new items placed
//! before the next shared one), everything else replaced.

use std::collections::HashMap;

use serde_json::Value;

use super::path::PathElement;
use super::shape::{Shape, field_schema, item_step, shape};
use crate::api::schema::Schema;

/// `live` with `config` merged in.
#[must_use]
pub fn merge(schema: Option<&Schema>, live: Value, config: &Value) -> Value {
    let live_shape = shape(schema, &live);
    let config_shape = shape(schema, config);
    match (&live_shape, &config_shape, live, config) {
        (Shape::Object(s), Shape::Object(_), Value::Object(mut fields), Value::Object(applied)) => {
            for (k, cv) in applied {
                let cs = field_schema(*s, k);
                if cv.is_null() && !cs.is_some_and(|c| c.nullable) {
                    // An explicit null asks for the field to be unset.
                    fields.shift_remove(k);
                    continue;
                }
                match fields.get_mut(k) {
                    Some(lv) => {
                        let merged = merge(cs, lv.take(), cv);
                        *lv = merged;
                    }
                    None => {
                        fields.insert(k.clone(), cv.clone());
                    }
                }
            }
            Value::Object(fields)
        }
        (Shape::SetList, Shape::SetList, Value::Array(items), Value::Array(applied)) => {
            Value::Array(merge_items(&live_shape, None, items, applied))
        }
        (
            Shape::MapList {
                items: item_schema, ..
            },
            Shape::MapList { .. },
            Value::Array(items),
            Value::Array(applied),
        ) => Value::Array(merge_items(&live_shape, *item_schema, items, applied)),
        _ => config.clone(),
    }
}

/// Merges keyed lists: live items stay in place (merged with their applied
/// counterpart); applied items that are new go before the next item both
/// lists share, in applied order, or at the end.
fn merge_items(
    list: &Shape<'_>,
    item_schema: Option<&Schema>,
    live: Vec<Value>,
    applied: &[Value],
) -> Vec<Value> {
    let applied_steps: Vec<PathElement> = applied
        .iter()
        .enumerate()
        .map(|(i, item)| item_step(list, item, i))
        .collect();
    let mut applied_at: HashMap<&PathElement, usize> = HashMap::with_capacity(applied.len());
    for (i, step) in applied_steps.iter().enumerate() {
        applied_at.insert(step, i);
    }
    let live_steps: Vec<PathElement> = live
        .iter()
        .enumerate()
        .map(|(i, item)| item_step(list, item, i))
        .collect();
    let in_live: std::collections::HashSet<&PathElement> = live_steps.iter().collect();
    let mut placed = vec![false; applied.len()];
    let mut next_new = 0;
    let mut out = Vec::with_capacity(live.len() + applied.len());
    let place_new_before =
        |upto: usize, next_new: &mut usize, placed: &mut Vec<bool>, out: &mut Vec<Value>| {
            while *next_new < upto {
                let i = *next_new;
                if !placed[i] && !in_live.contains(&applied_steps[i]) {
                    out.push(applied[i].clone());
                    placed[i] = true;
                }
                *next_new += 1;
            }
        };
    for (item, step) in live.into_iter().zip(&live_steps) {
        match applied_at.get(step) {
            Some(&i) if !placed[i] => {
                place_new_before(i, &mut next_new, &mut placed, &mut out);
                out.push(merge(item_schema, item, &applied[i]));
                placed[i] = true;
            }
            _ => out.push(item),
        }
    }
    place_new_before(applied.len(), &mut next_new, &mut placed, &mut out);
    out
}
