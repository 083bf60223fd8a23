//! Tests of reading CRD schemas (`from_openapi`): structural rules, value
//! limits with kube-openapi's wording, junctors, and defaults.

use serde_json::{Value, json};

use super::tests::messages;
use super::*;

#[test]
fn from_openapi_reads_a_crd_schema() {
    let doc = json!({
        "type": "object",
        "description": "A widget.",
        "properties": {
            "spec": {
                "type": "object",
                "required": ["size"],
                "properties": {
                    "size": {"type": "integer", "format": "int32", "minimum": 1},
                    "colour": {"type": "string", "enum": ["red", "blue"]},
                    "port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                    "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                    "anything": {"x-kubernetes-preserve-unknown-fields": true},
                    "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                              "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}},
                    "note": {"type": "string", "nullable": true, "default": "x"},
                    "pod": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true},
                    "free": {"type": "object", "additionalProperties": true}
                }
            }
        }
    });
    let s = Schema::from_openapi(&doc).unwrap();
    assert_eq!(s.description, "A widget.");
    let spec = s.property("spec").unwrap();
    let names: Vec<&str> = spec.properties.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        [
            "size", "colour", "port", "labels", "extra", "anything", "ports", "note", "pod", "free"
        ]
    );
    assert_eq!(spec.required, ["size"]);
    assert!(spec.property("port").unwrap().int_or_string);
    assert_eq!(spec.property("ports").unwrap().list_map_keys, ["name"]);
    assert!(spec.property("note").unwrap().nullable);
    assert!(spec.property("pod").unwrap().embedded_resource);

    let obj = json!({"spec": {"colour": "green", "port": 80, "labels": {"a": "b"}, "extra": {"x": 1},
                              "anything": 5, "free": {"k": [1]}, "bogus": 1}});
    assert_eq!(
        messages(&s, &obj),
        [
            "spec.size: Required value",
            "spec.colour: Unsupported value: \"green\": supported values: \"red\", \"blue\""
        ]
    );
    assert_eq!(unknown_fields(&s, &obj), ["spec.bogus"]);
}

#[test]
fn from_openapi_rejects_non_structural_schemas() {
    let doc = json!({
        "type": "object",
        "properties": {
            "a": {"properties": {"x": {"type": "string"}}},
            "b": {"type": "array"},
            "c": {"type": "strin"},
            "d": {"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": {"type": "string"}},
            "e": {"$ref": "#/definitions/x", "type": "string"},
            "f": {"type": "string", "x-kubernetes-int-or-string": true},
            "g": {"type": "object", "additionalProperties": false},
            "h": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "map"},
            "i": {"type": "string", "bogus": 1},
            "j": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
            "k": {"type": "string", "items": {"type": "string"}},
            "l": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "string"}}},
                  "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["m"]},
            "m": {"type": "string", "required": "x"}
        }
    });
    let errs: Vec<String> = Schema::from_openapi(&doc)
        .unwrap_err()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        errs,
        [
            "properties[a].type: Required value: must not be empty for specified fields",
            "properties[a].properties: Forbidden: only allowed with type object",
            "properties[b].items: Required value: must be specified",
            "properties[c].type: Unsupported value: \"strin\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"",
            "properties[c].type: Required value: must not be empty for specified fields",
            "properties[d].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive",
            "properties[e].$ref: Forbidden: $ref is not supported in a structural schema",
            "properties[f].type: Invalid value: \"string\": must be empty if x-kubernetes-int-or-string is true",
            "properties[g].additionalProperties: Forbidden: additionalProperties cannot be set to false",
            "properties[h].x-kubernetes-list-type: Invalid value: \"map\": x-kubernetes-list-type map requires items of type object",
            "properties[i].bogus: Forbidden: unknown schema keyword \"bogus\"",
            "properties[j].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
            "properties[k].items: Forbidden: only allowed with type array",
            "properties[l].x-kubernetes-list-map-keys: Invalid value: \"m\": entries must all be names of item properties",
            "properties[m].required: Invalid value: \"string\": properties[m].required in body must be of type array: \"string\"",
        ]
    );
}

#[test]
fn from_openapi_requires_an_object_root() {
    let errs = Schema::from_openapi(&json!({"type": "string"})).unwrap_err();
    assert_eq!(
        errs[0].to_string(),
        "type: Invalid value: \"string\": must be object at the root"
    );
    let errs = Schema::from_openapi(&json!([])).unwrap_err();
    assert_eq!(
        errs[0].to_string(),
        ": Invalid value: \"array\": body must be of type object: \"array\""
    );
    assert_eq!(
        errs[0]
            .clone()
            .prefixed("spec.validation.openAPIV3Schema")
            .field,
        "spec.validation.openAPIV3Schema"
    );
}

