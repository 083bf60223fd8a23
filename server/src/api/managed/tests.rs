//! Ownership scenarios: a sequence of applies and updates by several
//! managers on one object, each step checking the object and the entries.

use serde_json::{Value, json};

use super::entries::{Managed, Operation};
use super::walk::{Scope, diff};
use super::{Writer, apply, fields_v1, record_update};
use crate::api::schema::Schema;

/// A test kind: lists of every type, a map, nested structs, and a struct
/// whose `replicas` has a default.
fn schema() -> Schema {
    let container = Schema::object([
        ("name", Schema::string()),
        ("image", Schema::string()),
        ("args", Schema::string_list()),
        (
            "ports",
            Schema::array(Schema::object([
                ("containerPort", Schema::integer()),
                ("protocol", Schema::string()),
            ]))
            .map_list(["containerPort", "protocol"]),
        ),
    ]);
    Schema::resource([(
        "spec",
        Schema::object([
            ("replicas", Schema::integer()),
            ("paused", Schema::boolean()),
            (
                "containers",
                Schema::array(container.clone()).map_list(["name"]),
            ),
            (
                "volumes",
                Schema::array(Schema::object([("name", Schema::string())])).merge_by("name"),
            ),
            ("finalizers", Schema::string_list().set_list()),
            ("command", Schema::string_list()),
            ("selector", Schema::string_map().atomic_map()),
            ("config", Schema::string_map()),
            (
                "strategy",
                Schema::object([(
                    "rollingUpdate",
                    Schema::object([
                        ("maxSurge", Schema::integer()),
                        ("maxUnavailable", Schema::integer()),
                    ]),
                )]),
            ),
        ]),
    )])
}

#[derive(Clone, Copy)]
enum Step {
    /// Apply by a manager (force flag).
    Apply(&'static str, bool),
    /// An update that writes this whole object.
    Update(&'static str),
    /// An object that exists without managedFields.
    Existing,
}

struct Case {
    name: &'static str,
    steps: Vec<(Step, Value)>,
    /// Expected `spec` after the last step, or the conflicting paths when
    /// the last step must fail.
    expect: Expect,
    /// Expected entries: (manager, operation, FieldsV1).
    managed: Vec<(&'static str, Operation, Value)>,
}

enum Expect {
    Spec(Value),
    Conflicts(Vec<&'static str>),
}

fn obj(spec: Value) -> Value {
    json!({"apiVersion": "test/v1", "kind": "Thing", "metadata": {"name": "t", "namespace": "ns"}, "spec": spec})
}

fn writer(manager: &str) -> Writer<'_> {
    Writer {
        manager,
        api_version: "test/v1",
        subresource: "",
        time: "2024-05-01T10:00:00Z",
    }
}

/// Runs the steps; returns the last object and entries, or the conflicts
/// of a failing last step.
fn run(steps: &[(Step, Value)]) -> Result<(Value, Managed), Vec<String>> {
    let schema = schema();
    let scope = Scope::default();
    let mut live: Option<Value> = None;
    let mut managed = Managed::default();
    for (step, spec) in steps {
        match *step {
            Step::Apply(manager, force) => {
                let mut next = managed.clone();
                let out = apply(
                    &schema,
                    live.as_ref(),
                    &obj(spec.clone()),
                    &mut next,
                    &writer(manager),
                    force,
                    scope,
                )
                .map_err(|cs| {
                    cs.iter()
                        .map(|c| format!("{} {}", c.manager, super::path::path_text(&c.path)))
                        .collect::<Vec<_>>()
                })?;
                live = Some(out);
                managed = next;
            }
            Step::Existing => {
                live = Some(obj(spec.clone()));
                managed = Managed::default();
            }
            Step::Update(manager) => {
                let new = obj(spec.clone());
                let changes = match &live {
                    Some(old) => diff(&schema, old, &new, scope),
                    None => super::walk::Diff {
                        added: super::created(&schema, &new, scope),
                        ..Default::default()
                    },
                };
                record_update(&mut managed, changes, &writer(manager));
                live = Some(new);
            }
        }
    }
    Ok((live.expect("at least one step"), managed))
}

fn check(case: &Case) {
    match (&case.expect, run(&case.steps)) {
        (Expect::Spec(spec), Ok((object, managed))) => {
            assert_eq!(&object["spec"], spec, "{}: object", case.name);
            let got: Vec<(String, Operation, Value)> = managed
                .entries
                .iter()
                .map(|e| (e.manager.clone(), e.operation, fields_v1::encode(&e.fields)))
                .collect();
            let want: Vec<(String, Operation, Value)> = case
                .managed
                .iter()
                .map(|(m, o, f)| ((*m).to_owned(), *o, f.clone()))
                .collect();
            assert_eq!(got, want, "{}: managedFields", case.name);
        }
        (Expect::Conflicts(paths), Err(got)) => assert_eq!(&got, paths, "{}", case.name),
        (_, other) => panic!("{}: unexpected outcome {other:?}", case.name),
    }
}

use Operation::{Apply as A, Update as U};
use Step::{Apply, Update};

fn k(name: &str) -> String {
    format!("k:{{\"name\":\"{name}\"}}")
}

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
