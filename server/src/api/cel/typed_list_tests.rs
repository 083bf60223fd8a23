//! Tests of set and map lists in rules: order-blind `==`, `+` as union and
//! merge, and plain lists left as they were.

use serde_json::{Value, json};

use crate::api::schema::{Schema, validate_rules};

/// A schema whose `spec` holds a set of strings, a map list keyed by
/// `name`, a map list keyed by two fields, and a plain (atomic) list, with
/// `rules` on `spec`.
fn schema(rules: &[&str]) -> Schema {
    let rules: Vec<Value> = rules.iter().map(|r| json!({"rule": r})).collect();
    let doc = json!({"type": "object", "properties": {"spec": {
    "type": "object",
    "x-kubernetes-validations": rules,
    "properties": {
        "set": {"type": "array", "maxItems": 10, "x-kubernetes-list-type": "set",
                "items": {"type": "string", "maxLength": 10}},
        "other": {"type": "array", "maxItems": 10, "x-kubernetes-list-type": "set",
                "items": {"type": "string", "maxLength": 10}},
        "plain": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 10}},
        "ports": {"type": "array", "maxItems": 10, "x-kubernetes-list-type": "map",
                  "x-kubernetes-list-map-keys": ["name"],
                  "items": {"type": "object", "required": ["name"], "properties": {
                      "name": {"type": "string", "maxLength": 10},
                      "port": {"type": "integer"},
                      "tags": {"type": "array", "maxItems": 5, "x-kubernetes-list-type": "set",
                               "items": {"type": "string", "maxLength": 10}}}}},
        "more": {"type": "array", "maxItems": 10, "x-kubernetes-list-type": "map",
                  "x-kubernetes-list-map-keys": ["name"],
                  "items": {"type": "object", "required": ["name"], "properties": {
                      "name": {"type": "string", "maxLength": 10},
                      "port": {"type": "integer"}}}},
        "pairs": {"type": "array", "maxItems": 10, "x-kubernetes-list-type": "map",
                  "x-kubernetes-list-map-keys": ["a", "b"],
                  "items": {"type": "object", "required": ["a", "b"], "properties": {
                      "a": {"type": "string", "maxLength": 10},
                      "b": {"type": "integer"},
                      "v": {"type": "string", "maxLength": 10}}}}
    }}}});
    Schema::from_openapi(&doc).unwrap_or_else(|e| panic!("{e:?}"))
}

