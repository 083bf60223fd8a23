//! Lists with label and field selectors against the real binary: over a
//! seeded random history of ConfigMaps (two namespaces) and Events, a list
//! with a selector at an Exact revision — whole or in pages — is exactly
//! the client-side filter of the unfiltered list at that revision (same
//! objects, same order), at its snapshot revision and without
//! `remainingItemCount`; current lists and pages likewise. Bad selectors are
//! 400 BadRequest with Kubernetes' messages, for lists and watches.

use cairn_tests::Server;
use cairn_tests::selection::{FieldTerm, LabelTerm, Rng, Selector, key, rv};
use serde_json::{Value, json};

const NAMESPACES: [&str; 2] = ["ns-a", "ns-b"];
const EVENTS: &str = "/api/v1/namespaces/default/events";

fn cms(ns: &str) -> String {
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
fn random_write(s: &Server, rng: &mut Rng, live: &mut Vec<String>) {
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
fn random_selector(rng: &mut Rng, events: bool) -> Selector {
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

fn get_ok(s: &Server, path: &str) -> Value {
    let r = s.get(path);
    assert_eq!(r.status, 200, "{path}: {}", r.text());
    r.json()
}

fn items(list: &Value) -> Vec<Value> {
    list["items"].as_array().expect("items").clone()
}

/// (namespace/name, revision) of each item, in order.
fn listed(objs: &[Value]) -> Vec<(String, u64)> {
    objs.iter().map(|o| (key(o), rv(o))).collect()
}

/// Reads a list in pages of `limit` from `first` (a query with `?`); every
/// page must be of the same snapshot, with no `remainingItemCount` when
/// `selective`. Returns the items and the snapshot revision.
fn paged(s: &Server, first: &str, limit: usize, selective: bool) -> (Vec<Value>, u64) {
    let mut page = get_ok(s, &format!("{first}&limit={limit}"));
    let snapshot = rv(&page);
    let base = first.split('?').next().expect("path");
    let query: Vec<&str> = first
        .split_once('?')
        .map(|(_, q)| {
            q.split('&')
                .filter(|p| p.starts_with("labelSelector=") || p.starts_with("fieldSelector="))
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    loop {
        assert_eq!(
            rv(&page),
            snapshot,
            "{first}: every page of the first page's snapshot"
        );
        let got = items(&page);
        assert!(got.len() <= limit, "{first}: at most limit items");
        out.extend(got);
        let token = page["metadata"]["continue"]
            .as_str()
            .filter(|t| !t.is_empty())
            .map(str::to_string);
        if selective || token.is_none() {
            assert!(
                page["metadata"].get("remainingItemCount").is_none(),
                "{first}: {}",
                page["metadata"]
            );
        }
        let Some(token) = token else { break };
        let mut next = format!("{base}?limit={limit}&continue={token}");
        for q in &query {
            next.push('&');
            next.push_str(q);
        }
        page = get_ok(s, &next);
    }
    (out, snapshot)
}

/// Checks the selected list of `collection` at Exact revision `at`, whole
/// and in pages, against the filter of the unfiltered list at `at`.
fn check_exact(s: &Server, collection: &str, at: u64, sel: &Selector) {
    let exact = format!("{collection}?resourceVersion={at}&resourceVersionMatch=Exact");
    let full = get_ok(s, &exact);
    assert_eq!(rv(&full), at, "{exact}");
    let want: Vec<Value> = items(&full)
        .into_iter()
        .filter(|o| sel.matches(o))
        .collect();
    let what = format!("{exact}{}", sel.query());
    let whole = get_ok(s, &what);
    assert_eq!(rv(&whole), at, "{what}: the list's revision");
    assert_eq!(listed(&items(&whole)), listed(&want), "{what}");
    assert_eq!(items(&whole), want, "{what}: the objects");
    assert!(
        whole["metadata"].get("remainingItemCount").is_none(),
        "{what}"
    );
    assert!(
        whole["metadata"]["continue"]
            .as_str()
            .is_none_or(str::is_empty),
        "{what}"
    );
    for limit in [1, 3] {
        let (pages, snapshot) = paged(s, &what, limit, true);
        assert_eq!(snapshot, at);
        assert_eq!(listed(&pages), listed(&want), "{what} in pages of {limit}");
    }
}

/// The current selected list, whole and in pages, against the unfiltered
/// list at the revision it reports.
fn check_current(s: &Server, collection: &str, sel: &Selector) {
    let what = format!("{collection}?{}", &sel.query()[1..]);
    let whole = get_ok(s, &what);
    let at = rv(&whole);
    let full = get_ok(
        s,
        &format!("{collection}?resourceVersion={at}&resourceVersionMatch=Exact"),
    );
    let want: Vec<Value> = items(&full)
        .into_iter()
        .filter(|o| sel.matches(o))
        .collect();
    assert_eq!(listed(&items(&whole)), listed(&want), "{what}");
    let (pages, snapshot) = paged(s, &what, 2, true);
    let full = get_ok(
        s,
        &format!("{collection}?resourceVersion={snapshot}&resourceVersionMatch=Exact"),
    );
    let want: Vec<Value> = items(&full)
        .into_iter()
        .filter(|o| sel.matches(o))
        .collect();
    assert_eq!(listed(&pages), listed(&want), "{what} in pages");
}

#[test]
fn selected_lists_equal_the_filtered_list_at_every_revision() {
    let s = Server::start(&[]);
    for ns in NAMESPACES {
        let body = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}});
        assert_eq!(s.post("/api/v1/namespaces", &body).status, 201);
    }
    let mut rng = Rng::new(0x115_7ed);
    let mut live = Vec::new();
    let mut revisions = Vec::new();
    for round in 0..6 {
        for _ in 0..25 {
            random_write(&s, &mut rng, &mut live);
        }
        revisions.push(rv(&get_ok(&s, EVENTS)));
        assert!(round < 1 || revisions[round] > revisions[round - 1]);
    }
    let collections = [
        (cms("ns-a"), false),
        ("/api/v1/configmaps".to_string(), false),
        (EVENTS.to_string(), true),
        ("/api/v1/events".to_string(), true),
    ];
    let mut matched = 0;
    for &at in &revisions {
        for (collection, events) in &collections {
            for _ in 0..6 {
                let sel = random_selector(&mut rng, *events);
                check_exact(&s, collection, at, &sel);
                matched += usize::from(
                    items(&get_ok(
                        &s,
                        &format!(
                            "{collection}?resourceVersion={at}&resourceVersionMatch=Exact{}",
                            sel.query()
                        ),
                    ))
                    .len()
                        > 1,
                );
            }
        }
    }
    assert!(
        matched > 40,
        "the selectors select something ({matched} lists of more than one)"
    );
    for (collection, events) in &collections {
        for _ in 0..6 {
            check_current(&s, collection, &random_selector(&mut rng, *events));
        }
    }
    // Without a selector, pages count what remains.
    let first = get_ok(&s, "/api/v1/configmaps?limit=3");
    let total = items(&get_ok(
        &s,
        &format!(
            "/api/v1/configmaps?resourceVersion={}&resourceVersionMatch=Exact",
            rv(&first)
        ),
    ))
    .len();
    assert_eq!(first["metadata"]["remainingItemCount"], json!(total - 3));
}

#[test]
fn bad_selectors_are_bad_requests() {
    let s = Server::start(&[]);
    let cases = [
        (
            "/api/v1/namespaces/default/events",
            "fieldSelector=foo%3D1",
            "field label not supported: foo",
        ),
        (
            "/api/v1/events",
            "fieldSelector=reason",
            "invalid selector: 'reason'; can't understand 'reason'",
        ),
        (
            "/api/v1/namespaces/default/pods",
            "fieldSelector=spec.priority%3D1",
            "field label not supported: spec.priority",
        ),
        (
            "/api/v1/namespaces/default/configmaps",
            "labelSelector=app%20in%20b",
            "unable to parse requirement: found 'b' expected: '('",
        ),
        (
            "/api/v1/configmaps",
            "labelSelector=%2Capp",
            "found ',', expected: !, identifier, or 'end of string'",
        ),
        (
            "/api/v1/namespaces/default/events",
            "labelSelector=app%3Da%3D",
            "found '=', expected: ',' or 'end of string'",
        ),
        // A kind without fields of its own: the metadata-only wording.
        (
            "/api/v1/namespaces/default/configmaps",
            "fieldSelector=data.x%3D1",
            "\"data.x\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"",
        ),
    ];
    for (collection, query, message) in cases {
        for path in [
            format!("{collection}?{query}"),
            format!("{collection}?watch=true&{query}"),
        ] {
            let r = s.get(&path);
            let v = r.json();
            assert_eq!(
                (
                    r.status,
                    v["kind"].as_str(),
                    v["reason"].as_str(),
                    v["message"].as_str()
                ),
                (400, Some("Status"), Some("BadRequest"), Some(message)),
                "{path}"
            );
        }
    }
}
