//! Tests of the authorizer library at compile time: type checking of its
//! calls, and what its checks cost against the per-rule, per-schema and
//! per-evaluation limits.

use serde_json::json;

use super::authz_tests::{SECRETS_RULE, chain, run_as, schema};
use super::cost::AUTHORIZATION_CHECK;
use crate::api::schema::{Schema, validate_rules};

fn load_errors(rule: &str) -> Vec<String> {
    Schema::from_openapi(&json!({"type": "object", "properties": {"spec": {
        "type": "object", "x-kubernetes-validations": [{"rule": rule}]}}}))
    .expect_err(rule)
    .iter()
    .map(ToString::to_string)
    .collect()
}

#[test]
fn the_library_is_type_checked_when_a_rule_is_compiled() {
    for (rule, message) in [
        (
            "authorizer.resource('pods').check('get').allowed()",
            "found no matching overload for 'resource' applied to 'kubernetes.authorization.Authorizer.(string)'",
        ),
        (
            "authorizer.group(1).resource('pods').check('get').allowed()",
            "found no matching overload for 'group' applied to 'kubernetes.authorization.Authorizer.(int)'",
        ),
        (
            "authorizer.group('').check('get').allowed()",
            "found no matching overload for 'check' applied to 'kubernetes.authorization.GroupCheck.(string)'",
        ),
        (
            "authorizer.path('/x').check('get', 'x').allowed()",
            "found no matching overload for 'check' applied to 'kubernetes.authorization.PathCheck.(string, string)'",
        ),
        (
            "authorizer.path('/x').check('get').size() > 0",
            "found no matching overload for 'size' applied to 'kubernetes.authorization.Decision.()'",
        ),
        (
            "check('get')",
            "found no matching overload for 'check' applied to '(string)'",
        ),
        (
            "authorizer.user == 'x'",
            "type 'kubernetes.authorization.Authorizer' does not support field selection",
        ),
        (
            "'x'.allowed()",
            "found no matching overload for 'allowed' applied to 'string.()'",
        ),
    ] {
        let errs = load_errors(rule);
        assert!(
            errs.len() == 1
                && errs[0].contains("compilation failed: ERROR: <input>:1:")
                && errs[0].contains(message),
            "{rule}: {errs:?}"
        );
    }
    // A comprehension variable may hide the library's name.
    let s = schema(json!({"rule": "[1, 2].all(authorizer, authorizer > 0)"}));
    assert!(validate_rules(&s, &json!({"spec": {}}), None).is_empty());
}

fn estimated_cost(s: &Schema) -> u64 {
    s.property("spec").expect("spec").rules[0].estimated_cost
}

#[test]
fn a_check_costs_what_kubernetes_charges() {
    let one = schema(json!({ "rule": SECRETS_RULE }));
    let cost = estimated_cost(&one);
    assert!(
        (AUTHORIZATION_CHECK..AUTHORIZATION_CHECK + 20).contains(&cost),
        "{cost}"
    );
    let path = schema(json!({"rule": "authorizer.path('/x').check('get').reason() == ''"}));
    assert!(estimated_cost(&path) >= AUTHORIZATION_CHECK);
}

#[test]
fn checks_count_against_the_rule_and_schema_limits() {
    // 29 checks in one rule are over the 10,000,000 a rule may cost.
    let many = vec![SECRETS_RULE; 29].join(" && ");
    let errs = Schema::from_openapi(&json!({"type": "object", "properties": {"spec": {
        "type": "object", "x-kubernetes-validations": [{"rule": many}],
        "properties": {"ns": {"type": "string", "maxLength": 63}}}}}))
    .expect_err("too dear")
    .iter()
    .map(ToString::to_string)
    .collect::<Vec<_>>();
    assert!(
        errs[0].starts_with("properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 1.0"),
        "{errs:?}"
    );
    // One check per item of a list of up to 100 items: 35,000,000.
    let per_item = |max_items: u64| {
        Schema::from_openapi(&json!({"type": "object", "properties": {"items": {
            "type": "array", "maxItems": max_items, "items": {
                "type": "string", "maxLength": 63,
                "x-kubernetes-validations": [{"rule": "authorizer.group('').resource('pods').name(self).check('get').allowed()"}]}}}}))
    };
    let errs = per_item(100).expect_err("too dear");
    assert!(
        errs[0]
            .to_string()
            .contains("estimated rule cost exceeds budget by factor of 3.5x"),
        "{errs:?}"
    );
    assert!(per_item(20).is_ok());
}

#[test]
fn three_checks_exceed_the_cost_of_one_evaluation() {
    let (authorizers, asked) = chain(false);
    let rule = ["authorizer.path('/x').check('get').allowed()"; 3].join(" && ");
    let errs = run_as(
        json!({ "rule": rule }),
        json!({}),
        Some("alice"),
        &authorizers,
    );
    assert_eq!(errs.len(), 1);
    assert!(errs[0].contains("call cost exceeds limit"), "{errs:?}");
    assert!(asked.lock().expect("lock").is_empty(), "not run at all");
}
