//! Tests of rule compilation, evaluation, libraries, transition rules and costs.

use serde_json::{Value, json};

use crate::api::schema::{Schema, validate_rules};

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

fn run(schema: &Schema, new: &Value, old: Option<&Value>) -> Vec<String> {
    validate_rules(schema, new, old)
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// A schema with one rule on `spec` (an object with a few fields).
fn spec_rule(rule: Value) -> Schema {
    crd(json!({"type": "object", "properties": {"spec": {
        "type": "object",
        "x-kubernetes-validations": [rule],
        "properties": {
            "replicas": {"type": "integer"},
            "max": {"type": "integer"},
            "name": {"type": "string", "maxLength": 64},
            "namespace": {"type": "string", "maxLength": 64},
            "x-prop": {"type": "string", "maxLength": 64},
            "redact__d": {"type": "string", "maxLength": 64},
            "tags": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 10}},
            "nums": {"type": "array", "maxItems": 10, "items": {"type": "integer"}},
            "mem": {"type": "string", "maxLength": 20}
        }
    }}}))
}

/// Whether `expr` holds for `spec`.
fn holds(expr: &str, spec: Value) -> bool {
    let s = spec_rule(json!({"rule": expr}));
    let errs = run(&s, &json!({"spec": spec}), None);
    match errs.as_slice() {
        [] => true,
        [one] if one.contains("failed rule") => false,
        other => panic!("{expr}: {other:?}"),
    }
}

#[test]
fn a_failed_rule_reports_the_node_path_and_type() {
    let s = spec_rule(json!({"rule": "self.replicas <= self.max"}));
    assert!(run(&s, &json!({"spec": {"replicas": 1, "max": 3}}), None).is_empty());
    assert_eq!(
        run(&s, &json!({"spec": {"replicas": 5, "max": 3}}), None),
        ["spec: Invalid value: \"object\": failed rule: self.replicas <= self.max"]
    );
}

#[test]
fn message_field_path_and_reason_shape_the_error() {
    let s = spec_rule(
        json!({"rule": "self.replicas <= 3", "message": "too many", "fieldPath": ".replicas", "reason": "FieldValueForbidden"}),
    );
    let errs = validate_rules(&s, &json!({"spec": {"replicas": 5}}), None);
    assert_eq!(errs[0].to_string(), "spec.replicas: Forbidden: too many");
    assert_eq!(errs[0].reason(), "FieldValueForbidden");
    let s = spec_rule(json!({"rule": "self.replicas <= 3", "reason": "FieldValueRequired"}));
    assert_eq!(
        run(&s, &json!({"spec": {"replicas": 5}}), None),
        ["spec: Required value: failed rule: self.replicas <= 3"]
    );
    let s = spec_rule(json!({"rule": "self.replicas <= 3", "reason": "FieldValueDuplicate"}));
    assert_eq!(
        run(&s, &json!({"spec": {"replicas": 5}}), None),
        ["spec: Duplicate value: \"object\""]
    );
    let s = spec_rule(
        json!({"rule": "self.replicas <= 3", "messageExpression": "'got ' + string(self.replicas)"}),
    );
    assert_eq!(
        run(&s, &json!({"spec": {"replicas": 5}}), None),
        ["spec: Invalid value: \"object\": got 5"]
    );
}

#[test]
fn evaluation_errors_name_the_rule() {
    let s = spec_rule(json!({"rule": "self.replicas > 0"}));
    let errs = run(&s, &json!({"spec": {}}), None);
    assert_eq!(errs.len(), 1);
    assert!(
        errs[0].starts_with("spec: Invalid value: \"object\": "),
        "{errs:?}"
    );
    assert!(
        errs[0].ends_with(" evaluating rule: self.replicas > 0"),
        "{errs:?}"
    );
}

#[test]
fn escaped_property_names_are_reachable() {
    assert!(holds(
        "self.__namespace__ == 'a' && self.x__dash__prop == 'b' && self.redact__underscores__d == 'c'",
        json!({"namespace": "a", "x-prop": "b", "redact__d": "c"})
    ));
    assert!(holds(
        "has(self.name) && !has(self.max)",
        json!({"name": "n"})
    ));
}

#[test]
fn list_library() {
    let spec = json!({"nums": [3, 1, 2, 1], "tags": ["a", "b"]});
    for expr in [
        "self.nums.indexOf(1) == 1",
        "self.nums.lastIndexOf(1) == 3",
        "self.nums.indexOf(9) == -1",
        "self.nums.min() == 1",
        "self.nums.max() == 3",
        "self.nums.sum() == 7",
        "!self.nums.isSorted() && self.tags.isSorted()",
        "self.tags.all(t, t.size() == 1)",
        "self.nums.exists(n, n == 2) && self.nums.filter(n, n > 1).size() == 2",
        "'abcab'.indexOf('b') == 1 && 'abcab'.lastIndexOf('b') == 4",
        "[duration('1s'), duration('2m')].sum() == duration('121s')",
        "[duration('1s'), duration('2m')].isSorted() && [duration('1h'), duration('1s')].min() == duration('1s')",
        "timestamp('2026-01-01T00:00:00Z') < timestamp('2026-01-02T00:00:00Z')",
    ] {
        assert!(holds(expr, spec.clone()), "{expr}");
    }
    assert!(!holds("self.nums.max() > 5", spec));
}

