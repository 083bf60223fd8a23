//! What the field-ownership tests share: a test kind with lists of every
//! type, objects and writers, and a runner for sequences of applies and
//! updates that checks the object and the entries after each step.

use serde_json::{Value, json};

use super::entries::{Managed, Operation};
use super::walk::{Scope, diff};
use super::{Writer, apply, fields_v1, record_update};
use crate::api::schema::Schema;

/// A test kind: lists of every type, a map, nested structs, and a struct
/// whose `replicas` has a default.
pub(super) fn schema() -> Schema {
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
pub(super) enum Step {
    /// Apply by a manager (force flag).
    Apply(&'static str, bool),
    /// An update that writes this whole object.
    Update(&'static str),
    /// An object that exists without managedFields.
    Existing,
}

pub(super) struct Case {
    pub(super) name: &'static str,
    pub(super) steps: Vec<(Step, Value)>,
    /// Expected `spec` after the last step, or the conflicting paths when
    /// the last step must fail.
    pub(super) expect: Expect,
    /// Expected entries: (manager, operation, FieldsV1).
    pub(super) managed: Vec<(&'static str, Operation, Value)>,
}

pub(super) enum Expect {
    Spec(Value),
    Conflicts(Vec<&'static str>),
}

pub(super) fn obj(spec: Value) -> Value {
    json!({"apiVersion": "test/v1", "kind": "Thing", "metadata": {"name": "t", "namespace": "ns"}, "spec": spec})
}

pub(super) fn writer(manager: &str) -> Writer<'_> {
    Writer {
        manager,
        api_version: "test/v1",
        subresource: "",
        time: "2024-05-01T10:00:00Z",
    }
}

/// Runs the steps; returns the last object and entries, or the conflicts
/// of a failing last step.
pub(super) fn run(steps: &[(Step, Value)]) -> Result<(Value, Managed), Vec<String>> {
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

pub(super) fn check(case: &Case) {
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

pub(super) use Operation::{Apply as A, Update as U};
pub(super) use Step::{Apply, Update};

pub(super) fn k(name: &str) -> String {
    format!("k:{{\"name\":\"{name}\"}}")
}
