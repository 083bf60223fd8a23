//! Corrections found in review (issue #25's list): negative grace periods
//! refused, writes that change nothing not stored, a ServiceAccount
//! subject's empty apiGroup omitted, pods nobody runs deleted at once.

use std::time::Duration;

use cairn_tests::{Server, kubectl, kubectl_present};
use serde_json::{Value, json};

const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";
const PODS: &str = "/api/v1/namespaces/default/pods";

fn rv(v: &Value) -> String {
    v["metadata"]["resourceVersion"]
        .as_str()
        .expect("resourceVersion")
        .to_string()
}

#[test]
fn a_negative_grace_period_is_refused_and_deletes_nothing() {
    let s = Server::start(&[]);
    let created = s.post(
        CONFIGMAPS,
        &json!({"metadata": {"name": "keep"}, "data": {"a": "b"}}),
    );
    assert_eq!(created.status, 201, "{}", created.text());
    let by_query = s.delete(&format!("{CONFIGMAPS}/keep?gracePeriodSeconds=-5"));
    assert_eq!(by_query.status, 400, "{}", by_query.text());
    let status = by_query.json();
    assert_eq!(status["reason"], "BadRequest");
    assert!(
        status["message"]
            .as_str()
            .is_some_and(|m| m.contains("gracePeriodSeconds") && m.contains("-5")),
        "{status}"
    );
    let body = serde_json::to_vec(
        &json!({"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": -1}),
    )
    .expect("json");
    let by_body = s.request(
        "DELETE",
        &format!("{CONFIGMAPS}/keep"),
        &[("Content-Type", "application/json")],
        Some(&body),
    );
    assert_eq!(by_body.status, 400, "{}", by_body.text());
    assert_eq!(s.get(&format!("{CONFIGMAPS}/keep")).status, 200);
    // Zero still means "now".
    assert_eq!(
        s.delete(&format!("{CONFIGMAPS}/keep?gracePeriodSeconds=0"))
            .status,
        200
    );
}

#[test]
fn writes_that_change_nothing_are_not_stored() {
    let s = Server::start(&[]);
    let created = s.post(
        CONFIGMAPS,
        &json!({"metadata": {"name": "same", "labels": {"x": "1"}}, "data": {"a": "b"}}),
    );
    assert_eq!(created.status, 201, "{}", created.text());
    let first = rv(&created.json());
    let mut watch = s.watch(&format!(
        "{CONFIGMAPS}?watch=true&resourceVersion={first}&fieldSelector=metadata.name%3Dsame"
    ));
    watch.set_timeout(Duration::from_secs(30));

    // PUT of the object as read, a merge patch and a strategic merge patch
    // setting what is already there, and a server-side apply of the same
    // fields by the manager that owns them after its first apply.
    let current = s.get(&format!("{CONFIGMAPS}/same")).json();
    let put = s.put(&format!("{CONFIGMAPS}/same"), &current);
    assert_eq!((put.status, rv(&put.json())), (200, first.clone()), "PUT");
    for content_type in [
        "application/merge-patch+json",
        "application/strategic-merge-patch+json",
    ] {
        let patched = s.patch(
            &format!("{CONFIGMAPS}/same"),
            content_type,
            r#"{"data":{"a":"b"},"metadata":{"labels":{"x":"1"}}}"#,
        );
        assert_eq!(
            (patched.status, rv(&patched.json())),
            (200, first.clone()),
            "{content_type}"
        );
    }
    let apply_body =
        r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"same"},"data":{"c":"d"}}"#;
    let apply_path = format!("{CONFIGMAPS}/same?fieldManager=tool");
    let applied = s.patch(&apply_path, "application/apply-patch+yaml", apply_body);
    assert_eq!(applied.status, 200, "{}", applied.text());
    let after_apply = rv(&applied.json());
    assert_ne!(after_apply, first, "the first apply adds a field");
    let again = s.patch(&apply_path, "application/apply-patch+yaml", apply_body);
    assert_eq!(
        (again.status, rv(&again.json())),
        (200, after_apply.clone()),
        "a repeated apply"
    );

    // A real change: the watch sees the apply, then this, and nothing for
    // the writes in between.
    let changed = s.patch(
        &format!("{CONFIGMAPS}/same"),
        "application/merge-patch+json",
        r#"{"data":{"a":"z"}}"#,
    );
    assert_eq!(changed.status, 200);
    let last = rv(&changed.json());
    assert_ne!(last, after_apply);
    let seen: Vec<String> = (0..2)
        .map(|_| {
            let event = watch.next_event().expect("a watch event");
            assert_eq!(event["type"], "MODIFIED", "{event}");
            rv(&event["object"])
        })
        .collect();
    assert_eq!(seen, vec![after_apply, last]);
}

