//! The deletion lifecycle against the real binary: finalizers (as a watcher
//! sees them), propagation policies and the garbage collector acting on
//! ownerReferences (Events and Namespaces as owners and dependents),
//! DeleteOptions errors and preconditions, deletecollection, dry runs.

use std::time::Duration;

use cairn_tests::{Server, event, wait_until};
use serde_json::{Value, json};

const EVENTS: &str = "/api/v1/namespaces/default/events";

fn owner_ref(kind: &str, obj: &Value, block: bool) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": kind,
        "name": obj["metadata"]["name"],
        "uid": obj["metadata"]["uid"],
        "blockOwnerDeletion": block,
    })
}

/// Creates an Event in `ns` with the given owner references.
fn dependent_event(s: &Server, ns: &str, name: &str, owners: &[Value]) -> Value {
    let mut body = event(name, "Owned");
    if !owners.is_empty() {
        body["metadata"]["ownerReferences"] = json!(owners);
    }
    let r = s.post(&format!("/api/v1/namespaces/{ns}/events"), &body);
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()
}

fn namespace(s: &Server, name: &str, owners: &[Value]) -> Value {
    let mut body = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
    if !owners.is_empty() {
        body["metadata"]["ownerReferences"] = json!(owners);
    }
    let r = s.post("/api/v1/namespaces", &body);
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()
}

fn gone(s: &Server, path: &str) -> bool {
    s.get(path).status == 404
}

fn finalizers(obj: &Value) -> Value {
    obj["metadata"]["finalizers"].clone()
}

#[test]
fn finalizers_hold_a_deleted_object_until_removed() {
    let s = Server::start(&[]);
    let mut body = event("held", "r");
    body["metadata"]["finalizers"] = json!(["example.com/hold"]);
    let created = s.post(EVENTS, &body).json();
    let rv = created["metadata"]["resourceVersion"].as_str().expect("rv");
    let mut watch = s.watch(&format!(
        "{EVENTS}?watch=true&resourceVersion={rv}&fieldSelector=metadata.name=held"
    ));
    watch.set_timeout(Duration::from_secs(10));

    let r = s.delete(&format!("{EVENTS}/held"));
    assert_eq!(r.status, 200, "{}", r.text());
    let terminating = r.json();
    assert!(terminating["metadata"]["deletionTimestamp"].is_string());
    assert_eq!(terminating["metadata"]["deletionGracePeriodSeconds"], 0);
    assert_eq!(finalizers(&terminating), json!(["example.com/hold"]));
    assert_eq!(s.get(&format!("{EVENTS}/held")).json(), terminating);

    // A second DELETE changes nothing.
    let again = s.delete(&format!("{EVENTS}/held"));
    assert_eq!(again.status, 200);
    assert_eq!(again.json(), terminating);
    assert_eq!(s.get(&format!("{EVENTS}/held")).json(), terminating);

    let r = s.patch(
        &format!("{EVENTS}/held"),
        "application/merge-patch+json",
        r#"{"metadata":{"finalizers":null}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(gone(&s, &format!("{EVENTS}/held")));

    let modified = watch.next_event().expect("MODIFIED");
    assert_eq!(modified["type"], "MODIFIED");
    assert_eq!(modified["object"], terminating);
    let deleted = watch.next_event().expect("DELETED");
    assert_eq!(deleted["type"], "DELETED");
    assert_eq!(deleted["object"]["metadata"]["name"], "held");

    // The name is free again.
    let reborn = s.post(EVENTS, &event("held", "r"));
    assert_eq!(reborn.status, 201, "{}", reborn.text());
    assert_ne!(reborn.json()["metadata"]["uid"], created["metadata"]["uid"]);
    assert!(reborn.json()["metadata"]["deletionTimestamp"].is_null());
}

#[test]
fn background_deletion_collects_dependents_whose_owners_are_gone() {
    let s = Server::start(&[]);
    let owner = s.post(EVENTS, &event("owner", "r")).json();
    let other = s.post(EVENTS, &event("other-owner", "r")).json();
    dependent_event(
        &s,
        "default",
        "only-child",
        &[owner_ref("Event", &owner, false)],
    );
    dependent_event(
        &s,
        "default",
        "two-parents",
        &[
            owner_ref("Event", &owner, false),
            owner_ref("Event", &other, false),
        ],
    );
    // An owner in another namespace is not an owner: the reference dangles.
    dependent_event(
        &s,
        "kube-public",
        "elsewhere",
        &[owner_ref("Event", &other, false)],
    );
    // An owner that never existed.
    let ghost =
        json!({"metadata": {"name": "ghost", "uid": "00000000-0000-0000-0000-000000000000"}});
    dependent_event(
        &s,
        "default",
        "orphaned",
        &[owner_ref("Event", &ghost, false)],
    );

    wait_until("dangling references collected", || {
        gone(&s, "/api/v1/namespaces/kube-public/events/elsewhere")
            && gone(&s, &format!("{EVENTS}/orphaned"))
    });
    assert_eq!(s.get(&format!("{EVENTS}/only-child")).status, 200);

    let r = s.delete(&format!("{EVENTS}/owner"));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["kind"], "Status");
    wait_until("the only child collected", || {
        gone(&s, &format!("{EVENTS}/only-child"))
    });
    // A dependent with a live owner stays; the gone owner's reference goes.
    wait_until("the gone owner's reference dropped", || {
        let d = s.get(&format!("{EVENTS}/two-parents")).json();
        d["metadata"]["ownerReferences"] == json!([owner_ref("Event", &other, false)])
    });
}

