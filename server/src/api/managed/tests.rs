//! Ownership scenarios: a sequence of applies and updates by several
//! managers on one object, each step checking the object and the entries.

use serde_json::json;

use super::test_support::*;

#[test]
#[allow(clippy::too_many_lines)]
fn ownership_scenarios() {
    let c1 = k("c1");
    let cases = vec![
        Case {
            name: "first apply owns what it sends",
            steps: vec![(
                Apply("a", false),
                json!({"replicas": 1, "containers": [{"name": "c1", "image": "i"}]}),
            )],
            expect: Expect::Spec(
                json!({"replicas": 1, "containers": [{"name": "c1", "image": "i"}]}),
            ),
            managed: vec![(
                "a",
                A,
                json!({"f:spec": {"f:containers": {&c1: {".": {}, "f:image": {}, "f:name": {}}}, "f:replicas": {}}}),
            )],
        },
        Case {
            name: "equal values share ownership",
            steps: vec![
                (Apply("a", false), json!({"replicas": 1, "paused": true})),
                (Apply("b", false), json!({"replicas": 1})),
            ],
            expect: Expect::Spec(json!({"replicas": 1, "paused": true})),
            managed: vec![
                (
                    "a",
                    A,
                    json!({"f:spec": {"f:paused": {}, "f:replicas": {}}}),
                ),
                ("b", A, json!({"f:spec": {"f:replicas": {}}})),
            ],
        },
        Case {
            name: "a different value owned by another applier conflicts",
            steps: vec![
                (Apply("a", false), json!({"replicas": 1})),
                (Apply("b", false), json!({"replicas": 2})),
            ],
            expect: Expect::Conflicts(vec!["\"a\" .spec.replicas"]),
            managed: vec![],
        },
        Case {
            name: "force takes the field and leaves the rest",
            steps: vec![
                (Apply("a", false), json!({"replicas": 1, "paused": true})),
                (Apply("b", true), json!({"replicas": 2})),
            ],
            expect: Expect::Spec(json!({"replicas": 2, "paused": true})),
            managed: vec![
                ("a", A, json!({"f:spec": {"f:paused": {}}})),
                ("b", A, json!({"f:spec": {"f:replicas": {}}})),
            ],
        },
        Case {
            name: "three managers: conflicts name every owner",
            steps: vec![
                (Apply("a", false), json!({"replicas": 1})),
                (Apply("b", false), json!({"replicas": 1})),
                (Apply("c", false), json!({"replicas": 1})),
                (Apply("c", false), json!({"replicas": 2})),
            ],
            expect: Expect::Conflicts(vec!["\"a\" .spec.replicas", "\"b\" .spec.replicas"]),
            managed: vec![],
        },
        Case {
            name: "three managers: force leaves the others nothing",
            steps: vec![
                (Apply("a", false), json!({"replicas": 1})),
                (Apply("b", false), json!({"replicas": 1})),
                (Apply("c", true), json!({"replicas": 2})),
            ],
            expect: Expect::Spec(json!({"replicas": 2})),
            managed: vec![("c", A, json!({"f:spec": {"f:replicas": {}}}))],
        },
        Case {
            name: "a dropped field nobody else owns is removed",
            steps: vec![
                (Apply("a", false), json!({"replicas": 1, "paused": true})),
                (Apply("a", false), json!({"replicas": 1})),
            ],
            expect: Expect::Spec(json!({"replicas": 1})),
            managed: vec![("a", A, json!({"f:spec": {"f:replicas": {}}}))],
        },
        Case {
            name: "un-sharing keeps the value for the other owner",
            steps: vec![
                (Apply("a", false), json!({"replicas": 1, "paused": true})),
                (Apply("b", false), json!({"paused": true})),
                (Apply("a", false), json!({"replicas": 1})),
            ],
            expect: Expect::Spec(json!({"replicas": 1, "paused": true})),
            managed: vec![
                ("a", A, json!({"f:spec": {"f:replicas": {}}})),
                ("b", A, json!({"f:spec": {"f:paused": {}}})),
            ],
        },
        Case {
            name: "map list: items merge by key; a dropped item goes",
            steps: vec![
                (
                    Apply("a", false),
                    json!({"containers": [{"name": "c1", "image": "i1"}, {"name": "c2", "image": "i2"}]}),
                ),
                (
                    Apply("b", false),
                    json!({"containers": [{"name": "c3", "image": "i3"}]}),
                ),
                (
                    Apply("a", false),
                    json!({"containers": [{"name": "c1", "image": "i1"}]}),
                ),
            ],
            expect: Expect::Spec(
                json!({"containers": [{"name": "c1", "image": "i1"}, {"name": "c3", "image": "i3"}]}),
            ),
            managed: vec![
                (
                    "a",
                    A,
                    json!({"f:spec": {"f:containers": {&c1: {".": {}, "f:image": {}, "f:name": {}}}}}),
                ),
                (
                    "b",
                    A,
                    json!({"f:spec": {"f:containers": {k("c3"): {".": {}, "f:image": {}, "f:name": {}}}}}),
                ),
            ],
        },
        Case {
            name: "map list: an item another applier shares stays, minus fields only the dropper owned",
            steps: vec![
                (
                    Apply("a", false),
                    json!({"containers": [{"name": "c1", "image": "i"}]}),
                ),
                (
                    Apply("b", false),
                    json!({"containers": [{"name": "c1", "args": ["x"]}]}),
                ),
                (Apply("a", false), json!({})),
            ],
            expect: Expect::Spec(json!({"containers": [{"name": "c1", "args": ["x"]}]})),
            managed: vec![(
                "b",
                A,
                json!({"f:spec": {"f:containers": {&c1: {".": {}, "f:args": {}, "f:name": {}}}}}),
            )],
        },
        Case {
            name: "map list keyed by several fields, and patchStrategy merge read as a map list",
            steps: vec![
                (
                    Apply("a", false),
                    json!({"containers": [{"name": "c1", "ports": [{"containerPort": 80, "protocol": "TCP"}]}], "volumes": [{"name": "v1"}]}),
                ),
                (
                    Apply("b", false),
                    json!({"containers": [{"name": "c1", "ports": [{"containerPort": 80, "protocol": "UDP"}]}], "volumes": [{"name": "v2"}]}),
                ),
            ],
            expect: Expect::Spec(json!({
                "containers": [{"name": "c1", "ports": [{"containerPort": 80, "protocol": "TCP"}, {"containerPort": 80, "protocol": "UDP"}]}],
                "volumes": [{"name": "v1"}, {"name": "v2"}]
            })),
            managed: vec![
                (
                    "a",
                    A,
                    json!({"f:spec": {
                        "f:containers": {&c1: {".": {}, "f:name": {}, "f:ports": {"k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}, "f:protocol": {}}}}},
                        "f:volumes": {k("v1"): {".": {}, "f:name": {}}}
                    }}),
                ),
                (
                    "b",
                    A,
                    json!({"f:spec": {
                        "f:containers": {&c1: {".": {}, "f:name": {}, "f:ports": {"k:{\"containerPort\":80,\"protocol\":\"UDP\"}": {".": {}, "f:containerPort": {}, "f:protocol": {}}}}},
                        "f:volumes": {k("v2"): {".": {}, "f:name": {}}}
                    }}),
                ),
            ],
        },
        Case {
            name: "set list: values merge; a dropped value goes",
            steps: vec![
                (Apply("a", false), json!({"finalizers": ["x", "y"]})),
                (Apply("b", false), json!({"finalizers": ["z"]})),
                (Apply("a", false), json!({"finalizers": ["x"]})),
            ],
            expect: Expect::Spec(json!({"finalizers": ["x", "z"]})),
            managed: vec![
                ("a", A, json!({"f:spec": {"f:finalizers": {"v:\"x\"": {}}}})),
                ("b", A, json!({"f:spec": {"f:finalizers": {"v:\"z\"": {}}}})),
            ],
        },
        Case {
            name: "atomic list: another value conflicts on the whole list",
            steps: vec![
                (Apply("a", false), json!({"command": ["a", "b"]})),
                (Apply("b", false), json!({"command": ["c"]})),
            ],
            expect: Expect::Conflicts(vec!["\"a\" .spec.command"]),
            managed: vec![],
        },
        Case {
            name: "atomic list and atomic map: force replaces them whole",
            steps: vec![
                (
                    Apply("a", false),
                    json!({"command": ["a", "b"], "selector": {"x": "1"}}),
                ),
                (
                    Apply("b", true),
                    json!({"command": ["c"], "selector": {"y": "2"}}),
                ),
            ],
            expect: Expect::Spec(json!({"command": ["c"], "selector": {"y": "2"}})),
            managed: vec![(
                "b",
                A,
                json!({"f:spec": {"f:command": {}, "f:selector": {}}}),
            )],
        },
        Case {
            name: "granular map: keys are owned one by one",
            steps: vec![
                (Apply("a", false), json!({"config": {"x": "1"}})),
                (Apply("b", false), json!({"config": {"y": "2"}})),
            ],
            expect: Expect::Spec(json!({"config": {"x": "1", "y": "2"}})),
            managed: vec![
                ("a", A, json!({"f:spec": {"f:config": {"f:x": {}}}})),
                ("b", A, json!({"f:spec": {"f:config": {"f:y": {}}}})),
            ],
        },
        Case {
            name: "nested structs: dropping a leaf keeps siblings others own",
            steps: vec![
                (
                    Apply("a", false),
                    json!({"strategy": {"rollingUpdate": {"maxSurge": 1}}}),
                ),
                (
                    Apply("b", false),
                    json!({"strategy": {"rollingUpdate": {"maxUnavailable": 2}}}),
                ),
                (Apply("a", false), json!({})),
            ],
            expect: Expect::Spec(json!({"strategy": {"rollingUpdate": {"maxUnavailable": 2}}})),
            managed: vec![(
                "b",
                A,
                json!({"f:spec": {"f:strategy": {"f:rollingUpdate": {"f:maxUnavailable": {}}}}}),
            )],
        },
        Case {
            name: "an update takes changed fields; the applier then conflicts with it",
            steps: vec![
                (Apply("a", false), json!({"replicas": 1, "paused": true})),
                (Update("u"), json!({"replicas": 3, "paused": true})),
                (Apply("a", false), json!({"replicas": 1, "paused": true})),
            ],
            expect: Expect::Conflicts(vec!["\"u\" using test/v1 .spec.replicas"]),
            managed: vec![],
        },
        Case {
            name: "apply, update, apply: the update's new fields survive the applier's drop",
            steps: vec![
                (Apply("a", false), json!({"replicas": 1, "paused": true})),
                (
                    Update("u"),
                    json!({"replicas": 1, "paused": true, "config": {"k": "v"}}),
                ),
                (Apply("a", false), json!({"replicas": 1})),
            ],
            expect: Expect::Spec(json!({"replicas": 1, "config": {"k": "v"}})),
            managed: vec![
                ("a", A, json!({"f:spec": {"f:replicas": {}}})),
                (
                    "u",
                    U,
                    json!({"f:spec": {"f:config": {".": {}, "f:k": {}}}}),
                ),
            ],
        },
        Case {
            name: "an update removing a field removes it from its owner",
            steps: vec![
                (Apply("a", false), json!({"replicas": 1, "paused": true})),
                (Update("u"), json!({"replicas": 1})),
            ],
            expect: Expect::Spec(json!({"replicas": 1})),
            managed: vec![("a", A, json!({"f:spec": {"f:replicas": {}}}))],
        },
        Case {
            name: "an update of a list item's field moves just that field",
            steps: vec![
                (
                    Apply("a", false),
                    json!({"containers": [{"name": "c1", "image": "i"}]}),
                ),
                (
                    Update("u"),
                    json!({"containers": [{"name": "c1", "image": "j"}]}),
                ),
            ],
            expect: Expect::Spec(json!({"containers": [{"name": "c1", "image": "j"}]})),
            managed: vec![
                (
                    "a",
                    A,
                    json!({"f:spec": {"f:containers": {&c1: {".": {}, "f:name": {}}}}}),
                ),
                (
                    "u",
                    U,
                    json!({"f:spec": {"f:containers": {&c1: {"f:image": {}}}}}),
                ),
            ],
        },
        Case {
            name: "updates by one manager union; a force-apply then takes the field",
            steps: vec![
                (Update("u"), json!({"replicas": 1})),
                (Update("u"), json!({"replicas": 1, "paused": false})),
                (Apply("a", true), json!({"paused": true})),
            ],
            expect: Expect::Spec(json!({"replicas": 1, "paused": true})),
            managed: vec![
                ("u", U, json!({"f:spec": {"f:replicas": {}}})),
                ("a", A, json!({"f:spec": {"f:paused": {}}})),
            ],
        },
        Case {
            name: "before-first-apply owns what existed untracked",
            steps: vec![
                (Step::Existing, json!({"replicas": 1, "paused": true})),
                (Apply("a", false), json!({"replicas": 2})),
            ],
            expect: Expect::Conflicts(vec!["\"before-first-apply\" using test/v1 .spec.replicas"]),
            managed: vec![],
        },
        Case {
            name: "before-first-apply shares equal values",
            steps: vec![
                (Step::Existing, json!({"replicas": 1, "paused": true})),
                (Apply("a", false), json!({"replicas": 1})),
            ],
            expect: Expect::Spec(json!({"replicas": 1, "paused": true})),
            managed: vec![
                (
                    "before-first-apply",
                    U,
                    json!({"f:spec": {"f:paused": {}, "f:replicas": {}}}),
                ),
                ("a", A, json!({"f:spec": {"f:replicas": {}}})),
            ],
        },
    ];
    for case in &cases {
        check(case);
    }
}
