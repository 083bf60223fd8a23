//! The FieldsV1 wire form of a `FieldSet`: nested objects keyed `f:`/`k:`/
//! `v:`/`i:`, `{}` at leaves, `"."` first for a member node with children.

use serde_json::{Map, Value};

use super::path::PathElement;
use super::set::FieldSet;

/// The FieldsV1 object of a set.
#[must_use]
pub fn encode(set: &FieldSet) -> Value {
    if !set.has_children() {
        // Leaves are most nodes: an empty map allocates nothing.
        return Value::Object(Map::new());
    }
    let mut out = Map::with_capacity(set.children().count() + 1);
    if set.is_member() && set.has_children() {
        out.insert(".".into(), Value::Object(Map::new()));
    }
    for (step, child) in set.children() {
        out.insert(step.fields_v1_key(), encode(child));
    }
    Value::Object(out)
}

/// Reads a FieldsV1 object.
pub fn decode(value: &Value) -> Result<FieldSet, String> {
    let Value::Object(fields) = value else {
        return Err("fieldsV1 must be an object".into());
    };
    let mut set = FieldSet::default();
    if fields.is_empty() {
        set.set_member(true);
        return Ok(set);
    }
    for (key, child) in fields {
        if key == "." {
            set.set_member(true);
            continue;
        }
        let step = PathElement::parse_fields_v1_key(key)?;
        set.insert_child(step, decode(child)?);
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips_in_kubernetes_order() {
        let wire = json!({
            "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {
                "f:containers": {
                    "k:{\"name\":\"nginx\"}": {".": {}, "f:image": {}, "f:name": {}}
                },
                "f:finalizers": {"v:\"a\"": {}},
                "f:args": {"i:0": {}}
            }
        });
        let set = decode(&wire).expect("valid FieldsV1");
        let back = encode(&set);
        assert_eq!(back, wire);
        let keys: Vec<&String> = back["f:spec"].as_object().expect("object").keys().collect();
        assert_eq!(keys, ["f:args", "f:containers", "f:finalizers"]);
        let labels: Vec<&String> = back["f:metadata"]["f:labels"]
            .as_object()
            .expect("object")
            .keys()
            .collect();
        assert_eq!(labels, [".", "f:app"]);
        assert!(decode(&json!({"q:x": {}})).is_err());
        assert!(decode(&json!([])).is_err());
    }
}
