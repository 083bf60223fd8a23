//! A seeded random history for the selective list tests: ConfigMaps in
//! two namespaces and Events, created, relabelled, refielded and deleted,
//! and random label and field selectors over the same values.

use cairn_tests::Server;
use cairn_tests::selection::{FieldTerm, LabelTerm, Rng, Selector};
use serde_json::{Value, json};

pub const NAMESPACES: [&str; 2] = ["ns-a", "ns-b"];
pub const EVENTS: &str = "/api/v1/namespaces/default/events";

pub fn cms(ns: &str) -> String {
    format!("/api/v1/namespaces/{ns}/configmaps")
}

fn random_labels(rng: &mut Rng) -> Value {
    let mut labels = serde_json::Map::new();
    for (k, values) in [
        ("app", &["a", "b", "c"][..]),
        ("tier", &["x", "y"]),
        ("n", &["1", "2", "3"]),
    ] {
        if rng.chance(65) {
            labels.insert(k.into(), json!(rng.pick(values)));
        }
    }
    Value::Object(labels)
}

fn random_event(rng: &mut Rng, name: &str) -> Value {
    let reasons: [&str; 3] = ["Pulled", "Killing", "Started"];
    let mut e = cairn_tests::event(name, rng.pick::<&str>(&reasons));
    e["metadata"]["labels"] = random_labels(rng);
    e["involvedObject"]["name"] = json!(format!("pod-{}", rng.below(4)));
    e["type"] = json!(rng.pick(&["Normal", "Warning"]));
    e["source"]["component"] = json!(rng.pick(&["kubelet", "scheduler"]));
    e
}

/// One random write: a create, a change of labels or fields, or a delete.
pub fn random_write(s: &Server, rng: &mut Rng, live: &mut Vec<String>) {
    let event = rng.chance(40);
    let (collection, name) = if event {
        (EVENTS.to_string(), format!("ev-{}", rng.below(14)))
    } else {
        (
            cms(rng.pick::<&str>(&NAMESPACES)),
            format!("cm-{}", rng.below(14)),
        )
    };
    let path = format!("{collection}/{name}");
    let at = live.iter().position(|p| *p == path);
    let r = match at {
        None => {
            live.push(path);
            let body = if event {
                random_event(rng, &name)
            } else {
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": random_labels(rng)}})
            };
            s.post(&collection, &body)
        }
        Some(at) if rng.chance(20) => {
            live.swap_remove(at);
            s.delete(&path)
        }
        Some(_) => {
            let mut patch = json!({"metadata": {"labels": random_labels(rng)}});
            for k in ["app", "tier", "n"] {
                if patch["metadata"]["labels"].get(k).is_none() && rng.chance(50) {
                    patch["metadata"]["labels"][k] = Value::Null;
                }
            }
            if event {
                let e = random_event(rng, &name);
                for f in ["involvedObject", "reason", "type", "source"] {
                    if rng.chance(50) {
                        patch[f] = e[f].clone();
                    }
                }
            }
            s.patch(&path, "application/merge-patch+json", &patch.to_string())
        }
    };
    assert!(r.status == 200 || r.status == 201, "{}", r.text());
}

fn random_label_term(rng: &mut Rng) -> LabelTerm {
    let (k, values): (&str, &[&str]) = *rng.pick(&[
        ("app", &["a", "b", "c"][..]),
        ("tier", &["x", "y"]),
        ("n", &["1", "2", "3"]),
    ]);
    let one = (*rng.pick(values)).to_string();
    let two = vec![
        (*rng.pick(values)).to_string(),
        (*rng.pick(values)).to_string(),
    ];
    match rng.below(9) {
        0 => LabelTerm::Eq(k.into(), one),
        1 => LabelTerm::DoubleEq(k.into(), one),
        2 => LabelTerm::NotEq(k.into(), one),
        3 => LabelTerm::In(k.into(), two),
        4 => LabelTerm::NotIn(k.into(), two),
        5 => LabelTerm::Exists(k.into()),
        6 => LabelTerm::NotExists(k.into()),
        7 => LabelTerm::Gt("n".into(), i64::try_from(rng.below(3)).expect("small")),
        _ => LabelTerm::Lt("n".into(), i64::try_from(rng.below(3) + 1).expect("small")),
    }
}

fn random_field_term(rng: &mut Rng, events: bool) -> FieldTerm {
    let (field, values): (&str, Vec<String>) = if events {
        match rng.below(6) {
            0 => (
                "involvedObject.name",
                (0..4).map(|i| format!("pod-{i}")).collect(),
            ),
            1 => ("reason", vec!["Pulled".into(), "Killing".into()]),
            2 => ("type", vec!["Normal".into(), "Warning".into()]),
            3 => ("source", vec!["kubelet".into(), "scheduler".into()]),
            4 => ("metadata.namespace", vec!["default".into(), "ns-a".into()]),
            _ => ("metadata.name", (0..3).map(|i| format!("ev-{i}")).collect()),
        }
    } else if rng.chance(50) {
        (
            "metadata.namespace",
            NAMESPACES.iter().map(|n| (*n).to_string()).collect(),
        )
    } else {
        ("metadata.name", (0..3).map(|i| format!("cm-{i}")).collect())
    };
    let value = rng.pick(&values).clone();
    match rng.below(3) {
        0 => FieldTerm::eq(field, &value),
        1 => FieldTerm {
            double: true,
            ..FieldTerm::eq(field, &value)
        },
        _ => FieldTerm::ne(field, &value),
    }
}

/// One to three terms: labels, fields or both.
pub fn random_selector(rng: &mut Rng, events: bool) -> Selector {
    let mut sel = Selector::default();
    while sel.labels.is_empty() && sel.fields.is_empty() {
        for _ in 0..rng.below(3) {
            sel.labels.push(random_label_term(rng));
        }
        for _ in 0..rng.below(2) {
            sel.fields.push(random_field_term(rng, events));
        }
    }
    sel
}
