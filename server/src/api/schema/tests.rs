//! Tests of validation, unknown-field detection and pruning (reading
//! OpenAPI documents, limits, junctors and defaults: `openapi_tests.rs`).

use serde_json::{Value, json};

use super::*;

pub(super) fn messages(schema: &Schema, value: &Value) -> Vec<String> {
    validate(schema, value)
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// A small kind with one of everything.
fn sample() -> Schema {
    Schema::object([
        ("apiVersion", Schema::string()),
        ("kind", Schema::string()),
        ("metadata", Schema::object_meta()),
        ("count", Schema::integer_i32()),
        ("big", Schema::integer_i64()),
        ("ratio", Schema::number()),
        ("enabled", Schema::boolean()),
        ("when", Schema::time()),
        ("data", Schema::bytes()),
        ("kindOf", Schema::string().one_of(["Normal", "Warning"])),
        ("port", Schema::int_or_string()),
        ("tags", Schema::string_list()),
        ("limits", Schema::map(Schema::integer())),
        (
            "items",
            Schema::array(
                Schema::object([("name", Schema::string()), ("size", Schema::integer())])
                    .required(["name"]),
            ),
        ),
        ("raw", Schema::any()),
        (
            "loose",
            Schema::object([("known", Schema::integer())]).preserve_unknown(),
        ),
        (
            "nested",
            Schema::object([("inner", Schema::object([("leaf", Schema::string())]))]),
        ),
        ("maybe", Schema::string().nullable()),
        (
            "template",
            Schema::object([("spec", Schema::object([("x", Schema::string())]))]).embedded(),
        ),
    ])
    .required(["metadata"])
}

#[test]
fn a_valid_object_has_no_errors() {
    let obj = json!({
        "apiVersion": "v1", "kind": "Sample",
        "metadata": {"name": "a", "labels": {"app": "x"}, "creationTimestamp": null,
                     "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u", "controller": true}],
                     "managedFields": [{"manager": "m", "operation": "Update", "time": "2024-01-01T00:00:00Z",
                                        "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:labels": {}}}}]},
        "count": 3, "big": -9_000_000_000_i64, "ratio": 0.5, "enabled": false, "when": "2024-01-01T00:00:00Z",
        "data": "aGk=", "kindOf": "Warning", "port": "http", "tags": ["a", "b"], "limits": {"cpu": 2},
        "items": [{"name": "x", "size": 1}], "raw": [1, {"any": "thing"}], "loose": {"known": 1, "other": "y"},
        "nested": {"inner": {"leaf": "z"}}, "maybe": null,
        "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "t"}, "spec": {"x": "y"}}
    });
    assert_eq!(messages(&sample(), &obj), Vec::<String>::new());
    assert_eq!(unknown_fields(&sample(), &obj), Vec::<String>::new());
}

#[test]
fn type_errors_name_the_expected_and_actual_types() {
    let obj = json!({
        "metadata": {"name": 5}, "count": "five", "ratio": "half", "enabled": "yes", "tags": "a",
        "limits": [], "items": {}, "when": 7, "port": true, "nested": {"inner": []}
    });
    assert_eq!(
        messages(&sample(), &obj),
        [
            "metadata.name: Invalid value: \"integer\": metadata.name in body must be of type string: \"integer\"",
            "count: Invalid value: \"string\": count in body must be of type integer: \"string\"",
            "ratio: Invalid value: \"string\": ratio in body must be of type number: \"string\"",
            "enabled: Invalid value: \"string\": enabled in body must be of type boolean: \"string\"",
            "tags: Invalid value: \"string\": tags in body must be of type array: \"string\"",
            "limits: Invalid value: \"array\": limits in body must be of type object: \"array\"",
            "items: Invalid value: \"object\": items in body must be of type array: \"object\"",
            "when: Invalid value: \"integer\": when in body must be of type string: \"integer\"",
            "port: Invalid value: \"boolean\": port in body must be of type integer or string: \"boolean\"",
            "nested.inner: Invalid value: \"array\": nested.inner in body must be of type object: \"array\"",
        ]
    );
    assert!(
        validate(&sample(), &obj)
            .iter()
            .all(|e| e.error_type == ErrorType::TypeInvalid)
    );
}