fn crd(doc: Value) -> Schema {
    Schema::from_openapi(&doc).unwrap_or_else(|e| panic!("{e:?}"))
}

fn load_errors(doc: Value) -> Vec<String> {
    Schema::from_openapi(&doc)
        .unwrap_err()
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn numeric_limits_use_kube_openapi_wording() {
    let s = crd(json!({"type": "object", "properties": {
        "replicas": {"type": "integer", "minimum": 1, "maximum": 10},
        "ratio": {"type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 1, "exclusiveMaximum": true},
        "step": {"type": "integer", "multipleOf": 5},
        "big": {"type": "number", "maximum": 1000000}
    }}));
    assert_eq!(
        messages(
            &s,
            &json!({"replicas": 20, "ratio": 1, "step": 7, "big": 2e6})
        ),
        [
            "replicas: Invalid value: 20: replicas in body should be less than or equal to 10",
            "ratio: Invalid value: 1: ratio in body should be less than 1",
            "step: Invalid value: 7: step in body should be a multiple of 5",
            "big: Invalid value: 2000000.0: big in body should be less than or equal to 1e+06",
        ]
    );
    assert_eq!(
        messages(&s, &json!({"replicas": 0, "ratio": 0})),
        [
            "replicas: Invalid value: 0: replicas in body should be greater than or equal to 1",
            "ratio: Invalid value: 0: ratio in body should be greater than 0",
        ]
    );
    assert!(messages(&s, &json!({"replicas": 10, "ratio": 0.5, "step": 15})).is_empty());
}

#[test]
fn string_limits_count_characters() {
    let s = crd(json!({"type": "object", "properties": {
        "name": {"type": "string", "minLength": 2, "maxLength": 5, "pattern": "^[a-z]+$"}
    }}));
    assert_eq!(
        messages(&s, &json!({"name": "AB"})),
        ["name: Invalid value: \"AB\": name in body should match '^[a-z]+$'"]
    );
    assert_eq!(
        messages(&s, &json!({"name": "abcdef"})),
        ["name: Too long: may not be more than 5 bytes"]
    );
    assert_eq!(
        messages(&s, &json!({"name": "a"})),
        ["name: Invalid value: \"a\": name in body should be at least 2 chars long"]
    );
    // Five characters, ten bytes: fits (length is counted in characters)
    // but does not match the ASCII pattern.
    assert_eq!(messages(&s, &json!({"name": "ééééé"})).len(), 1);
    let too_long = validate(&s, &json!({"name": "abcdef"}));
    assert_eq!(too_long[0].reason(), "FieldValueTooLong");
}

#[test]
fn collection_limits_and_list_uniqueness() {
    let s = crd(json!({"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 3, "x-kubernetes-list-type": "set"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}, "minProperties": 1, "maxProperties": 2},
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                  "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}}
    }}));
    assert_eq!(
        messages(
            &s,
            &json!({"tags": ["a", "b", "a", "c"], "labels": {"a": "1", "b": "2", "c": "3"},
                             "ports": [{"name": "http", "port": 1}, {"name": "http", "port": 2}]})
        ),
        [
            "tags: Too many: 4: must have at most 3 items",
            "tags[2]: Duplicate value: \"a\"",
            "labels: Too many: 3: must have at most 2 items",
            "ports[1]: Duplicate value: map[string]interface {}{\"name\":\"http\"}",
        ]
    );
    assert_eq!(
        messages(&s, &json!({"tags": ["a"], "labels": {}})),
        [
            "tags: Invalid value: 1: tags in body should have at least 2 items",
            "labels: Invalid value: 0: labels in body should have at least 1 properties",
        ]
    );
}

#[test]
fn junctors_restrict_values() {
    let s = crd(json!({"type": "object", "properties": {
        "x": {"type": "string", "anyOf": [{"maxLength": 2}, {"pattern": "^a"}], "not": {"enum": ["ab"]}},
        "y": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
              "oneOf": [{"required": ["a"]}, {"required": ["b"]}]},
        "z": {"type": "integer", "allOf": [{"minimum": 1}, {"maximum": 5}]}
    }}));
    assert!(messages(&s, &json!({"x": "abc", "y": {"a": "1"}, "z": 3})).is_empty());
    assert_eq!(
        messages(&s, &json!({"x": "bcd"})),
        [
            ": Invalid value: \"\": \"x\" must validate at least one schema (anyOf)",
            "x: Too long: may not be more than 2 bytes",
        ]
    );
    assert_eq!(
        messages(&s, &json!({"x": "ab"})),
        [": Invalid value: \"\": \"x\" must not validate the schema (not)"]
    );
    assert_eq!(
        messages(&s, &json!({"y": {"a": "1", "b": "2"}})),
        [
            ": Invalid value: \"\": \"y\" must validate one and only one schema (oneOf). Found 2 valid alternatives"
        ]
    );
    assert_eq!(
        messages(&s, &json!({"z": 9}))[0],
        ": Invalid value: \"\": \"z\" must validate all the schemas (allOf). Failing 1 schemas"
    );
}