#[test]
fn regex_library() {
    let spec = json!({"name": "abc123def45"});
    for expr in [
        "self.name.matches('^[a-z]+[0-9]+')",
        "self.name.find('[0-9]+') == '123'",
        "self.name.find('x') == ''",
        "self.name.findAll('[0-9]+') == ['123', '45']",
        "self.name.findAll('[0-9]+', 1) == ['123']",
    ] {
        assert!(holds(expr, spec.clone()), "{expr}");
    }
}

#[test]
fn quantity_library() {
    let spec = json!({"mem": "1.5Gi"});
    for expr in [
        "quantity(self.mem).isGreaterThan(quantity('1G'))",
        "quantity('500m').isLessThan(quantity('1'))",
        "quantity('1Ki').compareTo(quantity('1024')) == 0",
        "quantity(self.mem).asInteger() == 1610612736",
        "quantity('1.5').isInteger() == false",
        "quantity('2k').asApproximateFloat() == 2000.0",
        "quantity('-3').sign() == -1",
        "quantity('1').add(quantity('500m')) == quantity('1.5')",
        "quantity('1').add(2) == quantity('3')",
        "quantity('1Ki').sub(24) == quantity('1k')",
        "isQuantity('10Mi') && !isQuantity('ten')",
    ] {
        assert!(holds(expr, spec.clone()), "{expr}");
    }
    let s = spec_rule(json!({"rule": "quantity(self.mem).sign() >= 0"}));
    let errs = run(&s, &json!({"spec": {"mem": "lots"}}), None);
    assert!(
        errs[0].contains("quantities must match the regular expression"),
        "{errs:?}"
    );
}

#[test]
fn transition_rules_run_only_on_update() {
    let s = spec_rule(json!({"rule": "self.name == oldSelf.name", "message": "name is immutable"}));
    assert!(run(&s, &json!({"spec": {"name": "a"}}), None).is_empty());
    let old = json!({"spec": {"name": "a"}});
    assert!(run(&s, &json!({"spec": {"name": "a"}}), Some(&old)).is_empty());
    assert_eq!(
        run(&s, &json!({"spec": {"name": "b"}}), Some(&old)),
        ["spec: Invalid value: \"object\": name is immutable"]
    );
    let s = spec_rule(
        json!({"rule": "!oldSelf.hasValue() || self.name == oldSelf.value().name", "optionalOldSelf": true}),
    );
    assert!(run(&s, &json!({"spec": {"name": "b"}}), None).is_empty());
    assert_eq!(
        run(&s, &json!({"spec": {"name": "b"}}), Some(&old)).len(),
        1
    );
}

#[test]
fn map_list_items_pair_with_their_old_items_by_key() {
    let s = crd(json!({"type": "object", "properties": {"ports": {
        "type": "array", "maxItems": 10, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
        "items": {"type": "object", "required": ["name"], "x-kubernetes-validations": [{"rule": "self.port == oldSelf.port", "message": "port is immutable"}],
                  "properties": {"name": {"type": "string", "maxLength": 10}, "port": {"type": "integer"}}}
    }}}));
    let old = json!({"ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}]});
    let new = json!({"ports": [{"name": "b", "port": 2}, {"name": "a", "port": 9}, {"name": "c", "port": 3}]});
    assert_eq!(
        run(&s, &new, Some(&old)),
        ["ports[1]: Invalid value: \"object\": port is immutable"]
    );
}

#[test]
fn compile_errors_use_kubernetes_paths() {
    let errs = load_errors(
        json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"a": {"type": "integer"}},
        "x-kubernetes-validations": [
            {"rule": "self.a >"},
            {"rule": "self.nope == 1"},
            {"rule": "other == 1"},
            {"rule": ""},
            {"rule": "self.a > 0", "reason": "Odd"},
            {"rule": "self.a > 0", "messageExpression": "'x' +"},
            {"rule": "self.a > 0", "optionalOldSelf": true},
            {"rule": "self.a > 0", "fieldPath": ".b"}
        ]}}}),
    );
    let at = "properties[spec].x-kubernetes-validations";
    assert_eq!(errs.len(), 8, "{errs:#?}");
    assert!(errs[0].starts_with(&format!("{at}[0].rule: Invalid value: map[string]interface {{}}{{\"rule\":\"self.a >\"}}: compilation failed: ")), "{}", errs[0]);
    assert!(
        errs[1].contains("[1].rule: Invalid value") && errs[1].contains("undefined field 'nope'"),
        "{}",
        errs[1]
    );
    assert!(
        errs[2].contains("[2].rule: Invalid value")
            && errs[2].contains("undeclared reference to 'other'"),
        "{}",
        errs[2]
    );
    assert_eq!(
        errs[3],
        format!("{at}[3].rule: Required value: rule is not specified")
    );
    assert_eq!(
        errs[4],
        format!(
            "{at}[4].reason: Unsupported value: \"Odd\": supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\""
        )
    );
    assert!(
        errs[5].starts_with(&format!("{at}[5].messageExpression: Invalid value: "))
            && errs[5].contains("messageExpression compilation failed"),
        "{}",
        errs[5]
    );
    assert_eq!(
        errs[6],
        format!(
            "{at}[6].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule"
        )
    );
    assert_eq!(
        errs[7],
        format!("{at}[7].fieldPath: Invalid value: \".b\": fieldPath must be a valid path")
    );
}