#[test]
fn integers_must_be_integral_and_in_range() {
    let s = sample();
    let errs = messages(
        &s,
        &json!({"metadata": {}, "count": 1.5, "big": 1.0, "port": 2.5}),
    );
    assert_eq!(
        errs,
        [
            "count: Invalid value: \"number\": count in body must be of type integer: \"number\"",
            "big: Invalid value: \"number\": big in body must be of type integer: \"number\"",
            "port: Invalid value: \"number\": port in body must be of type integer or string: \"number\"",
        ]
    );
    let range = messages(
        &s,
        &json!({"metadata": {}, "count": 2_147_483_648_u64, "big": u64::MAX}),
    );
    assert_eq!(
        range,
        [
            "count: Invalid value: 2147483648: count in body must be of type int32: \"2147483648\"",
            "big: Invalid value: 18446744073709551615: big in body must be of type int64: \"18446744073709551615\"",
        ]
    );
    assert!(
        validate(
            &s,
            &json!({"metadata": {}, "count": -2_147_483_648_i64, "port": 8080})
        )
        .is_empty()
    );
    assert!(!validate(&s, &json!({"metadata": {}, "count": -2_147_483_649_i64})).is_empty());
    // A number field takes integers too; an unformatted integer is an int64,
    // as Kubernetes reads every integer (issue #27).
    assert_eq!(
        messages(
            &s,
            &json!({"metadata": {}, "limits": {"x": 9_223_372_036_854_775_808_u64}})
        ),
        [
            "limits[x]: Invalid value: 9223372036854775808: limits[x] in body must be of type int64: \"9223372036854775808\""
        ]
    );
    assert!(
        validate(
            &s,
            &json!({"metadata": {}, "ratio": 3, "limits": {"x": i64::MAX}})
        )
        .is_empty()
    );
}

#[test]
fn required_fields_and_null() {
    let s = sample();
    assert_eq!(messages(&s, &json!({})), ["metadata: Required value"]);
    assert_eq!(
        messages(&s, &json!({"metadata": null})),
        ["metadata: Required value"]
    );
    // null on an optional field is "unset", anywhere.
    assert!(
        validate(
            &s,
            &json!({"metadata": {"labels": null}, "count": null, "tags": [null], "items": null})
        )
        .is_empty()
    );
    // Required inside arrays of objects.
    assert_eq!(
        messages(
            &s,
            &json!({"metadata": {}, "items": [{"name": "a"}, {"size": 1}, {"name": null}]})
        ),
        [
            "items[1].name: Required value",
            "items[2].name: Required value"
        ]
    );
    let errs = validate(
        &s,
        &json!({"metadata": {"ownerReferences": [{"kind": "Pod", "name": "p"}]}}),
    );
    let fields: Vec<&str> = errs.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "metadata.ownerReferences[0].apiVersion",
            "metadata.ownerReferences[0].uid"
        ]
    );
    assert_eq!(errs[0].reason(), "FieldValueRequired");
}

#[test]
fn a_null_body_is_a_type_error() {
    assert_eq!(
        messages(&sample(), &Value::Null),
        [": Invalid value: \"null\": body must be of type object: \"null\""]
    );
}

#[test]
fn a_required_nullable_field_may_be_null() {
    let s = Schema::object([("x", Schema::string().nullable())]).required(["x"]);
    assert!(validate(&s, &json!({"x": null})).is_empty());
    assert_eq!(messages(&s, &json!({})), ["x: Required value"]);
}

#[test]
fn enums_report_supported_values() {
    assert_eq!(
        messages(&sample(), &json!({"metadata": {}, "kindOf": "Odd"})),
        ["kindOf: Unsupported value: \"Odd\": supported values: \"Normal\", \"Warning\""]
    );
    let numeric = Schema::object([(
        "n",
        Schema {
            enum_values: vec![json!(1), json!(2)],
            ..Schema::number()
        },
    )]);
    assert!(validate(&numeric, &json!({"n": 1.0})).is_empty());
    assert_eq!(
        messages(&numeric, &json!({"n": 3})),
        ["n: Unsupported value: 3: supported values: \"1\", \"2\""]
    );
}

#[test]
fn formats_are_checked() {
    let errs = messages(
        &sample(),
        &json!({"metadata": {"creationTimestamp": "yesterday"}, "when": "2024-02-30T00:00:00Z", "data": "a"}),
    );
    assert_eq!(
        errs,
        [
            "metadata.creationTimestamp: Invalid value: \"yesterday\": metadata.creationTimestamp in body must be of type date-time: \"yesterday\"",
            "when: Invalid value: \"2024-02-30T00:00:00Z\": when in body must be of type date-time: \"2024-02-30T00:00:00Z\"",
            "data: Invalid value: \"a\": data in body must be of type byte: \"a\"",
        ]
    );
    // MicroTime shares the check: a fraction is fine on both.
    let s = Schema::object([("t", Schema::micro_time()), ("u", Schema::time())]);
    assert!(
        validate(
            &s,
            &json!({"t": "2024-01-01T00:00:00.123456Z", "u": "2024-01-01T00:00:00.5+01:00"})
        )
        .is_empty()
    );
}

