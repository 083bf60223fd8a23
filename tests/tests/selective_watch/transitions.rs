//! Objects moving into and out of one watcher's selection, written one at a
//! time with the expected stream spelled out: by a label change
//! (ConfigMaps), by a field change (Events' `reason`, Pods' `status.phase`
//! through `/status`, a CRD's `selectableFields`), and deletes inside and
//! outside the selection. A watch opened before the writes and one resumed
//! afterwards from the same revision both get exactly that stream, which
//! is also the model's (`selected_changes`).

use std::collections::BTreeMap;

use cairn_tests::selection::{Change, FieldTerm, LabelTerm, Selector, key, rv, selected_changes};
use cairn_tests::{Server, event, wait_until};
use serde_json::{Value, json};

use super::{assert_same, current_rv, read_n, watch_window};

/// One write of a script.
pub enum Write {
    Post(&'static str, Value),
    /// A merge patch of the object at the path.
    Patch(String, Value),
    Delete(String),
}

impl Write {
    fn run(&self, s: &Server) {
        let r = match self {
            Write::Post(path, body) => s.post(path, body),
            Write::Patch(path, body) => {
                s.patch(path, "application/merge-patch+json", &body.to_string())
            }
            Write::Delete(path) => s.delete(path),
        };
        assert!(r.status == 200 || r.status == 201, "{}", r.text());
    }
}

/// Runs `writes` under a watch of `collection` selecting with `sel`;
/// `want` lists the events expected as (type, index of the write each
/// reports). Returns the events, for checks of the objects carried.
pub fn check_transitions(
    s: &Server,
    collection: &str,
    sel: &Selector,
    writes: &[Write],
    want: &[(&str, usize)],
) -> Vec<Change> {
    let r0 = current_rv(s, collection);
    let from = format!("{collection}?watch=true&resourceVersion={r0}");
    let mut all = s.watch(&from);
    let mut live = s.watch(&format!("{from}{}", sel.query()));
    for w in writes {
        w.run(s);
    }
    let history = read_n(&mut all, writes.len(), "unfiltered");
    let expected: Vec<(String, String, u64)> = want
        .iter()
        .map(|(t, i)| ((*t).to_string(), key(&history[*i].1), rv(&history[*i].1)))
        .collect();
    let got = read_n(&mut live, want.len(), "live");
    assert_eq!(
        cairn_tests::selection::summary(&got),
        expected,
        "live watch"
    );
    let model = selected_changes(&BTreeMap::new(), &history, r0, |o| sel.matches(o));
    assert_same("the model", &got, &model);
    let last = rv(&history.last().expect("writes").1);
    let resumed = watch_window(s, &format!("{from}{}", sel.query()), last);
    assert_same("resumed watch", &resumed, &got);
    got
}

const CMS: &str = "/api/v1/namespaces/default/configmaps";

fn cm(name: &str, app: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"app": app}}, "data": {"k": "0"}})
}

fn relabel(name: &str, app: &str) -> Write {
    Write::Patch(
        format!("{CMS}/{name}"),
        json!({"metadata": {"labels": {"app": app}}}),
    )
}

#[test]
fn a_label_change_moves_an_object_in_and_out_of_a_selection() {
    let s = Server::start(&[]);
    let sel = Selector::labels(vec![LabelTerm::Eq("app".into(), "a".into())]);
    let writes = [
        Write::Post(CMS, cm("t", "b")),
        relabel("t", "a"),
        Write::Patch(format!("{CMS}/t"), json!({"data": {"k": "1"}})),
        relabel("t", "b"),
        Write::Patch(format!("{CMS}/t"), json!({"data": {"k": "2"}})),
        relabel("t", "a"),
        Write::Delete(format!("{CMS}/t")),
        Write::Post(CMS, cm("other", "b")),
        Write::Delete(format!("{CMS}/other")),
        Write::Post(CMS, cm("end", "a")),
    ];
    let want = [
        ("ADDED", 1),
        ("MODIFIED", 2),
        ("DELETED", 3),
        ("ADDED", 5),
        ("DELETED", 6),
        ("ADDED", 9),
    ];
    let got = check_transitions(&s, CMS, &sel, &writes, &want);
    // Leaving the selection carries the last selected state at the new revision.
    let left = &got[2].1;
    assert_eq!(left["metadata"]["labels"]["app"], "a");
    assert_eq!(left["data"]["k"], "1");
    // A delete carries the object's last state.
    assert_eq!(got[4].1["metadata"]["labels"]["app"], "a");
    assert_eq!(got[4].1["data"]["k"], "2");
}