#[test]
fn events_do_not_wait_for_their_dependents() {
    // Kubernetes declares garbage collection unsupported for Events: a
    // foreground or orphan delete removes them at once.
    let s = Server::start(&[]);
    let owner = s.post(EVENTS, &event("owner", "r")).json();
    dependent_event(&s, "default", "child", &[owner_ref("Event", &owner, true)]);
    let r = s.delete(&format!("{EVENTS}/owner?propagationPolicy=Foreground"));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["kind"], "Status");
    assert!(gone(&s, &format!("{EVENTS}/owner")));
    wait_until("the child collected", || {
        gone(&s, &format!("{EVENTS}/child"))
    });
}

#[test]
fn foreground_deletion_waits_for_blocking_dependents() {
    let s = Server::start(&[]);
    let owner = namespace(&s, "fg-owner", &[]);
    let mut body = event("blocker", "r");
    body["metadata"]["ownerReferences"] = json!([owner_ref("Namespace", &owner, true)]);
    body["metadata"]["finalizers"] = json!(["example.com/hold"]);
    assert_eq!(s.post(EVENTS, &body).status, 201);
    dependent_event(
        &s,
        "default",
        "loose",
        &[owner_ref("Namespace", &owner, false)],
    );

    let r = s.delete("/api/v1/namespaces/fg-owner?propagationPolicy=Foreground");
    assert_eq!(r.status, 200, "{}", r.text());
    let deleting = r.json();
    assert!(deleting["metadata"]["deletionTimestamp"].is_string());
    assert_eq!(finalizers(&deleting), json!(["foregroundDeletion"]));
    assert_eq!(deleting["status"]["phase"], "Terminating");

    wait_until("dependents deleted", || {
        gone(&s, &format!("{EVENTS}/loose"))
            && s.get(&format!("{EVENTS}/blocker")).json()["metadata"]["deletionTimestamp"]
                .is_string()
    });
    // The held, blocking dependent keeps the owner.
    std::thread::sleep(Duration::from_millis(500));
    let still = s.get("/api/v1/namespaces/fg-owner");
    assert_eq!(still.status, 200);
    assert_eq!(finalizers(&still.json()), json!(["foregroundDeletion"]));

    let r = s.patch(
        &format!("{EVENTS}/blocker"),
        "application/merge-patch+json",
        r#"{"metadata":{"finalizers":null}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    wait_until("the owner removed", || {
        gone(&s, "/api/v1/namespaces/fg-owner")
    });
}