#[test]
fn transition_rules_need_correlatable_nodes() {
    let errs = load_errors(
        json!({"type": "object", "properties": {"list": {"type": "array", "maxItems": 5,
        "items": {"type": "object", "properties": {"a": {"type": "string", "maxLength": 5}},
                  "x-kubernetes-validations": [{"rule": "self.a == oldSelf.a"}]}}}}),
    );
    assert_eq!(
        errs,
        [
            "properties[list].items.x-kubernetes-validations[0].rule: Invalid value: \"self.a == oldSelf.a\": oldSelf cannot be used on the uncorrelatable portion of the schema within properties[list]"
        ]
    );
}

#[test]
fn estimated_cost_rejects_unbounded_quadratic_rules() {
    let errs = load_errors(
        json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"list": {"type": "array", "items": {"type": "string"}}},
        "x-kubernetes-validations": [{"rule": "self.list.all(a, self.list.all(b, a == b))"}]}}}),
    );
    // Far over the per-rule limit, and so over the schema's total too.
    assert_eq!(errs.len(), 3, "{errs:?}");
    assert_eq!(
        errs[0],
        "properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    );
    // Bounding the list and its strings makes the same rule affordable.
    crd(
        json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"list": {"type": "array", "maxItems": 100, "items": {"type": "string", "maxLength": 10}}},
        "x-kubernetes-validations": [{"rule": "self.list.all(a, self.list.all(b, a == b))"}]}}}),
    );
}

#[test]
fn estimated_cost_multiplies_by_how_often_a_rule_runs() {
    // Cheap per item, but the items may number a million.
    let errs = load_errors(
        json!({"type": "object", "properties": {"list": {"type": "array",
        "items": {"type": "string", "x-kubernetes-validations": [{"rule": "self.matches('^[a-z]+$')"}]}}}}),
    );
    assert_eq!(errs.len(), 3, "{errs:?}");
    assert!(errs[0].starts_with("properties[list].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget"));
}

#[test]
fn estimated_total_over_the_crd_limit_is_rejected() {
    // Each rule is just under the per-rule limit; twelve of them are not.
    let rule = json!({"rule": "self.s.matches('0123456789')"});
    let rules: Vec<Value> = (0..12).map(|_| rule.clone()).collect();
    let errs = load_errors(
        json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"s": {"type": "string", "maxLength": 900_000}},
        "x-kubernetes-validations": rules}}}),
    );
    assert_eq!(errs.len(), 5, "{errs:#?}");
    assert!(errs[0].ends_with("Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"));
    assert!(errs[4].starts_with(": Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1.0"), "{}", errs[4]);
}

#[test]
fn runtime_budget_stops_expensive_evaluations_quickly() {
    // Allowed at load (the list is declared small) but sent much larger:
    // maxItems is enforced by `validate`, the rules must still stay bounded.
    let s = crd(
        json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"list": {"type": "array", "maxItems": 10, "items": {"type": "integer"}}},
        "x-kubernetes-validations": [{"rule": "self.list.all(a, self.list.all(b, self.list.all(c, a + b + c >= 0)))"}]}}}),
    );
    let big: Vec<i64> = (0..5000).collect();
    let started = std::time::Instant::now();
    let errs = run(&s, &json!({"spec": {"list": big}}), None);
    assert_eq!(
        errs,
        [
            "spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.list.all(a, self.list.all(b, self.list.all(c, a + b + c >= 0)))"
        ]
    );
    assert!(started.elapsed().as_secs() < 5);
}

#[test]
fn runtime_budget_is_shared_by_all_rules_of_an_object() {
    let s = crd(
        json!({"type": "object", "properties": {"items": {"type": "array", "maxItems": 100,
        "items": {"type": "object", "properties": {"list": {"type": "array", "maxItems": 100, "items": {"type": "integer"}}},
                  "x-kubernetes-validations": [{"rule": "self.list.all(a, self.list.all(b, a + b >= 0))"}]}}}}),
    );
    // Each item costs about 100 × 100 × 4: cheap alone, over budget together.
    let item = json!({"list": (0..100).collect::<Vec<i64>>()});
    let items: Vec<Value> = (0..500).map(|_| item.clone()).collect();
    let errs = run(&s, &json!({"items": items}), None);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].ends_with("Invalid value: \"object\": validation failed due to running out of cost budget, no further validation rules will be run"), "{errs:?}");
}