const EVENTS: &str = "/api/v1/namespaces/default/events";

#[test]
fn a_field_change_moves_an_event_in_and_out_of_a_selection() {
    let s = Server::start(&[]);
    let sel = Selector::fields(vec![FieldTerm::eq("reason", "Killing")]);
    let reason = |r: &str| Write::Patch(format!("{EVENTS}/e"), json!({"reason": r}));
    let writes = [
        Write::Post(EVENTS, event("e", "Pulled")),
        reason("Killing"),
        Write::Patch(format!("{EVENTS}/e"), json!({"message": "again"})),
        reason("Pulled"),
        reason("Killing"),
        Write::Delete(format!("{EVENTS}/e")),
        Write::Post(EVENTS, event("f", "Killing")),
    ];
    let want = [
        ("ADDED", 1),
        ("MODIFIED", 2),
        ("DELETED", 3),
        ("ADDED", 4),
        ("DELETED", 5),
        ("ADDED", 6),
    ];
    let got = check_transitions(&s, EVENTS, &sel, &writes, &want);
    assert_eq!(got[2].1["reason"], "Killing", "the state that matched");
    assert_eq!(got[2].1["message"], "again");
}

const PODS: &str = "/api/v1/namespaces/default/pods";

#[test]
fn a_status_change_moves_a_pod_in_and_out_of_a_selection() {
    let s = Server::start(&[]);
    let sel = Selector::fields(vec![FieldTerm::eq("status.phase", "Running")]);
    let phase = |p: &str| Write::Patch(format!("{PODS}/p/status"), json!({"status": {"phase": p}}));
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "busybox"}]}});
    let writes = [
        Write::Post(PODS, pod.clone()),
        phase("Running"),
        Write::Patch(
            format!("{PODS}/p"),
            json!({"metadata": {"labels": {"x": "y"}}}),
        ),
        phase("Succeeded"),
        Write::Delete(format!("{PODS}/p?gracePeriodSeconds=0")),
        Write::Post(
            PODS,
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "q"},
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "busybox"}]}}),
        ),
        Write::Patch(
            format!("{PODS}/q/status"),
            json!({"status": {"phase": "Running"}}),
        ),
        Write::Delete(format!("{PODS}/q?gracePeriodSeconds=0")),
        Write::Post(PODS, pod),
        phase("Running"),
    ];
    let want = [
        ("ADDED", 1),
        ("MODIFIED", 2),
        ("DELETED", 3),
        ("ADDED", 6),
        ("DELETED", 7),
        ("ADDED", 9),
    ];
    let got = check_transitions(&s, PODS, &sel, &writes, &want);
    assert_eq!(got[2].1["status"]["phase"], "Running");
    assert_eq!(got[2].1["metadata"]["labels"]["x"], "y");
}

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const GADGETS: &str = "/apis/example.com/v1/namespaces/default/gadgets";

#[test]
fn a_crd_selectable_field_moves_an_object_in_and_out_of_a_selection() {
    // CRDs are served in the apiextensions group of the configured domain.
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "selectableFields": [{"jsonPath": ".spec.color"}],
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object",
                    "properties": {"color": {"type": "string"}, "size": {"type": "integer"}}}}}}}]}
    });
    assert_eq!(s.post(CRDS, &crd).status, 201);
    wait_until("gadgets to be served", || s.get(GADGETS).status == 200);
    let gadget = |name: &str, color: &str| json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": name}, "spec": {"color": color, "size": 1}});
    let paint = |c: &str| Write::Patch(format!("{GADGETS}/g"), json!({"spec": {"color": c}}));
    let sel = Selector::fields(vec![FieldTerm::eq("spec.color", "red")]);
    let writes = [
        Write::Post(GADGETS, gadget("g", "blue")),
        paint("red"),
        Write::Patch(format!("{GADGETS}/g"), json!({"spec": {"size": 2}})),
        paint("blue"),
        paint("red"),
        Write::Delete(format!("{GADGETS}/g")),
        Write::Post(GADGETS, gadget("h", "red")),
    ];
    let want = [
        ("ADDED", 1),
        ("MODIFIED", 2),
        ("DELETED", 3),
        ("ADDED", 4),
        ("DELETED", 5),
        ("ADDED", 6),
    ];
    let got = check_transitions(&s, GADGETS, &sel, &writes, &want);
    assert_eq!(got[2].1["spec"], json!({"color": "red", "size": 2}));
}