#[test]
fn foreground_deletion_cascades_through_a_chain() {
    let s = Server::start(&[]);
    let top = namespace(&s, "chain-top", &[]);
    let middle = namespace(&s, "chain-middle", &[owner_ref("Namespace", &top, true)]);
    dependent_event(
        &s,
        "default",
        "chain-leaf",
        &[owner_ref("Namespace", &middle, true)],
    );
    let r = s.delete("/api/v1/namespaces/chain-top?propagationPolicy=Foreground");
    assert_eq!(r.status, 200, "{}", r.text());
    wait_until("the whole chain removed", || {
        gone(&s, "/api/v1/namespaces/chain-top")
            && gone(&s, "/api/v1/namespaces/chain-middle")
            && gone(&s, &format!("{EVENTS}/chain-leaf"))
    });
}

#[test]
fn orphan_deletion_keeps_dependents_without_the_owner() {
    let s = Server::start(&[]);
    let owner = namespace(&s, "or-owner", &[]);
    let keep = namespace(&s, "or-keep", &[]);
    dependent_event(
        &s,
        "default",
        "orphan-child",
        &[
            owner_ref("Namespace", &owner, true),
            owner_ref("Namespace", &keep, false),
        ],
    );
    let r = s.delete("/api/v1/namespaces/or-owner?propagationPolicy=Orphan");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(finalizers(&r.json()), json!(["orphan"]));
    wait_until("the owner removed", || {
        gone(&s, "/api/v1/namespaces/or-owner")
    });
    let child = s.get(&format!("{EVENTS}/orphan-child"));
    assert_eq!(child.status, 200);
    assert_eq!(
        child.json()["metadata"]["ownerReferences"],
        json!([owner_ref("Namespace", &keep, false)])
    );
}

#[test]
fn orphan_dependents_flag() {
    let s = Server::start(&[]);
    let kept_owner = namespace(&s, "flag-orphan", &[]);
    dependent_event(
        &s,
        "default",
        "flag-kept",
        &[owner_ref("Namespace", &kept_owner, false)],
    );
    let r = s.delete("/api/v1/namespaces/flag-orphan?orphanDependents=true");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(finalizers(&r.json()), json!(["orphan"]));
    wait_until("the owner removed", || {
        gone(&s, "/api/v1/namespaces/flag-orphan")
    });
    let kept = s.get(&format!("{EVENTS}/flag-kept")).json();
    assert!(kept["metadata"]["ownerReferences"].is_null(), "{kept}");

    let owner = namespace(&s, "flag-cascade", &[]);
    dependent_event(
        &s,
        "default",
        "flag-gone",
        &[owner_ref("Namespace", &owner, false)],
    );
    // Not removed at once with orphanDependents=false: 202 Accepted.
    let r = s.delete("/api/v1/namespaces/flag-cascade?orphanDependents=false");
    assert_eq!(r.status, 202, "{}", r.text());
    assert!(finalizers(&r.json()).is_null());
    wait_until("owner and dependent removed", || {
        gone(&s, "/api/v1/namespaces/flag-cascade") && gone(&s, &format!("{EVENTS}/flag-gone"))
    });
}

#[test]
fn delete_options_errors() {
    let s = Server::start(&[]);
    let created = s.post(EVENTS, &event("target", "r")).json();
    let path = format!("{EVENTS}/target");

    let both = s.delete(&format!(
        "{path}?orphanDependents=true&propagationPolicy=Orphan"
    ));
    assert_eq!(both.status, 400, "{}", both.text());
    let bad = s.delete(&format!("{path}?propagationPolicy=Sideways"));
    assert_eq!(bad.status, 400, "{}", bad.text());
    assert!(
        bad.json()["message"]
            .as_str()
            .expect("message")
            .contains("Sideways")
    );
    let bad_body = s.send_json(
        "DELETE",
        &path,
        &json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Sideways"}),
    );
    assert_eq!(bad_body.status, 400, "{}", bad_body.text());
    let both_body = s.send_json(
        "DELETE",
        &path,
        &json!({"orphanDependents": false, "propagationPolicy": "Background"}),
    );
    assert_eq!(both_body.status, 400, "{}", both_body.text());

    let uid = created["metadata"]["uid"].as_str().expect("uid");
    let wrong_uid = s.send_json(
        "DELETE",
        &path,
        &json!({"preconditions": {"uid": "not-the-uid"}}),
    );
    assert_eq!(wrong_uid.status, 409, "{}", wrong_uid.text());
    let status = wrong_uid.json();
    assert_eq!(status["reason"], "Conflict");
    assert_eq!(
        status["message"],
        format!(
            "Operation cannot be fulfilled on Event \"target\": the UID in the precondition (not-the-uid) does not match the UID in record ({uid}). The object might have been deleted and then recreated"
        )
    );
    let wrong_rv = s.send_json(
        "DELETE",
        &path,
        &json!({"preconditions": {"resourceVersion": "1"}}),
    );
    assert_eq!(wrong_rv.status, 409, "{}", wrong_rv.text());
    assert!(s.get(&path).status == 200, "nothing was deleted");

    let rv = created["metadata"]["resourceVersion"].as_str().expect("rv");
    let ok = s.send_json(
        "DELETE",
        &path,
        &json!({"preconditions": {"uid": uid, "resourceVersion": rv}}),
    );
    assert_eq!(ok.status, 200, "{}", ok.text());
    assert!(gone(&s, &path));
}