/// The rules of `rules` that fail on `spec`.
fn failing(rules: &[&str], spec: Value) -> Vec<String> {
    validate_rules(&schema(rules), &json!({ "spec": spec }), None)
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn holds(rule: &str, spec: &Value) {
    let errors = failing(&[rule], spec.clone());
    assert!(errors.is_empty(), "{rule} on {spec}: {errors:?}");
}

fn fails(rule: &str, spec: &Value) {
    let errors = failing(&[rule], spec.clone());
    assert_eq!(errors.len(), 1, "{rule} on {spec} should fail: {errors:?}");
}

#[test]
fn sets_compare_ignoring_order() {
    let spec = json!({"set": ["a", "b", "c"], "other": ["c", "a", "b"], "plain": ["c", "a", "b"]});
    holds("self.set == self.other", &spec);
    holds("self.set == ['b', 'c', 'a']", &spec);
    holds("self.set != ['a', 'b']", &spec);
    holds("self.set != ['a', 'b', 'd']", &spec);
    holds("self.set == self.plain", &spec);
    fails("self.set != self.other", &spec);
    // A plain list on the left compares in order, as in Kubernetes.
    holds("self.plain != self.set", &spec);
    holds("['b', 'c', 'a'] != self.set", &spec);
    holds("self.plain == ['c', 'a', 'b']", &spec);
    fails("self.plain == ['a', 'b', 'c']", &spec);
}

#[test]
fn adding_to_a_set_is_a_union_keeping_the_left_order() {
    let spec = json!({"set": ["b", "a"], "other": ["c", "a", "d"]});
    holds("self.set + self.other == ['b', 'a', 'c', 'd']", &spec);
    holds(
        "(self.set + self.other)[2] == 'c' && (self.set + self.other)[3] == 'd'",
        &spec,
    );
    holds("size(self.set + ['a', 'b', 'x']) == 3", &spec);
    holds("(self.set + ['a', 'x'])[2] == 'x'", &spec);
    holds("size(self.set + ['x', 'x', 'a']) == 3", &spec);
    // The union is a set again: it compares ignoring order.
    holds("self.set + self.other == ['d', 'c', 'b', 'a']", &spec);
    // A plain list on the left concatenates.
    holds("size(['a'] + self.set) == 3", &spec);
}

#[test]
fn map_lists_compare_by_key_ignoring_order() {
    let spec = json!({
        "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}],
        "more": [{"name": "https", "port": 443}, {"name": "http", "port": 80}]
    });
    holds("self.ports == self.more", &spec);
    holds(
        "self.ports == [{'name': 'https', 'port': 443}, {'name': 'http', 'port': 80}]",
        &spec,
    );
    holds(
        "self.ports != [{'name': 'https', 'port': 8443}, {'name': 'http', 'port': 80}]",
        &spec,
    );
    holds("self.ports != [{'name': 'https', 'port': 443}]", &spec);
    fails("self.ports != self.more", &spec);
}

#[test]
fn adding_to_a_map_list_merges_by_key() {
    let spec = json!({
        "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}],
        "more": [{"name": "metrics", "port": 9090}, {"name": "http", "port": 8080}]
    });
    let merged = "self.ports + self.more";
    holds(&format!("size({merged}) == 3"), &spec);
    // Replaced in place, new ones appended.
    holds(
        &format!("({merged})[0].port == 8080 && ({merged})[0].name == 'http'"),
        &spec,
    );
    holds(
        &format!("({merged})[1].name == 'https' && ({merged})[2].name == 'metrics'"),
        &spec,
    );
    holds(
        &format!(
            "{merged} == [{{'name': 'metrics', 'port': 9090}}, {{'name': 'https', 'port': 443}}, {{'name': 'http', 'port': 8080}}]"
        ),
        &spec,
    );
    holds(
        "(self.ports + [{'name': 'https', 'port': 1}])[1].port == 1",
        &spec,
    );
}

#[test]
fn map_lists_with_several_keys_and_nested_sets() {
    let spec = json!({
        "pairs": [{"a": "x", "b": 1, "v": "one"}, {"a": "x", "b": 2, "v": "two"}],
        "ports": [{"name": "http", "port": 80, "tags": ["a", "b"]}]
    });
    holds(
        "size(self.pairs + [{'a': 'x', 'b': 2, 'v': 'new'}]) == 2",
        &spec,
    );
    holds(
        "(self.pairs + [{'a': 'x', 'b': 2, 'v': 'new'}])[1].v == 'new'",
        &spec,
    );
    holds(
        "size(self.pairs + [{'a': 'y', 'b': 1, 'v': 'y'}]) == 3",
        &spec,
    );
    holds(
        "self.pairs == [{'a': 'x', 'b': 2, 'v': 'two'}, {'a': 'x', 'b': 1, 'v': 'one'}]",
        &spec,
    );
    // A set inside an element keeps its own type.
    holds("self.ports[0].tags == ['b', 'a']", &spec);
    holds(
        "self.ports == [{'name': 'http', 'port': 80, 'tags': ['a', 'b']}]",
        &spec,
    );
}

#[test]
fn typed_lists_still_behave_as_lists_elsewhere() {
    let spec = json!({"set": ["b", "a"], "ports": [{"name": "http", "port": 80}]});
    holds(
        "self.set[0] == 'b' && size(self.set) == 2 && 'a' in self.set",
        &spec,
    );
    holds(
        "self.set.exists(s, s == 'a') && self.set.map(s, s + '!')[1] == 'a!'",
        &spec,
    );
    holds("!self.set.isSorted() && self.set.indexOf('a') == 1", &spec);
    holds(
        "self.ports.all(p, p.port > 0) && self.ports[0].name == 'http'",
        &spec,
    );
}

#[test]
fn transition_rules_compare_sets_ignoring_order() {
    let s = schema(&["self.set == oldSelf.set"]);
    let old = json!({"spec": {"set": ["a", "b"]}});
    assert!(validate_rules(&s, &json!({"spec": {"set": ["b", "a"]}}), Some(&old)).is_empty());
    assert_eq!(
        validate_rules(&s, &json!({"spec": {"set": ["b", "c"]}}), Some(&old)).len(),
        1
    );
}
