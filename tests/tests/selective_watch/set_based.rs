//! Set-based and negative label selectors (`in`, `notin`, `!=`, exists,
//! `!key`, `>`/`<`), `metadata.name`/`metadata.namespace` field selectors,
//! label and field selectors together, namespaced and cluster-wide, and
//! single-object watches with a selector — over a seeded random history of
//! ConfigMaps in two namespaces. Each watcher, live from before the writes
//! and resumed afterwards, gets exactly the model's stream.

use std::collections::BTreeMap;

use cairn_tests::selection::{
    Change, FieldTerm, LabelTerm, Rng, Selector, key, rv, selected_changes,
};
use cairn_tests::{Server, WatchStream};
use serde_json::{Value, json};

use super::{assert_same, current_rv, read_n, watch_window};

const ALL_CMS: &str = "/api/v1/configmaps";
pub(super) const NAMESPACES: [&str; 2] = ["ns-a", "ns-b"];

pub(super) fn cms(ns: &str) -> String {
    format!("/api/v1/namespaces/{ns}/configmaps")
}

/// Labels drawn from a small alphabet, each key present or not.
fn random_labels(rng: &mut Rng) -> Value {
    let mut labels = serde_json::Map::new();
    for (k, values) in [
        ("app", &["a", "b", "c"][..]),
        ("tier", &["x", "y"]),
        ("n", &["1", "2", "3", "4"]),
    ] {
        if rng.chance(70) {
            labels.insert(k.into(), json!(rng.pick(values)));
        }
    }
    Value::Object(labels)
}

/// A random label patch: some keys set, some removed (`null`).
fn random_label_patch(rng: &mut Rng) -> Value {
    let mut patch = random_labels(rng);
    for k in ["app", "tier", "n"] {
        if patch.get(k).is_none() && rng.chance(50) {
            patch[k] = Value::Null;
        }
    }
    json!({"metadata": {"labels": patch}})
}

/// Seeded random creates, label changes, data changes and deletes; ends
/// with a create and returns its revision.
pub(super) fn write_history(s: &Server, seed: u64, ops: usize) -> u64 {
    let mut rng = Rng::new(seed);
    let mut live: Vec<(String, String)> = Vec::new();
    for i in 0..ops {
        let ns = *rng.pick(&NAMESPACES);
        let name = format!("cm-{}", rng.below(12));
        let at = live.iter().position(|(n, m)| n == ns && *m == name);
        let path = format!("{}/{name}", cms(ns));
        let r = match at {
            None => {
                live.push((ns.to_string(), name.clone()));
                let body = json!({"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": name, "labels": random_labels(&mut rng)}, "data": {"i": i.to_string()}});
                s.post(&cms(ns), &body)
            }
            Some(at) if rng.chance(20) => {
                live.swap_remove(at);
                s.delete(&path)
            }
            Some(_) if rng.chance(30) => {
                let patch = json!({"data": {"i": i.to_string()}}).to_string();
                s.patch(&path, "application/merge-patch+json", &patch)
            }
            Some(_) => s.patch(
                &path,
                "application/merge-patch+json",
                &random_label_patch(&mut rng).to_string(),
            ),
        };
        assert!(r.status == 200 || r.status == 201, "{}", r.text());
    }
    let end = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "zz-end"}});
    let r = s.post(&cms("ns-a"), &end);
    assert_eq!(r.status, 201, "{}", r.text());
    rv(&r.json())
}

fn l(term: &str) -> LabelTerm {
    let (k, rest) = term.split_once(' ').unwrap_or((term, ""));
    let list = |r: &str| {
        r.trim_matches(|c| c == '(' || c == ')')
            .split(',')
            .map(str::to_string)
            .collect()
    };
    match rest.split_once(' ') {
        Some(("in", vs)) => LabelTerm::In(k.into(), list(vs)),
        Some(("notin", vs)) => LabelTerm::NotIn(k.into(), list(vs)),
        Some(("=", v)) => LabelTerm::Eq(k.into(), v.into()),
        Some(("==", v)) => LabelTerm::DoubleEq(k.into(), v.into()),
        Some(("!=", v)) => LabelTerm::NotEq(k.into(), v.into()),
        Some((">", v)) => LabelTerm::Gt(k.into(), v.parse().expect("n")),
        Some(("<", v)) => LabelTerm::Lt(k.into(), v.parse().expect("n")),
        _ if k.starts_with('!') => LabelTerm::NotExists(k[1..].into()),
        _ => LabelTerm::Exists(k.into()),
    }
}