#[test]
fn deletecollection_with_a_label_selector() {
    let s = Server::start(&[]);
    for (name, tier) in [("a", "web"), ("b", "web"), ("c", "db")] {
        let mut body = event(name, "r");
        body["metadata"]["labels"] = json!({"tier": tier});
        assert_eq!(s.post(EVENTS, &body).status, 201);
    }
    let r = s.delete(&format!("{EVENTS}?labelSelector=tier%3Dweb"));
    assert_eq!(r.status, 200, "{}", r.text());
    let list = r.json();
    assert_eq!(list["kind"], "EventList");
    let mut names: Vec<&str> = list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["metadata"]["name"].as_str().expect("name"))
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["a", "b"]);
    let left = s.get(EVENTS).json();
    assert_eq!(left["items"].as_array().expect("items").len(), 1);
    assert_eq!(left["items"][0]["metadata"]["name"], "c");

    // DeleteOptions apply to every item: orphaning namespaces by label.
    let owners: Vec<Value> = ["dc-1", "dc-2"]
        .iter()
        .map(|n| {
            let r = s.post(
                "/api/v1/namespaces",
                &json!({"metadata": {"name": n, "labels": {"batch": "dc"}}}),
            );
            assert_eq!(r.status, 201, "{}", r.text());
            r.json()
        })
        .collect();
    dependent_event(
        &s,
        "default",
        "dc-child",
        &[owner_ref("Namespace", &owners[0], false)],
    );
    let r = s.delete("/api/v1/namespaces?labelSelector=batch%3Ddc&propagationPolicy=Orphan");
    assert_eq!(r.status, 200, "{}", r.text());
    for item in r.json()["items"].as_array().expect("items") {
        assert_eq!(finalizers(item), json!(["orphan"]));
    }
    wait_until("the namespaces removed", || {
        gone(&s, "/api/v1/namespaces/dc-1") && gone(&s, "/api/v1/namespaces/dc-2")
    });
    assert_eq!(s.get(&format!("{EVENTS}/dc-child")).status, 200);
}

#[test]
fn dry_run_deletes_change_nothing() {
    let s = Server::start(&[]);
    let plain = s.post(EVENTS, &event("plain", "r")).json();
    let mut body = event("held", "r");
    body["metadata"]["finalizers"] = json!(["example.com/hold"]);
    let held = s.post(EVENTS, &body).json();
    let owner = namespace(&s, "dry-owner", &[]);
    dependent_event(
        &s,
        "default",
        "dry-child",
        &[owner_ref("Namespace", &owner, false)],
    );

    let r = s.delete(&format!("{EVENTS}/plain?dryRun=All"));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(s.get(&format!("{EVENTS}/plain")).json(), plain);

    let r = s.delete(&format!("{EVENTS}/held?dryRun=All"));
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.json()["metadata"]["deletionTimestamp"].is_string());
    assert_eq!(s.get(&format!("{EVENTS}/held")).json(), held);

    let r = s.delete("/api/v1/namespaces/dry-owner?dryRun=All&propagationPolicy=Foreground");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(finalizers(&r.json()), json!(["foregroundDeletion"]));
    assert_eq!(s.get("/api/v1/namespaces/dry-owner").json(), owner);

    let r = s.delete(&format!("{EVENTS}?dryRun=All"));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["items"].as_array().expect("items").len(), 3);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        s.get(EVENTS).json()["items"]
            .as_array()
            .expect("items")
            .len(),
        3
    );
    assert_eq!(s.get("/api/v1/namespaces/dry-owner").json(), owner);
}

