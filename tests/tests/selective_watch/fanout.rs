//! Many selective watchers at once under concurrent writers: Events by
//! `involvedObject.name` (one watcher per involved pod, duplicates, a
//! negative and a combined selector, watchers that leave mid-stream) and
//! Pods by `spec.nodeName` / `status.phase`. Each watcher must get exactly
//! the model's stream for it, in order, with the objects it carries.
//!
//! Every watcher starts at one revision, so one opened a little late
//! replays the same history. After the writers, one sentinel write per
//! watcher makes its last expected event a known one: reading exactly the
//! expected count then leaves nothing unchecked in the written window.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use cairn_tests::selection::{Change, FieldTerm, Rng, Selector, key, rv};
use cairn_tests::{Server, WatchStream, event};
use serde_json::{Value, json};

use super::{assert_same, current_rv, read_n, read_until};

/// One acknowledged write: the object's key and, when the response carried
/// the object, its revision (`None` for a delete answered with a Status).
struct Ack {
    key: String,
    rv: Option<u64>,
    delete: bool,
}

/// A writer's own objects: it alone writes them, so no write conflicts.
struct Own {
    prefix: String,
    next: usize,
    live: Vec<String>,
    /// A pod's phase, moved only forward (Pending → Running → finished).
    phase: BTreeMap<String, &'static str>,
}

impl Own {
    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("{}-{}", self.prefix, self.next)
    }
}

fn ack(r: &cairn_tests::Response, what: &str) -> Ack {
    assert!(r.status == 200 || r.status == 201, "{what}: {}", r.text());
    let v = r.json();
    let delete = what.starts_with("DELETE");
    let obj_rv = (v["kind"] != "Status").then(|| rv(&v));
    Ack {
        key: if v["kind"] == "Status" {
            format!("default/{}", v["details"]["name"].as_str().expect("name"))
        } else {
            key(&v)
        },
        rv: obj_rv,
        delete,
    }
}

/// Runs `writers` threads of `ops` random writes each (`op` makes one).
fn write_concurrently(
    s: &Server,
    phase: &str,
    writers: u64,
    ops: usize,
    op: impl Fn(&Server, &mut Rng, &mut Own) -> Ack + Sync,
) -> Vec<Ack> {
    let acks = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for t in 0..writers {
            let (acks, op) = (&acks, &op);
            scope.spawn(move || {
                let mut rng = Rng::new(0x005e_1ec7 ^ (t << 8) ^ phase.len() as u64);
                let mut own = Own {
                    prefix: format!("{phase}{t}"),
                    next: 0,
                    live: Vec::new(),
                    phase: BTreeMap::new(),
                };
                for _ in 0..ops {
                    let a = op(s, &mut rng, &mut own);
                    acks.lock().expect("acks").push(a);
                }
            });
        }
    });
    acks.into_inner().expect("acks")
}

/// The unfiltered history holds exactly the acknowledged writes, each
/// once, in increasing revisions.
fn check_history(history: &[Change], acks: &[Ack]) {
    let revs: Vec<u64> = history.iter().map(|(_, o)| rv(o)).collect();
    assert!(revs.windows(2).all(|w| w[0] < w[1]), "revisions increase");
    let seen: BTreeSet<(String, u64)> = history.iter().map(|(_, o)| (key(o), rv(o))).collect();
    let acked: BTreeSet<(String, u64)> = acks
        .iter()
        .filter_map(|a| a.rv.map(|r| (a.key.clone(), r)))
        .collect();
    assert!(
        acked.is_subset(&seen),
        "every acknowledged write is watched"
    );
    let deletes = acks.iter().filter(|a| a.delete).count();
    let changes: BTreeSet<(String, u64)> = acks
        .iter()
        .filter(|a| !a.delete)
        .filter_map(|a| a.rv.map(|r| (a.key.clone(), r)))
        .collect();
    let watched_deletes = history.iter().filter(|(t, _)| t == "DELETED").count();
    assert_eq!(watched_deletes, deletes, "one DELETED per delete");
    // A no-op patch is acknowledged with the revision it left unchanged.
    assert_eq!(
        history.len(),
        changes.len() + deletes,
        "no event but the writes"
    );
}

