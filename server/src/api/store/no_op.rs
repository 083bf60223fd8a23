//! Writes that change nothing are not stored (as Kubernetes' storage skips
//! an update whose bytes equal the stored ones): the object after the
//! write equals the stored one apart from its resourceVersion and the
//! managedFields timestamps a manager re-stamps even when it changed nothing.

use serde_json::{Map, Value};

/// Whether `new` (a write's result) is `old` (the stored object) unchanged.
#[must_use]
pub fn unchanged(new: &Value, old: &Value) -> bool {
    match (new.as_object(), old.as_object()) {
        (Some(n), Some(o)) => same_keys_by(n, o, |key, a, b| match key {
            "metadata" => same_metadata(a, b),
            _ => a == b,
        }),
        _ => new == old,
    }
}

fn same_metadata(new: &Value, old: &Value) -> bool {
    let (Some(n), Some(o)) = (new.as_object(), old.as_object()) else {
        return new == old;
    };
    let ignored = |m: &Map<String, Value>| m.keys().filter(|k| *k == "resourceVersion").count();
    if n.len() - ignored(n) != o.len() - ignored(o) {
        return false;
    }
    n.iter()
        .filter(|(k, _)| *k != "resourceVersion")
        .all(|(k, a)| {
            o.get(k).is_some_and(|b| match k.as_str() {
                "managedFields" => same_managed_fields(a, b),
                _ => a == b,
            })
        })
}

/// managedFields entries equal but for `time`.
fn same_managed_fields(new: &Value, old: &Value) -> bool {
    let (Some(n), Some(o)) = (new.as_array(), old.as_array()) else {
        return new == old;
    };
    n.len() == o.len()
        && n.iter()
            .zip(o)
            .all(|(a, b)| match (a.as_object(), b.as_object()) {
                (Some(a), Some(b)) => {
                    same_keys_by(a, b, |key, x, y| key == "time" || x == y)
                        && a.contains_key("time") == b.contains_key("time")
                }
                _ => a == b,
            })
}

/// Same key set, and `same` holds for each key's two values.
fn same_keys_by(
    a: &Map<String, Value>,
    b: &Map<String, Value>,
    same: impl Fn(&str, &Value, &Value) -> bool,
) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|(k, x)| b.get(k).is_some_and(|y| same(k, x, y)))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn stored() -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "resourceVersion": "7", "managedFields": [
                {"manager": "kubectl", "operation": "Update", "time": "2024-05-01T10:00:00Z",
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:a": {}}}}]},
            "data": {"a": "b"}})
    }

    #[test]
    fn only_timestamps_and_the_resource_version_may_differ() {
        let old = stored();
        let mut same = old.clone();
        same["metadata"]["resourceVersion"] = json!("9");
        same["metadata"]["managedFields"][0]["time"] = json!("2024-05-02T10:00:00Z");
        assert!(unchanged(&same, &old));
        let mut no_rv = old.clone();
        no_rv["metadata"]
            .as_object_mut()
            .expect("metadata")
            .remove("resourceVersion");
        assert!(unchanged(&no_rv, &old));

        let mut data = old.clone();
        data["data"]["a"] = json!("c");
        assert!(!unchanged(&data, &old));
        let mut label = old.clone();
        label["metadata"]["labels"] = json!({"x": "y"});
        assert!(!unchanged(&label, &old));
        let mut owner = old.clone();
        owner["metadata"]["managedFields"][0]["manager"] = json!("other");
        assert!(!unchanged(&owner, &old));
        let mut untimed = old.clone();
        untimed["metadata"]["managedFields"][0]
            .as_object_mut()
            .expect("entry")
            .remove("time");
        assert!(!unchanged(&untimed, &old));
        let mut extra = old.clone();
        extra["binaryData"] = json!({});
        assert!(!unchanged(&extra, &old));
    }
}
