//! Field ownership beyond the scenarios: what a create owns, how update
//! entries are capped and sorted, and conflict messages.

use serde_json::json;

use super::entries::Managed;
use super::walk::{Scope, diff};
use super::{Writer, fields_v1, record_update};

use super::test_support::*;

/// A create owns what a diff from nothing adds: the create path's walk skips
/// unowned fields on the way, the diff strips them after.
#[test]
fn a_create_owns_what_a_diff_from_nothing_adds() {
    let schema = schema();
    let full = json!({
        "apiVersion": "test/v1",
        "kind": "Thing",
        "metadata": {
            "name": "t", "namespace": "ns", "uid": "u", "resourceVersion": "5",
            "generation": 1, "creationTimestamp": "2024-05-01T10:00:00Z",
            "managedFields": [], "labels": {"a": "b"}, "finalizers": ["x"]
        },
        "spec": {
            "replicas": 2,
            "containers": [{"name": "c", "image": "i", "ports": [{"containerPort": 80, "protocol": "TCP"}]}],
            "finalizers": ["f"],
            "selector": {"k": "v"},
            "strategy": {}
        },
        "status": {"ready": true}
    });
    let only_unowned = json!({"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "t"}});
    let scopes = [
        Scope::default(),
        Scope {
            excluded: &["status"],
            structs_owned: true,
        },
    ];
    for value in [full, only_unowned, json!({"spec": {}}), json!("scalar")] {
        for scope in scopes {
            let created = super::created(&schema, &value, scope);
            let from_nothing = diff(&schema, &json!({}), &value, scope).added;
            assert_eq!(created, from_nothing, "{value} in {scope:?}");
        }
    }
    let owned = super::created(&schema, &obj(json!({"replicas": 1})), Scope::default());
    assert_eq!(
        fields_v1::encode(&owned),
        json!({"f:spec": {"f:replicas": {}}})
    );
}

#[test]
fn update_entries_are_capped_and_sorted() {
    let mut managed = Managed::default();
    let schema = schema();
    let mut old = obj(json!({}));
    for i in 0..12 {
        let mut merged = old.clone();
        merged["spec"]["config"][format!("k{i}")] = json!("v");
        let changes = diff(&schema, &old, &merged, Scope::default());
        let manager = format!("m{i:02}");
        let time = format!("2024-05-01T10:00:{i:02}Z");
        record_update(
            &mut managed,
            changes,
            &Writer {
                manager: &manager,
                api_version: "test/v1",
                subresource: "",
                time: &time,
            },
        );
        old = merged;
    }
    let wire = managed.encode();
    let managers: Vec<&str> = wire
        .as_array()
        .expect("list")
        .iter()
        .map(|e| e["manager"].as_str().expect("manager"))
        .collect();
    assert_eq!(managers.len(), 10);
    assert_eq!(managers[0], "ancient-changes");
    assert_eq!(managers[1], "m03");
    assert_eq!(wire[0]["time"], "2024-05-01T10:00:02Z");
    assert_eq!(
        wire[0]["fieldsV1"],
        json!({"f:spec": {"f:config": {".": {}, "f:k0": {}, "f:k1": {}, "f:k2": {}}}})
    );
    assert!(Managed::is_reset(Some(&json!([{}]))));
    assert!(!Managed::is_reset(Some(&json!([]))));
}

#[test]
fn conflict_messages_follow_kubernetes() {
    use super::apply::{Conflict, conflict_error};
    use super::entries::Entry;
    use super::path::PathElement;
    use super::set::FieldSet;
    let entry = |manager: &str, operation, subresource: &str| Entry {
        manager: manager.into(),
        operation,
        api_version: "apps/v1".into(),
        time: None,
        subresource: subresource.into(),
        fields: FieldSet::default(),
    };
    assert_eq!(entry("m", A, "").describe(), "\"m\"");
    assert_eq!(entry("m", U, "").describe(), "\"m\" using apps/v1");
    assert_eq!(
        entry("m", U, "status").describe(),
        "\"m\" with subresource \"status\" using apps/v1"
    );
    let at = |manager: &str, field: &str| Conflict {
        manager: format!("{manager:?}"),
        path: vec![PathElement::field("spec"), PathElement::field(field)],
    };
    let one = conflict_error(vec![at("a", "x")]);
    assert_eq!(
        one.to_string(),
        "Apply failed with 1 conflict: conflict with \"a\": .spec.x"
    );
    let many = conflict_error(vec![at("b", "y"), at("a", "z"), at("a", "x")]);
    assert_eq!(
        many.to_string(),
        "Apply failed with 3 conflicts: conflicts with \"a\":\n- .spec.x\n- .spec.z\nconflicts with \"b\":\n- .spec.y"
    );
    let status = many.status();
    assert_eq!(status["code"], 409);
    assert_eq!(status["reason"], "Conflict");
    assert_eq!(
        status["details"]["causes"][0],
        json!({"reason": "FieldManagerConflict", "message": "conflict with \"a\"", "field": ".spec.x"})
    );
    assert!(status["details"].get("name").is_none());
}