#[test]
fn map_entries_and_array_elements_have_paths() {
    let errs = messages(
        &sample(),
        &json!({"metadata": {"labels": {"app": 1}, "finalizers": ["a", 2]}, "limits": {"cpu": "x"}}),
    );
    assert_eq!(
        errs,
        [
            "metadata.labels[app]: Invalid value: \"integer\": metadata.labels[app] in body must be of type string: \"integer\"",
            "metadata.finalizers[1]: Invalid value: \"integer\": metadata.finalizers[1] in body must be of type string: \"integer\"",
            "limits[cpu]: Invalid value: \"string\": limits[cpu] in body must be of type integer: \"string\"",
        ]
    );
}

#[test]
fn free_form_and_preserved_fields_accept_anything_undeclared() {
    let s = sample();
    let obj = json!({"metadata": {}, "raw": "text", "loose": {"known": "no", "other": [1]}});
    assert_eq!(
        messages(&s, &obj),
        [
            "loose.known: Invalid value: \"string\": loose.known in body must be of type integer: \"string\""
        ]
    );
    assert_eq!(unknown_fields(&s, &obj), Vec::<String>::new());
}

#[test]
fn embedded_resources_check_their_metadata() {
    let obj = json!({"metadata": {}, "template": {"apiVersion": 1, "metadata": {"name": [], "bogus": 1}, "spec": {"x": "y", "z": 1}}});
    assert_eq!(
        messages(&sample(), &obj),
        [
            "template.apiVersion: Invalid value: \"integer\": template.apiVersion in body must be of type string: \"integer\"",
            "template.metadata.name: Invalid value: \"array\": template.metadata.name in body must be of type string: \"array\"",
        ]
    );
    assert_eq!(
        unknown_fields(&sample(), &obj),
        ["template.metadata.bogus", "template.spec.z"]
    );
}

#[test]
fn unknown_fields_are_listed_in_document_order() {
    let s = sample();
    let obj = json!({
        "zeta": 1,
        "metadata": {"name": "a", "colour": "red", "ownerReferences": [{"uid": "u"}, {"uid": "v", "extra": true}]},
        "items": [{"name": "a"}, {"name": "b", "extra": 1, "more": {"deep": 1}}],
        "nested": {"inner": {"leaf": "x", "bogus": 2}, "stray": 3},
        "limits": {"cpu": 1},
        "alpha": {"x": 1}
    });
    assert_eq!(
        unknown_fields(&s, &obj),
        [
            "zeta",
            "metadata.colour",
            "metadata.ownerReferences[1].extra",
            "items[1].extra",
            "items[1].more",
            "nested.inner.bogus",
            "nested.stray",
            "alpha",
        ]
    );
}

#[test]
fn unknown_fields_inside_maps_of_objects_use_dotted_keys() {
    let s = Schema::object([(
        "spec",
        Schema::map(Schema::object([("a", Schema::string())])),
    )]);
    assert_eq!(
        unknown_fields(&s, &json!({"spec": {"k1": {"a": "x", "b": 1}}})),
        ["spec.k1.b"]
    );
}

#[test]
fn type_mismatches_are_not_unknown_fields() {
    assert_eq!(
        unknown_fields(&sample(), &json!({"metadata": "x", "items": {"a": 1}})),
        Vec::<String>::new()
    );
}

#[test]
fn prune_removes_exactly_the_unknown_fields_and_keeps_order() {
    let s = sample();
    let mut obj = json!({
        "zeta": 1, "kind": "Sample",
        "metadata": {"name": "a", "colour": "red"},
        "items": [{"name": "b", "extra": 1}],
        "loose": {"other": 1}, "raw": {"anything": 1},
        "template": {"kind": "Pod", "metadata": {"name": "t", "bogus": 1}, "junk": 1},
        "count": 1
    });
    prune(&s, &mut obj);
    assert_eq!(
        obj,
        json!({
            "kind": "Sample", "metadata": {"name": "a"}, "items": [{"name": "b"}],
            "loose": {"other": 1}, "raw": {"anything": 1},
            "template": {"kind": "Pod", "metadata": {"name": "t"}}, "count": 1
        })
    );
    let keys: Vec<&String> = obj.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "kind", "metadata", "items", "loose", "raw", "template", "count"
        ]
    );
    assert!(unknown_fields(&s, &obj).is_empty());
}

#[test]
fn object_meta_declares_the_kubernetes_fields() {
    let meta = Schema::object_meta();
    let names: Vec<&str> = meta.properties.iter().map(|(k, _)| k.as_str()).collect();
    for f in [
        "name",
        "generateName",
        "namespace",
        "selfLink",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "labels",
        "annotations",
        "ownerReferences",
        "finalizers",
        "managedFields",
    ] {
        assert!(names.contains(&f), "{f}");
    }
    assert_eq!(
        meta.property("generation").unwrap().format.as_deref(),
        Some("int64")
    );
    assert!(
        meta.property("managedFields")
            .unwrap()
            .items
            .as_ref()
            .unwrap()
            .property("fieldsV1")
            .unwrap()
            .preserve_unknown_fields
    );
}