/// The selectors tried, each namespaced (ns-a) and cluster-wide.
fn selectors() -> Vec<Selector> {
    let labels = |ts: &[&str]| Selector::labels(ts.iter().map(|t| l(t)).collect());
    let mut out = vec![
        labels(&["app = a"]),
        labels(&["app == b"]),
        labels(&["app != a"]),
        labels(&["app in (a,b)"]),
        labels(&["app notin (a,c)"]),
        labels(&["app"]),
        labels(&["!app"]),
        labels(&["tier = x", "app in (b,c)"]),
        labels(&["n > 2"]),
        labels(&["n < 3", "app"]),
        labels(&["app != a", "!tier"]),
        labels(&["app notin (a)", "tier"]),
        Selector::fields(vec![FieldTerm::eq("metadata.name", "cm-3")]),
        Selector::fields(vec![FieldTerm::ne("metadata.name", "cm-3")]),
        Selector::fields(vec![FieldTerm::eq("metadata.namespace", "ns-a")]),
        Selector::fields(vec![
            FieldTerm::ne("metadata.namespace", "ns-a"),
            FieldTerm::ne("metadata.name", "cm-1"),
        ]),
    ];
    let mut both = labels(&["app = a"]);
    both.fields = vec![FieldTerm::eq("metadata.name", "cm-1")];
    out.push(both);
    let mut both = labels(&["app notin (b)"]);
    both.fields = vec![FieldTerm::eq("metadata.namespace", "ns-b")];
    out.push(both);
    out
}

struct Case {
    what: String,
    /// The watch path up to its selector, with a `?`.
    path: String,
    sel: Selector,
    /// Which objects the path covers (namespace, single object).
    covers: Box<dyn Fn(&Value) -> bool + Send + Sync>,
}

fn cases(r0: u64) -> Vec<Case> {
    let mut out = Vec::new();
    for sel in selectors() {
        out.push(Case {
            what: format!("ns-a{}", sel.query()),
            path: format!("{}?watch=true&resourceVersion={r0}", cms("ns-a")),
            sel: sel.clone(),
            covers: Box::new(|o| o["metadata"]["namespace"] == "ns-a"),
        });
        out.push(Case {
            what: format!("all{}", sel.query()),
            path: format!("{ALL_CMS}?watch=true&resourceVersion={r0}"),
            sel,
            covers: Box::new(|_| true),
        });
    }
    for app in ["a", "b"] {
        let sel = Selector::labels(vec![LabelTerm::Eq("app".into(), app.into())]);
        out.push(Case {
            what: format!("cm-2 by path, app={app}"),
            path: format!("/api/v1/watch/namespaces/ns-a/configmaps/cm-2?resourceVersion={r0}"),
            sel: sel.clone(),
            covers: Box::new(|o| key(o) == "ns-a/cm-2"),
        });
        let mut by_name = sel;
        by_name.fields = vec![FieldTerm {
            double: true,
            ..FieldTerm::eq("metadata.name", "cm-2")
        }];
        out.push(Case {
            what: format!("cm-2 by field, app={app}"),
            path: format!("{}?watch=true&resourceVersion={r0}", cms("ns-a")),
            sel: by_name,
            covers: Box::new(|o| o["metadata"]["namespace"] == "ns-a"),
        });
    }
    out
}

fn expected(case: &Case, history: &[Change], r0: u64) -> Vec<Change> {
    let scoped: Vec<Change> = history
        .iter()
        .filter(|(_, o)| (case.covers)(o))
        .cloned()
        .collect();
    selected_changes(&BTreeMap::new(), &scoped, r0, |o| case.sel.matches(o))
}

/// A server with the two namespaces of the random histories.
pub(super) fn server_with_namespaces(flags: &[&str]) -> Server {
    let s = Server::start(flags);
    for ns in NAMESPACES {
        let body = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}});
        assert_eq!(s.post("/api/v1/namespaces", &body).status, 201);
    }
    s
}

#[test]
fn set_based_negative_and_scoped_selectors_see_exactly_their_objects() {
    let s = server_with_namespaces(&[]);
    let r0 = current_rv(&s, ALL_CMS);
    let cases = cases(r0);
    let mut live: Vec<WatchStream> = cases
        .iter()
        .map(|c| {
            let w = s.watch(&format!("{}{}", c.path, c.sel.query()));
            assert_eq!(w.status, 200, "{}", c.what);
            w
        })
        .collect();
    let last = write_history(&s, 0x5e7_ba5e, 150);
    let history = watch_window(
        &s,
        &format!("{ALL_CMS}?watch=true&resourceVersion={r0}"),
        last,
    );
    // Writes that changed nothing make no event; the rest all do.
    assert!(
        history.len() > 100 && history.last().is_some_and(|(_, o)| rv(o) == last),
        "the whole history is watched"
    );
    for (case, w) in cases.iter().zip(live.iter_mut()) {
        let want = expected(case, &history, r0);
        // Every selector matches something cluster-wide (ns-a with
        // `metadata.namespace!=ns-a` rightly matches nothing).
        assert!(
            !want.is_empty() || !case.what.starts_with("all"),
            "{}: the seed exercises every selector",
            case.what
        );
        let got = read_n(w, want.len(), &case.what);
        assert_same(&case.what, &got, &want);
    }
    // The same watches resumed from the start revision, side by side.
    std::thread::scope(|scope| {
        for case in &cases {
            let (s, history) = (&s, &history);
            scope.spawn(move || {
                let got = watch_window(s, &format!("{}{}", case.path, case.sel.query()), last);
                assert_same(
                    &format!("resumed {}", case.what),
                    &got,
                    &expected(case, history, r0),
                );
            });
        }
    });
    let r =
        s.get("/api/v1/watch/namespaces/ns-a/configmaps/cm-2?fieldSelector=metadata.name%3Dcm-3");
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json()["message"],
        "fieldSelector metadata.name doesn't match requested name"
    );
}