/// Each watcher's stream equals the model's from the unfiltered history.
fn check_watchers(watchers: &mut [(String, Selector, WatchStream)], history: &[Change], r0: u64) {
    for (what, sel, w) in watchers.iter_mut() {
        let want = cairn_tests::selection::selected_changes(&BTreeMap::new(), history, r0, |o| {
            sel.matches(o)
        });
        assert!(!want.is_empty(), "{what}: a sentinel at least");
        let got = read_n(w, want.len(), what);
        assert_same(what, &got, &want);
    }
}

fn open(
    s: &Server,
    collection: &str,
    r0: u64,
    what: String,
    sel: Selector,
) -> (String, Selector, WatchStream) {
    let w = s.watch(&format!(
        "{collection}?watch=true&resourceVersion={r0}{}",
        sel.query()
    ));
    assert_eq!(w.status, 200, "{what}");
    (what, sel, w)
}

const EVENTS: &str = "/api/v1/namespaces/default/events";
const INVOLVED: usize = 50;

fn event_about(name: &str, pod: &str, ty: &str) -> Value {
    let mut e = event(name, "Seen");
    e["involvedObject"]["name"] = json!(pod);
    e["type"] = json!(ty);
    e
}

fn event_op(s: &Server, rng: &mut Rng, own: &mut Own) -> Ack {
    let pod = format!("pod-{}", rng.below(INVOLVED));
    let ty = *rng.pick(&["Normal", "Warning"]);
    if own.live.len() < 3 || rng.chance(35) {
        let name = own.fresh();
        own.live.push(name.clone());
        return ack(&s.post(EVENTS, &event_about(&name, &pod, ty)), "POST");
    }
    let i = rng.below(own.live.len());
    let name = own.live[i].clone();
    let path = format!("{EVENTS}/{name}");
    if rng.chance(70) {
        // Moving an event to another pod moves it between watchers.
        let patch = match rng.below(3) {
            0 => json!({"involvedObject": {"name": pod}}),
            1 => json!({"type": ty}),
            _ => json!({"message": format!("m{}", rng.next_u64())}),
        };
        let r = s.patch(&path, "application/merge-patch+json", &patch.to_string());
        return ack(&r, "PATCH");
    }
    own.live.swap_remove(i);
    ack(&s.delete(&path), "DELETE")
}

#[test]
fn event_watchers_by_involved_object_see_exactly_their_events() {
    let s = Server::start(&[]);
    let r0 = current_rv(&s, EVENTS);
    let by_pod = |i: usize| {
        Selector::fields(vec![FieldTerm::eq(
            "involvedObject.name",
            &format!("pod-{i}"),
        )])
    };
    let mut watchers = Vec::new();
    for i in 0..INVOLVED {
        watchers.push(open(&s, EVENTS, r0, format!("pod-{i}"), by_pod(i)));
    }
    for i in 0..10 {
        watchers.push(open(&s, EVENTS, r0, format!("pod-{i} again"), by_pod(i)));
    }
    let combined = Selector::fields(vec![
        FieldTerm::eq("involvedObject.name", "pod-3"),
        FieldTerm {
            double: true,
            ..FieldTerm::eq("type", "Warning")
        },
    ]);
    watchers.push(open(&s, EVENTS, r0, "pod-3 warnings".into(), combined));
    let not_pod0 = Selector::fields(vec![FieldTerm::ne("involvedObject.name", "pod-0")]);
    watchers.push(open(&s, EVENTS, r0, "not pod-0".into(), not_pod0));
    let mut leavers: Vec<_> = (0..5)
        .map(|i| open(&s, EVENTS, r0, format!("leaver {i}"), by_pod(i)))
        .collect();
    let mut all = s.watch(&format!("{EVENTS}?watch=true&resourceVersion={r0}"));

    let mut acks = write_concurrently(&s, "a", 4, 40, event_op);
    // Some watchers go away mid-stream, one after reading a little.
    let _ = leavers[0].2.next_event();
    leavers.clear();
    acks.extend(write_concurrently(&s, "b", 4, 40, event_op));
    // Sentinels, ordered so each is its watchers' last matching write.
    let mut sentinel = |name: &str, pod: &str, ty: &str| {
        acks.push(ack(&s.post(EVENTS, &event_about(name, pod, ty)), "POST"));
    };
    sentinel("zz-combined", "pod-3", "Warning");
    for i in 0..INVOLVED {
        sentinel(&format!("zz-pod-{i}"), &format!("pod-{i}"), "Normal");
    }
    sentinel("zz-end", "pod-end", "Normal");
    let last = acks.last().and_then(|a| a.rv).expect("rv");

    let history = read_until(&mut all, last);
    check_history(&history, &acks);
    check_watchers(&mut watchers, &history, r0);
}

