//! Ownership after a schema change (spec 4.6 rule 10): where a value became
//! atomic, a manager that owned anything inside it owns the whole value.
//! (The other direction needs nothing: an owner of a formerly atomic value
//! keeps the node, and changes below it conflict with no one.)

use super::path::PathElement;
use super::set::FieldSet;
use crate::api::schema::Schema;

/// `set` with every owned part of a now-atomic value collapsed onto it.
pub fn collapse_atomic(schema: &Schema, set: &mut FieldSet) {
    walk(Some(schema), set);
}

fn is_atomic(s: &Schema) -> bool {
    if s.map_type.as_deref() == Some("atomic") {
        return true;
    }
    if s.items.is_none() {
        return false;
    }
    match s.list_type.as_deref() {
        Some("set" | "map") => false,
        Some(_) => true,
        None => {
            !(s.patch_merge_key.is_some()
                && s.patch_strategy
                    .as_deref()
                    .is_some_and(|p| p.split(',').any(|x| x == "merge")))
        }
    }
}

fn walk(schema: Option<&Schema>, set: &mut FieldSet) {
    let Some(s) = schema else {
        return;
    };
    if !set.has_children() {
        return;
    }
    if is_atomic(s) {
        *set = FieldSet::leaf();
        return;
    }
    for (step, child) in set.children_mut() {
        let child_schema = match step {
            PathElement::Field(name) => s.field_schema(name),
            _ => s.items.as_deref(),
        };
        // Collapsing leaves a member node: the child never becomes empty.
        walk(child_schema, child);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn owners_of_parts_of_an_atomic_value_own_all_of_it() {
        let schema = Schema::object([(
            "spec",
            Schema::object([
                ("args", Schema::string_list()),
                ("tags", Schema::string_list().set_list()),
                ("sel", Schema::string_map().atomic_map()),
            ]),
        )]);
        let mut set = super::super::fields_v1::decode(&json!({"f:spec": {
            "f:args": {"v:\"a\"": {}},
            "f:tags": {"v:\"t\"": {}},
            "f:sel": {"f:k": {}}
        }}))
        .expect("FieldsV1");
        collapse_atomic(&schema, &mut set);
        assert_eq!(
            super::super::fields_v1::encode(&set),
            json!({"f:spec": {"f:args": {}, "f:sel": {}, "f:tags": {"v:\"t\"": {}}}})
        );
    }
}
