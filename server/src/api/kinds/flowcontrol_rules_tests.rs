use serde_json::json;

use super::*;

fn lines(causes: &[Cause]) -> Vec<String> {
    causes
        .iter()
        .map(|c| format!("{}: {}", c.field, c.message))
        .collect()
}

#[test]
fn flow_schemas_are_checked_in_kube_words() {
    let obj = json!({"metadata": {"name": "fs"}, "spec": {
        "matchingPrecedence": 1,
        "distinguisherMethod": {"type": "ByColour"},
        "priorityLevelConfiguration": {"name": ""},
        "rules": [{
            "subjects": [{"kind": "User", "user": {"name": "u"}, "group": {"name": "g"}}, {"kind": "Robot"}],
            "resourceRules": [{"verbs": ["*", "get"], "apiGroups": [""], "resources": ["pods"]}],
            "nonResourceRules": [{"verbs": ["fly"], "nonResourceURLs": ["healthz"]}]
        }, {"subjects": []}]
    }});
    assert_eq!(
        lines(&flow_schema_causes(&obj)),
        [
            "spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1",
            "spec.distinguisherMethod.type: Unsupported value: \"ByColour\": supported values: \"ByNamespace\", \"ByUser\"",
            "spec.priorityLevelConfiguration.name: Required value: must reference a priority level",
            "spec.rules[0].subjects[0].group: Forbidden: group is forbidden when subject kind is not 'Group'",
            "spec.rules[0].subjects[1].kind: Unsupported value: \"Robot\": supported values: \"Group\", \"ServiceAccount\", \"User\"",
            "spec.rules[0].resourceRules[0].verbs: Invalid value: []string{\"*\", \"get\"}: if '*' is present, must not specify other verbs",
            "spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace",
            "spec.rules[0].nonResourceRules[0].verbs: Unsupported value: []string{\"fly\"}: supported values: \"create\", \"delete\", \"deletecollection\", \"get\", \"list\", \"patch\", \"proxy\", \"update\", \"watch\"",
            "spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: \"healthz\": must start with slash",
            "spec.rules[1].subjects: Required value: subjects must contain at least one value",
            "spec.rules[1]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty",
        ]
    );
}

#[test]
fn priority_levels_are_checked_in_kube_words() {
    let queue = json!({"metadata": {"name": "p"}, "spec": {"type": "Limited", "limited": {
        "nominalConcurrencyShares": -1, "lendablePercent": 101,
        "limitResponse": {"type": "Queue", "queuing": {"queues": 4, "handSize": 5, "queueLengthLimit": 0}}}}});
    assert_eq!(
        lines(&priority_level_causes(&queue)),
        [
            "spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer",
            "spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive",
            "spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: 0: must be positive",
            "spec.limited.limitResponse.queuing.handSize: Invalid value: 5: should not be greater than queues (4)",
        ]
    );
    let wrong = json!({"metadata": {"name": "p"}, "spec": {"type": "Exempt", "limited": {}}});
    assert_eq!(
        lines(&priority_level_causes(&wrong)),
        [
            "spec.type: Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt'",
            "spec.limited: Forbidden: must be nil if the type is not Limited",
        ]
    );
    let bare = json!({"metadata": {"name": "p"}, "spec": {"type": "Limited"}});
    assert_eq!(
        lines(&priority_level_causes(&bare)),
        ["spec.limited: Required value: must not be empty when type is Limited"]
    );
    let zero = json!({"metadata": {"name": "p"}, "spec": {"type": "Limited", "limited": {
        "nominalConcurrencyShares": 0, "lendablePercent": 0, "limitResponse": {"type": "Reject"}}}});
    assert!(priority_level_causes(&zero).is_empty());
}
