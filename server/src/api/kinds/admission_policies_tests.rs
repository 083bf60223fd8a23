//! Policy and binding defaults and validation, in kube's words.

use serde_json::json;

use super::*;

fn messages(causes: &[Cause]) -> Vec<String> {
    causes
        .iter()
        .map(|c| format!("{}: {}", c.field, c.message))
        .collect()
}

#[test]
fn policies_are_defaulted_and_their_expressions_compiled() {
    let mut policy = json!({"spec": {
        "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
            "operations": ["CREATE"], "resources": ["configmaps"]}]},
        "validations": [{"expression": "object.data.size() < 3"}]
    }});
    PolicyStrategy.prepare_for_create(&mut policy);
    assert_eq!(policy["spec"]["failurePolicy"], "Fail");
    assert_eq!(
        policy["spec"]["matchConstraints"]["matchPolicy"],
        "Equivalent"
    );
    assert_eq!(
        policy["spec"]["matchConstraints"]["resourceRules"][0]["scope"],
        "*"
    );
    assert!(PolicyStrategy.validate(&policy).is_empty());

    policy["spec"]["validations"] = json!([{"expression": "object.data.size() <"}]);
    policy["spec"]["variables"] = json!([{"name": "x", "expression": "nope.size()"}]);
    let errors = messages(&PolicyStrategy.validate(&policy));
    assert!(errors[0].starts_with("spec.validations[0].expression: Invalid value: \"object.data.size() <\": compilation failed: "), "{errors:?}");
    assert!(
        errors[1].contains("undeclared reference to 'nope'"),
        "{errors:?}"
    );
    let empty = json!({"spec": {"failurePolicy": "Sometimes"}});
    assert_eq!(
        messages(&PolicyStrategy.validate(&empty)),
        [
            "spec.matchConstraints: Required value",
            "spec.failurePolicy: Unsupported value: \"Sometimes\": supported values: \"Fail\", \"Ignore\"",
            "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
        ]
    );
}

#[test]
fn bindings_need_a_policy_and_sensible_actions() {
    let binding = json!({"spec": {"policyName": "p", "validationActions": ["Deny", "Warn"],
        "paramRef": {"name": "x"}}});
    assert_eq!(
        messages(&BindingStrategy.validate(&binding)),
        [
            "spec.validationActions: Invalid value: []interface {}{\"Deny\", \"Warn\"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
            "spec.paramRef.parameterNotFoundAction: Required value",
        ]
    );
    let fine = json!({"spec": {"policyName": "p", "validationActions": ["Deny"]}});
    assert!(BindingStrategy.validate(&fine).is_empty());
}

#[test]
fn expressions_must_evaluate_to_what_their_field_takes() {
    let mut policy = json!({"spec": {
        "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
            "operations": ["CREATE"], "resources": ["configmaps"]}]},
        "validations": [
            {"expression": "'yes'", "messageExpression": "1 + 1"},
            {"expression": "object.data.size() < 3", "messageExpression": "'too many: ' + object.metadata.name"}
        ],
        "auditAnnotations": [{"key": "k", "valueExpression": "true"}, {"key": "n", "valueExpression": "null"}],
        "matchConditions": [{"name": "m", "expression": "[1]"}],
        "variables": [{"name": "v", "expression": "{'a': 1}"}]
    }});
    PolicyStrategy.prepare_for_create(&mut policy);
    assert_eq!(
        messages(&PolicyStrategy.validate(&policy)),
        [
            "spec.validations[0].expression: Invalid value: \"'yes'\": must evaluate to bool",
            "spec.validations[0].messageExpression: Invalid value: \"1 + 1\": must evaluate to string",
            "spec.auditAnnotations[0].valueExpression: Invalid value: \"true\": must evaluate to one of [string null_type]",
            "spec.matchConditions[0].expression: Invalid value: \"[1]\": must evaluate to bool",
        ]
    );
}