const PODS: &str = "/api/v1/namespaces/default/pods";
const NODES: usize = 20;

fn pod(name: &str, node: Option<&str>, app: &str) -> Value {
    let mut p = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": app}},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]},
    });
    if let Some(n) = node {
        p["spec"]["nodeName"] = json!(n);
    }
    p
}

fn set_phase(s: &Server, name: &str, phase: &str) -> Ack {
    let body = json!({"status": {"phase": phase}}).to_string();
    ack(
        &s.patch(
            &format!("{PODS}/{name}/status"),
            "application/merge-patch+json",
            &body,
        ),
        "PATCH status",
    )
}

fn pod_op(s: &Server, rng: &mut Rng, own: &mut Own) -> Ack {
    if own.live.len() < 3 || rng.chance(35) {
        let name = own.fresh();
        own.live.push(name.clone());
        let node = (!rng.chance(20)).then(|| format!("node-{}", rng.below(NODES)));
        let app = *rng.pick(&["a", "b"]);
        return ack(&s.post(PODS, &pod(&name, node.as_deref(), app)), "POST");
    }
    let i = rng.below(own.live.len());
    let name = own.live[i].clone();
    if rng.chance(70) {
        let next = match own.phase.get(&name).copied().unwrap_or("Pending") {
            "Pending" => Some("Running"),
            "Running" => Some(*rng.pick(&["Succeeded", "Failed"])),
            _ => None,
        };
        if let Some(phase) = next.filter(|_| rng.chance(60)) {
            own.phase.insert(name.clone(), phase);
            return set_phase(s, &name, phase);
        }
        let body = json!({"metadata": {"labels": {"app": rng.pick(&["a", "b"])}}}).to_string();
        let r = s.patch(
            &format!("{PODS}/{name}"),
            "application/merge-patch+json",
            &body,
        );
        return ack(&r, "PATCH");
    }
    own.live.swap_remove(i);
    ack(
        &s.delete(&format!("{PODS}/{name}?gracePeriodSeconds=0")),
        "DELETE",
    )
}

#[test]
fn pod_watchers_by_node_and_phase_see_exactly_their_pods() {
    let s = Server::start(&[]);
    let r0 = current_rv(&s, PODS);
    let on_node =
        |i: usize| Selector::fields(vec![FieldTerm::eq("spec.nodeName", &format!("node-{i}"))]);
    let mut watchers = Vec::new();
    for i in 0..NODES {
        watchers.push(open(&s, PODS, r0, format!("node-{i}"), on_node(i)));
        watchers.push(open(&s, PODS, r0, format!("node-{i} again"), on_node(i)));
    }
    // A scheduler's view: unscheduled pods that are not finished.
    let unscheduled = Selector::fields(vec![
        FieldTerm::eq("spec.nodeName", ""),
        FieldTerm::ne("status.phase", "Succeeded"),
        FieldTerm::ne("status.phase", "Failed"),
    ]);
    watchers.push(open(&s, PODS, r0, "unscheduled".into(), unscheduled));
    let running = Selector::fields(vec![FieldTerm::eq("status.phase", "Running")]);
    watchers.push(open(&s, PODS, r0, "running".into(), running));
    let mut all = s.watch(&format!("{PODS}?watch=true&resourceVersion={r0}"));

    let mut acks = write_concurrently(&s, "p", 4, 50, pod_op);
    acks.push(ack(
        &s.post(PODS, &pod("zz-running", Some("node-end"), "a")),
        "POST",
    ));
    acks.push(set_phase(&s, "zz-running", "Running"));
    for i in 0..NODES {
        let name = format!("zz-node-{i}");
        acks.push(ack(
            &s.post(PODS, &pod(&name, Some(&format!("node-{i}")), "a")),
            "POST",
        ));
    }
    acks.push(ack(
        &s.post(PODS, &pod("zz-unscheduled", None, "a")),
        "POST",
    ));
    let last = acks.last().and_then(|a| a.rv).expect("rv");

    let history = read_until(&mut all, last);
    check_history(&history, &acks);
    check_watchers(&mut watchers, &history, r0);
}
