//! Where a selective watch starts: resumed from revisions in the middle of
//! a history (only later matching events, transitions judged as of each
//! event), the initial ADDED state of `resourceVersion=0`, unset and
//! `sendInitialEvents` (the selected objects of a list, in its order), a
//! compacted start (410 Expired), and the protobuf framing carrying the same
//! events as JSON.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use cairn_tests::k8s_proto::{self, ConfigMap};
use cairn_tests::selection::{Change, FieldTerm, LabelTerm, Selector, rv, selected_changes};
use cairn_tests::{Server, WatchStream};
use prost::Message;
use serde_json::{Value, json};

use super::set_based::{NAMESPACES, cms, server_with_namespaces, write_history};
use super::{assert_same, current_rv, read_n, watch_window};

fn some_selectors() -> Vec<Selector> {
    let mut both = Selector::labels(vec![LabelTerm::NotIn("app".into(), vec!["b".into()])]);
    both.fields = vec![FieldTerm::ne("metadata.name", "cm-0")];
    vec![
        Selector::labels(vec![LabelTerm::Eq("app".into(), "a".into())]),
        Selector::labels(vec![LabelTerm::In(
            "app".into(),
            vec!["b".into(), "c".into()],
        )]),
        Selector::labels(vec![LabelTerm::NotExists("tier".into())]),
        Selector::labels(vec![LabelTerm::NotEq("n".into(), "2".into())]),
        Selector::fields(vec![FieldTerm::eq("metadata.name", "cm-5")]),
        both,
    ]
}

#[test]
fn a_watch_resumed_mid_history_gets_exactly_the_later_matching_events() {
    let s = server_with_namespaces(&[]);
    let ns_a = cms("ns-a");
    let r0 = current_rv(&s, &ns_a);
    let last = write_history(&s, 20_250, 120);
    let history = watch_window(&s, &format!("{ns_a}?watch=true&resourceVersion={r0}"), last);
    // Every 9th revision of the history, and one before any change.
    let mut starts: Vec<u64> = history.iter().step_by(9).map(|(_, o)| rv(o)).collect();
    starts.push(r0);
    std::thread::scope(|scope| {
        for sel in some_selectors() {
            for &from in &starts {
                let (s, history, ns_a, sel) = (&s, &history, &ns_a, sel.clone());
                scope.spawn(move || {
                    let path = format!("{ns_a}?watch=true&resourceVersion={from}{}", sel.query());
                    let want =
                        selected_changes(&BTreeMap::new(), history, from, |o| sel.matches(o));
                    assert_same(&path, &watch_window(s, &path, last), &want);
                });
            }
        }
    });
}

fn items(list: &Value) -> Vec<Value> {
    list["items"].as_array().expect("items").clone()
}

/// The initial ADDED events of a watch, then what follows them.
fn initial(s: &Server, path: &str, n: usize) -> (WatchStream, Vec<Change>) {
    let mut w = s.watch(path);
    assert_eq!(w.status, 200, "{path}");
    let got = read_n(&mut w, n, path);
    (w, got)
}

#[test]
fn the_initial_state_of_a_selective_watch_is_the_selected_list() {
    let s = server_with_namespaces(&[]);
    write_history(&s, 1_717, 80);
    for ns in NAMESPACES {
        let list = s.get(&cms(ns)).json();
        for sel in some_selectors() {
            let selected = s.get(&format!("{}?{}", cms(ns), &sel.query()[1..])).json();
            let want: Vec<Value> = items(&list)
                .into_iter()
                .filter(|o| sel.matches(o))
                .collect();
            let listed = items(&selected);
            let names = |v: &[Value]| -> Vec<String> {
                v.iter().map(cairn_tests::selection::key).collect()
            };
            assert_eq!(
                names(&listed),
                names(&want),
                "{ns}{}: the list",
                sel.query()
            );
            let base = format!("{}?watch=true{}", cms(ns), sel.query());
            for path in [
                base.clone(),
                format!("{base}&resourceVersion=0"),
                format!(
                    "{base}&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
                ),
            ] {
                let (mut w, got) = initial(&s, &path, want.len());
                assert!(got.iter().all(|(t, _)| t == "ADDED"), "{path}");
                // Objects in list items may lack kind/apiVersion; compare metadata and data.
                let strip = |o: &Value| (o["metadata"].clone(), o["data"].clone());
                let got_objs: Vec<_> = got.iter().map(|(_, o)| strip(o)).collect();
                let want_objs: Vec<_> = want.iter().map(strip).collect();
                assert_eq!(got_objs, want_objs, "{path}: the initial state");
                if path.contains("sendInitialEvents") {
                    let end = w.next_event().expect("the initial-events-end bookmark");
                    assert_eq!(end["type"], "BOOKMARK", "{path}");
                    assert_eq!(
                        end["object"]["metadata"]["annotations"]["svc.io/initial-events-end"],
                        "true"
                    );
                    assert!(rv(&end["object"]) >= rv(&selected), "{path}");
                }
            }
        }
    }
}