#[test]
fn junctors_may_not_change_the_shape() {
    let errs = load_errors(json!({"type": "object", "properties": {
        "a": {"type": "string", "anyOf": [{"type": "string", "description": "d"}], "not": {"nullable": true}},
        "b": {"type": "object", "allOf": [{"properties": {"metadata": {"maxProperties": 1}}, "default": {}}]}
    }}));
    assert_eq!(
        errs,
        [
            "properties[a].anyOf[0].type: Forbidden: must be empty to be structural",
            "properties[a].anyOf[0].description: Forbidden: must be empty to be structural",
            "properties[a].not.nullable: Forbidden: must be false to be structural",
            "properties[b].allOf[0].properties[metadata]: Forbidden: must not be specified in a nested context",
            "properties[b].allOf[0].default: Forbidden: must be undefined to be structural",
        ]
    );
}

#[test]
fn bad_patterns_and_map_keys_are_rejected_at_load() {
    let errs = load_errors(json!({"type": "object", "properties": {
        "a": {"type": "string", "pattern": "("},
        "b": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
              "items": {"type": "object", "properties": {"k": {"type": "string", "nullable": true}}}}
    }}));
    assert!(errs[0].starts_with("properties[a].pattern: Invalid value: \"(\": must be a valid regular expression, but isn't: "), "{errs:?}");
    assert_eq!(
        errs[1..],
        [
            "properties[b].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
            "properties[b].items.properties[k].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
        ]
    );
}

#[test]
fn defaults_fill_missing_and_null_fields_recursively() {
    let s = crd(json!({"type": "object", "properties": {
        "spec": {"type": "object", "default": {}, "properties": {
            "replicas": {"type": "integer", "default": 1},
            "mode": {"type": "string", "nullable": true, "default": "fast"},
            "items": {"type": "array", "items": {"type": "object", "default": {}, "properties": {"w": {"type": "integer", "default": 7}}}},
            "env": {"type": "object", "additionalProperties": {"type": "object", "properties": {"v": {"type": "string", "default": "x"}}}}
        }}
    }}));
    let mut v = json!({});
    apply_defaults(&s, &mut v);
    assert_eq!(v, json!({"spec": {"replicas": 1, "mode": "fast"}}));
    let mut v =
        json!({"spec": {"replicas": null, "mode": null, "items": [null, {}], "env": {"a": {}}}});
    apply_defaults(&s, &mut v);
    assert_eq!(
        v,
        json!({"spec": {"replicas": 1, "mode": null, "items": [{"w": 7}, {"w": 7}], "env": {"a": {"v": "x"}}}})
    );
}

#[test]
fn defaults_are_checked_when_the_schema_is_read() {
    let errs = load_errors(json!({"type": "object", "properties": {
        "metadata": {"type": "object", "properties": {"name": {"type": "string", "default": "x"}}},
        "a": {"type": "integer", "maximum": 10, "default": 20},
        "b": {"type": "object", "properties": {"x": {"type": "string"}}, "default": {"y": 1}},
        "c": {"type": "string", "default": 5},
        "d": {"type": "integer", "default": 3, "x-kubernetes-validations": [{"rule": "self > 5"}]}
    }}));
    assert_eq!(
        errs,
        [
            "properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata",
            "properties[a].default: Invalid value: 20: body should be less than or equal to 10",
            "properties[b].default: Invalid value: map[string]interface {}{\"y\":1}: must not have unknown fields",
            "properties[c].default: Invalid value: \"integer\": body must be of type string: \"integer\"",
            "properties[d].default: Invalid value: \"integer\": failed rule: self > 5",
        ]
    );
}