const PODS: &str = "/api/v1/namespaces/default/pods";

/// A scheduled pod (unscheduled ones are deleted at once).
fn pod(s: &Server, name: &str, grace: i64, finalizers: &[&str]) -> Value {
    let body = json!({"metadata": {"name": name, "finalizers": finalizers},
        "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "busybox"}], "terminationGracePeriodSeconds": grace}});
    let r = s.post(PODS, &body);
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()
}

#[test]
fn pods_are_deleted_after_their_grace_period() {
    let s = Server::start(&[]);
    pod(&s, "graceful", 2, &[]);
    let r = s.delete(&format!("{PODS}/graceful"));
    assert_eq!(r.status, 200, "{}", r.text());
    let terminating = s.get(&format!("{PODS}/graceful")).json();
    assert_eq!(
        terminating["metadata"]["deletionGracePeriodSeconds"],
        json!(2),
        "{terminating}"
    );
    assert!(terminating["metadata"]["deletionTimestamp"].is_string());
    // An update during the grace period does not remove it.
    let r = s.patch(
        &format!("{PODS}/graceful"),
        "application/merge-patch+json",
        r#"{"metadata":{"labels":{"seen":"yes"}}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(s.get(&format!("{PODS}/graceful")).status, 200);
    // A second DELETE may shorten the grace period, not lengthen it.
    let r = s.delete(&format!("{PODS}/graceful?gracePeriodSeconds=60"));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        s.get(&format!("{PODS}/graceful")).json()["metadata"]["deletionGracePeriodSeconds"],
        json!(2)
    );
    wait_until("the pod to go after its grace period", || {
        gone(&s, &format!("{PODS}/graceful"))
    });

    // gracePeriodSeconds=0 removes at once.
    pod(&s, "now", 30, &[]);
    assert_eq!(
        s.delete(&format!("{PODS}/now?gracePeriodSeconds=0")).status,
        200
    );
    assert!(gone(&s, &format!("{PODS}/now")));

    // Finalizers outlast the grace period; removing them then removes the pod.
    pod(&s, "held", 1, &["example.com/hold"]);
    assert_eq!(s.delete(&format!("{PODS}/held")).status, 200);
    std::thread::sleep(Duration::from_millis(1500));
    let held = s.get(&format!("{PODS}/held"));
    assert_eq!(held.status, 200, "still held by its finalizer");
    let r = s.patch(
        &format!("{PODS}/held"),
        "application/merge-patch+json",
        r#"{"metadata":{"finalizers":null}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    wait_until("the held pod to go", || gone(&s, &format!("{PODS}/held")));

    // Kinds without graceful deletion ignore gracePeriodSeconds.
    assert_eq!(
        s.post(
            "/api/v1/namespaces/default/configmaps",
            &json!({"metadata": {"name": "cm"}})
        )
        .status,
        201
    );
    assert_eq!(
        s.delete("/api/v1/namespaces/default/configmaps/cm?gracePeriodSeconds=30")
            .status,
        200
    );
    assert!(gone(&s, "/api/v1/namespaces/default/configmaps/cm"));
}

#[test]
fn secrets_owned_by_a_configmap_are_collected_with_it() {
    let s = Server::start(&[]);
    let owner = s
        .post(
            "/api/v1/namespaces/default/configmaps",
            &json!({"metadata": {"name": "owner"}}),
        )
        .json();
    let reference = owner_ref("ConfigMap", &owner, false);
    for i in 0..3 {
        let r = s.post("/api/v1/namespaces/default/secrets", &json!({"metadata": {"name": format!("dep-{i}"), "ownerReferences": [reference.clone()]}}));
        assert_eq!(r.status, 201, "{}", r.text());
    }
    assert_eq!(
        s.delete("/api/v1/namespaces/default/configmaps/owner")
            .status,
        200
    );
    wait_until("dependent secrets to be collected", || {
        (0..3).all(|i| gone(&s, &format!("/api/v1/namespaces/default/secrets/dep-{i}")))
    });
}