#[test]
fn a_service_account_subject_keeps_no_empty_api_group_so_reapply_is_unchanged() {
    let s = Server::start(&[]);
    let path = "/apis/rbac.authorization.svc.io/v1/namespaces/default/rolebindings";
    let binding = json!({"metadata": {"name": "sa-view"},
        "roleRef": {"apiGroup": "rbac.authorization.svc.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [{"kind": "ServiceAccount", "name": "default", "namespace": "default"},
                     {"kind": "User", "name": "jane"}]});
    let created = s.post(path, &binding);
    assert_eq!(created.status, 201, "{}", created.text());
    let subjects = &created.json()["subjects"];
    assert_eq!(subjects[0].get("apiGroup"), None, "{subjects}");
    assert_eq!(subjects[1]["apiGroup"], "rbac.authorization.svc.io");

    if !kubectl_present() {
        return;
    }
    let manifest = r"apiVersion: rbac.authorization.svc.io/v1
kind: RoleBinding
metadata:
  name: applied
  namespace: default
roleRef:
  apiGroup: rbac.authorization.svc.io
  kind: ClusterRole
  name: view
subjects:
- kind: ServiceAccount
  name: default
  namespace: default
";
    let (ok, out) = kubectl(&s, &["apply", "-f", "-"], Some(manifest));
    assert!(ok && out.contains("created"), "{out}");
    let (ok, out) = kubectl(&s, &["apply", "-f", "-"], Some(manifest));
    assert!(ok && out.contains("unchanged"), "{out}");
}