#[test]
fn a_selective_watch_from_a_compacted_revision_is_expired() {
    let s = Server::start(&["--compaction-interval", "1s"]);
    let path = "/api/v1/namespaces/default/configmaps";
    let cm = |name: &str| json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"app": "a"}}});
    let first = rv(&s.post(path, &cm("c0")).json());
    let deadline = Instant::now() + Duration::from_secs(20);
    for n in 1.. {
        assert_eq!(s.post(path, &cm(&format!("c{n}"))).status, 201);
        let mut w = s.watch(&format!(
            "{path}?watch=true&resourceVersion={first}&labelSelector=app%3Da"
        ));
        let ev = w.next_event().expect("an event");
        if ev["type"] == "ERROR" {
            let st = &ev["object"];
            assert_eq!(
                (st["code"].as_u64(), st["reason"].as_str()),
                (Some(410), Some("Expired"))
            );
            assert!(w.next_event().is_none(), "the stream ends after the error");
            return;
        }
        assert_eq!(ev["type"], "ADDED");
        assert!(Instant::now() < deadline, "history never compacted");
        std::thread::sleep(Duration::from_millis(300));
    }
}

const PB: &str = "application/vnd.kubernetes.protobuf";

/// A protobuf watch's events as (type, name, revision), BOOKMARKs left out,
/// up to revision `to` (proved reached by the closing BOOKMARK).
fn protobuf_window(s: &Server, path: &str, to: u64) -> Vec<(String, String, u64)> {
    for seconds in [1, 2, 4, 8, 16] {
        let url = format!("{path}&allowWatchBookmarks=true&timeoutSeconds={seconds}");
        let r = s.request("GET", &url, &[("Accept", PB)], None);
        assert_eq!(r.status, 200, "{url}");
        let events: Vec<(String, String, u64)> = k8s_proto::watch_events(&r.body)
            .iter()
            .map(|(t, obj)| {
                let cm = ConfigMap::decode(k8s_proto::unwrap(obj).2.as_slice()).expect("ConfigMap");
                let meta = cm.metadata.unwrap_or_default();
                let rv = meta
                    .resource_version
                    .and_then(|r| r.parse().ok())
                    .expect("rv");
                (t.clone(), meta.name.unwrap_or_default(), rv)
            })
            .collect();
        if events
            .iter()
            .rev()
            .find(|e| e.0 == "BOOKMARK")
            .is_some_and(|b| b.2 >= to)
        {
            return events
                .into_iter()
                .filter(|e| e.0 != "BOOKMARK" && e.2 <= to)
                .collect();
        }
    }
    panic!("{path}: no protobuf watch reached revision {to}");
}

#[test]
fn protobuf_and_json_watches_select_the_same_events() {
    let s = server_with_namespaces(&[]);
    let ns_a = cms("ns-a");
    let r0 = current_rv(&s, &ns_a);
    let last = write_history(&s, 0xb0f, 100);
    for sel in some_selectors() {
        let path = format!("{ns_a}?watch=true&resourceVersion={r0}{}", sel.query());
        let json: Vec<(String, String, u64)> = watch_window(&s, &path, last)
            .iter()
            .map(|(t, o)| {
                (
                    t.clone(),
                    o["metadata"]["name"].as_str().expect("name").to_string(),
                    rv(o),
                )
            })
            .collect();
        assert!(!json.is_empty(), "{path}");
        assert_eq!(protobuf_window(&s, &path, last), json, "{path}");
    }
}