#[test]
fn pods_nobody_runs_are_deleted_at_once_and_scheduled_ones_gracefully() {
    let s = Server::start(&[]);
    let pod = |name: &str, node: Option<&str>| {
        let mut spec = json!({"containers": [{"name": "c", "image": "busybox"}]});
        if let Some(node) = node {
            spec["nodeName"] = json!(node);
        }
        json!({"metadata": {"name": name}, "spec": spec})
    };
    for (name, node) in [("pending", None), ("running", Some("node-1"))] {
        let created = s.post(PODS, &pod(name, node));
        assert_eq!(created.status, 201, "{}", created.text());
    }
    // Never scheduled: gone at once, whatever grace period is asked for.
    let deleted = s.delete(&format!("{PODS}/pending?gracePeriodSeconds=60"));
    assert_eq!(deleted.status, 200, "{}", deleted.text());
    assert_eq!(s.get(&format!("{PODS}/pending")).status, 404);

    // Scheduled: terminating with the default grace period.
    let deleted = s.delete(&format!("{PODS}/running"));
    assert_eq!(deleted.status, 200, "{}", deleted.text());
    let meta = &deleted.json()["metadata"];
    assert_eq!(meta["deletionGracePeriodSeconds"], 30, "{meta}");
    assert_eq!(s.get(&format!("{PODS}/running")).status, 200);

    // Finished pods go at once too.
    let created = s.post(PODS, &pod("done", Some("node-1")));
    assert_eq!(created.status, 201);
    let status = s.request(
        "PATCH",
        &format!("{PODS}/done/status"),
        &[("Content-Type", "application/merge-patch+json")],
        Some(br#"{"status":{"phase":"Succeeded"}}"#),
    );
    assert_eq!(status.status, 200, "{}", status.text());
    assert_eq!(s.delete(&format!("{PODS}/done")).status, 200);
    assert_eq!(s.get(&format!("{PODS}/done")).status, 404);
}

#[test]
fn omitted_required_fields_and_wrong_types_are_bad_requests_for_every_kind() {
    let s = Server::start(&[]);
    let crd = json!({"apiVersion": "apiextensions.svc.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object", "properties": {"spec": {"type": "object", "required": ["size"],
                    "properties": {"size": {"type": "integer", "maximum": 10}}}}}}}]}});
    let r = s.post(
        "/apis/apiextensions.svc.io/v1/customresourcedefinitions",
        &crd,
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let gadgets = "/apis/example.com/v1/namespaces/default/gadgets";
    cairn_tests::wait_until("the gadgets to be served", || s.get(gadgets).status == 200);
    let gadget = |meta: Value, spec: Value| json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": meta, "spec": spec});
    let cases = [
        (
            "omitted",
            gadget(json!({"name": "g"}), json!({})),
            400,
            "spec.size: Required value",
        ),
        (
            "wrong type",
            gadget(json!({"name": "g"}), json!({"size": "big"})),
            400,
            "must be of type integer",
        ),
        (
            "no name",
            gadget(json!({}), json!({"size": 1})),
            400,
            "metadata.name: Required value",
        ),
        // A value of the right type that a rule refuses stays invalid.
        (
            "too big",
            gadget(json!({"name": "g"}), json!({"size": 11})),
            422,
            "spec.size",
        ),
    ];
    for (what, body, code, text) in cases {
        let r = s.post(gadgets, &body);
        assert_eq!(r.status, code, "{what}: {}", r.text());
        assert!(r.text().contains(text), "{what}: {}", r.text());
    }
    let no_name = s.post(CONFIGMAPS, &json!({"metadata": {}, "data": {"a": "b"}}));
    assert_eq!(no_name.status, 400, "{}", no_name.text());
    assert_eq!(
        no_name.json()["details"]["causes"][0]["field"],
        "metadata.name"
    );
    assert_eq!(s.get(gadgets).json()["items"], json!([]));
}

#[test]
fn an_unknown_field_beside_a_fatal_error_reports_only_the_first_fatal_error() {
    let s = Server::start(&[]);
    let body = br#"{"metadata":{"name":"typed"},"bogus":1,"data":{"a":1,"b":2}}"#;
    for level in ["Strict", "Warn", "Ignore"] {
        let r = s.request(
            "POST",
            &format!("{CONFIGMAPS}?fieldValidation={level}"),
            &[("Content-Type", "application/json")],
            Some(body),
        );
        assert_eq!(r.status, 400, "{level}: {}", r.text());
        let status = r.json();
        let message = status["message"].as_str().unwrap_or_default();
        assert!(message.contains("data[a]"), "{level}: {message}");
        assert!(
            !message.contains("bogus") && !message.contains("data[b]"),
            "{level}: {message}"
        );
        assert_eq!(
            status["details"]["causes"].as_array().map(Vec::len),
            Some(1),
            "{level}: {status}"
        );
        assert!(r.header("warning").is_none(), "{level}");
    }
    // Without a fatal error, Strict still names the unknown field.
    let r = s.request(
        "POST",
        &format!("{CONFIGMAPS}?fieldValidation=Strict"),
        &[("Content-Type", "application/json")],
        Some(br#"{"metadata":{"name":"typed"},"bogus":1,"data":{"a":"1"}}"#),
    );
    assert_eq!(r.status, 400);
    assert!(
        r.text().contains("unknown field \\\"bogus\\\""),
        "{}",
        r.text()
    );
    assert_eq!(s.get(&format!("{CONFIGMAPS}/typed")).status, 404);
}
