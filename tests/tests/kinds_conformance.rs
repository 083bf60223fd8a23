//! Every served kind through one function: create, get, list (with a label
//! selector), update conflict, update, merge patch, watch and delete — for
//! each resource that discovery lists, built-in or from a sample CRD. A kind
//! without a sample object here fails the suite, so new kinds cannot skip it.
//! Also: events.k8s.io/v1 and core/v1 Events are one stored object.

#[path = "kinds_conformance/samples.rs"]
mod samples;

use cairn_tests::{Server, wait_until};
use samples::sample;
use serde_json::{Value, json};

/// A stored kind as discovery lists it.
#[derive(Debug)]
struct Discovered {
    group: String,
    version: String,
    resource: String,
    namespaced: bool,
    kind: String,
    /// Its subresources (`status`, `scale`, …).
    subresources: Vec<String>,
}

/// Every stored kind discovery lists.
fn discovered(s: &Server) -> Vec<Discovered> {
    let mut group_versions = vec![(String::new(), "v1".to_string())];
    for g in s.get("/apis").json()["groups"].as_array().expect("groups") {
        for v in g["versions"].as_array().expect("versions") {
            group_versions.push((
                g["name"].as_str().expect("name").to_string(),
                v["version"].as_str().expect("version").to_string(),
            ));
        }
    }
    let mut out = Vec::new();
    for (group, version) in group_versions {
        let path = if group.is_empty() {
            format!("/api/{version}")
        } else {
            format!("/apis/{group}/{version}")
        };
        let list = s.get(&path).json();
        let resources = list["resources"].as_array().expect("resources");
        for r in resources {
            let name = r["name"].as_str().expect("name");
            // Subresources, and kinds that are only asked (reviews: create
            // is their one verb), have no life to exercise.
            let stored = r["verbs"]
                .as_array()
                .is_some_and(|verbs| verbs.iter().any(|v| v == "list"));
            if name.contains('/') || !stored {
                continue;
            }
            let prefix = format!("{name}/");
            let subresources = resources
                .iter()
                .filter_map(|sub| sub["name"].as_str()?.strip_prefix(&prefix))
                .map(str::to_string)
                .collect();
            out.push(Discovered {
                group: group.clone(),
                version: version.clone(),
                resource: name.to_string(),
                namespaced: r["namespaced"].as_bool().expect("namespaced"),
                kind: r["kind"].as_str().expect("kind").to_string(),
                subresources,
            });
        }
    }
    out
}

/// The whole life of one object of one kind.
fn exercise(
    s: &Server,
    base: &str,
    api_version: &str,
    kind: &str,
    subresources: &[String],
    mut obj: Value,
) {
    let what = format!("{api_version} {kind}");
    obj["apiVersion"] = json!(api_version);
    obj["kind"] = json!(kind);
    obj["metadata"]["labels"] = json!({"conformance": "yes"});
    let name = obj["metadata"]["name"].as_str().expect("name").to_string();
    let at = format!("{base}/{name}");

    let created = s.post(base, &obj);
    assert_eq!(created.status, 201, "{what} create: {}", created.text());
    let created = created.json();
    assert_eq!(created["kind"], kind, "{what}");
    assert_eq!(created["apiVersion"], api_version, "{what}");
    assert!(created["metadata"]["uid"].is_string(), "{what}");
    let rv = created["metadata"]["resourceVersion"]
        .as_str()
        .expect("rv")
        .to_string();
    assert_eq!(s.post(base, &obj).status, 409, "{what} create twice");

    let got = s.get(&at);
    assert_eq!(got.status, 200, "{what} get");
    assert_eq!(
        got.json()["metadata"]["uid"],
        created["metadata"]["uid"],
        "{what}"
    );

    let list = s.get(&format!("{base}?labelSelector=conformance%3Dyes"));
    assert_eq!(list.status, 200, "{what} list");
    let list = list.json();
    assert_eq!(list["kind"], format!("{kind}List"), "{what}");
    assert!(
        list["items"]
            .as_array()
            .expect("items")
            .iter()
            .any(|i| i["metadata"]["name"] == name.as_str()),
        "{what} list: {list}"
    );
    let none = s
        .get(&format!("{base}?labelSelector=conformance%3Dno"))
        .json();
    assert!(
        !none["items"]
            .as_array()
            .expect("items")
            .iter()
            .any(|i| i["metadata"]["name"] == name.as_str()),
        "{what} selector"
    );

    let mut watch = s.watch(&format!(
        "{base}?watch=true&resourceVersion={rv}&fieldSelector=metadata.name%3D{name}"
    ));

    let mut stale = created.clone();
    stale["metadata"]["resourceVersion"] = json!("1");
    stale["metadata"]["annotations"] = json!({"a": "b"});
    assert_eq!(s.put(&at, &stale).status, 409, "{what} stale update");
    // Controllers may have written since (a CRD's status): update the latest.
    let mut current = s.get(&at).json();
    current["metadata"]["annotations"] = json!({"step": "update"});
    let updated = s.put(&at, &current);
    assert_eq!(updated.status, 200, "{what} update: {}", updated.text());
    assert_eq!(
        updated.json()["metadata"]["annotations"]["step"],
        "update",
        "{what}"
    );

    let patched = s.patch(
        &at,
        "application/merge-patch+json",
        r#"{"metadata":{"labels":{"patched":"true"}}}"#,
    );
    assert_eq!(patched.status, 200, "{what} patch: {}", patched.text());
    assert_eq!(
        patched.json()["metadata"]["labels"]["patched"],
        "true",
        "{what}"
    );

    for step in ["update", "patch"] {
        let ev = watch
            .next_event()
            .unwrap_or_else(|| panic!("{what}: watch event for {step}"));
        assert_eq!(ev["type"], "MODIFIED", "{what} {step}: {ev}");
        assert_eq!(ev["object"]["apiVersion"], api_version, "{what}");
    }

    if subresources.iter().any(|sub| sub == "status") {
        status_subresource(s, &at, &what);
    }
    if subresources.iter().any(|sub| sub == "scale") {
        scale_subresource(s, &at, &what);
    }

    let deleted = s.delete(&at);
    assert!(
        matches!(deleted.status, 200 | 202),
        "{what} delete: {}",
        deleted.text()
    );
    wait_until(&format!("{what} to be gone"), || s.get(&at).status == 404);
    loop {
        let ev = watch
            .next_event()
            .unwrap_or_else(|| panic!("{what}: DELETED event"));
        if ev["type"] == "DELETED" {
            break;
        }
        assert_eq!(ev["type"], "MODIFIED", "{what}: {ev}");
    }
}

/// `/status` reads as the object and takes it back.
fn status_subresource(s: &Server, at: &str, what: &str) {
    let status = s.get(&format!("{at}/status"));
    assert_eq!(status.status, 200, "{what} get status: {}", status.text());
    let current = s.get(at).json();
    assert_eq!(
        status.json()["metadata"]["resourceVersion"],
        current["metadata"]["resourceVersion"],
        "{what}"
    );
    let put = s.put(&format!("{at}/status"), &current);
    assert_eq!(put.status, 200, "{what} put status: {}", put.text());
}

/// `/scale` reads as an `autoscaling/v1` Scale and changes the replicas.
fn scale_subresource(s: &Server, at: &str, what: &str) {
    let mut scale = s.get(&format!("{at}/scale")).json();
    assert_eq!(scale["kind"], "Scale", "{what}: {scale}");
    let replicas = scale["spec"]["replicas"].as_i64().unwrap_or(0);
    scale["spec"]["replicas"] = json!(replicas + 2);
    let put = s.put(&format!("{at}/scale"), &scale);
    assert_eq!(put.status, 200, "{what} put scale: {}", put.text());
    let after = s.get(&format!("{at}/scale")).json();
    assert_eq!(after["spec"]["replicas"], replicas + 2, "{what}: {after}");
}

#[test]
fn every_served_kind_passes_the_same_life() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    assert_eq!(
        s.post("/api/v1/namespaces", &json!({"metadata": {"name": "conf"}}))
            .status,
        201
    );
    let crd = json!({"metadata": {"name": "gadgets.example.com"}, "spec": {"group": "example.com", "scope": "Namespaced",
        "names": {"plural": "gadgets", "kind": "Gadget"},
        "versions": [{"name": "v1", "served": true, "storage": true,
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {"color": {"type": "string"}}}}}}}]}});
    assert_eq!(
        s.post(
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            &crd
        )
        .status,
        201
    );
    wait_until("the sample CRD", || {
        s.get("/apis/example.com/v1/namespaces/conf/gadgets").status == 200
    });

    let kinds = discovered(&s);
    assert!(kinds.len() >= 4, "{kinds:?}");
    exercise_every(&s, &kinds);
}

/// Every alpha and beta version a Kubernetes 1.32 cluster has in these
/// groups, turned on, serves its kinds through the same life.
#[test]
fn every_alpha_and_beta_kind_passes_the_same_life() {
    let s = Server::start(&[
        "--api-domain",
        "k8s.io",
        "--runtime-config",
        "api/beta=true,api/alpha=true",
        "--feature-gates",
        "ClusterTrustBundle=true",
    ]);
    assert_eq!(
        s.post("/api/v1/namespaces", &json!({"metadata": {"name": "conf"}}))
            .status,
        201
    );
    let prerelease: Vec<Discovered> = discovered(&s)
        .into_iter()
        .filter(|k| k.version.contains("alpha") || k.version.contains("beta"))
        .collect();
    let mut served: Vec<String> = prerelease
        .iter()
        .map(|k| format!("{}/{}/{}", k.group, k.version, k.resource))
        .collect();
    served.sort();
    assert_eq!(
        served,
        [
            "certificates.k8s.io/v1alpha1/clustertrustbundles",
            "networking.k8s.io/v1beta1/ipaddresses",
            "networking.k8s.io/v1beta1/servicecidrs",
            "storage.k8s.io/v1alpha1/volumeattributesclasses",
            "storage.k8s.io/v1beta1/volumeattributesclasses",
        ]
    );
    exercise_every(&s, &prerelease);
}

/// Runs `exercise` on each kind; a kind without a sample fails the suite.
fn exercise_every(s: &Server, kinds: &[Discovered]) {
    let mut missing = Vec::new();
    for (i, found) in kinds.iter().enumerate() {
        let Discovered {
            group,
            version,
            resource,
            namespaced,
            kind,
            subresources,
        } = found;
        let gr = if group.is_empty() {
            resource.clone()
        } else {
            format!("{group}/{resource}")
        };
        let Some(obj) = sample(&gr, &format!("conf-{i}")) else {
            missing.push(gr);
            continue;
        };
        let prefix = if group.is_empty() {
            format!("/api/{version}")
        } else {
            format!("/apis/{group}/{version}")
        };
        let base = if *namespaced {
            format!("{prefix}/namespaces/conf/{resource}")
        } else {
            format!("{prefix}/{resource}")
        };
        let api_version = if group.is_empty() {
            version.clone()
        } else {
            format!("{group}/{version}")
        };
        exercise(s, &base, &api_version, kind, subresources, obj);
    }
    assert!(
        missing.is_empty(),
        "served kinds without a conformance sample: {missing:?}"
    );
}

#[test]
fn events_v1_and_core_events_are_one_object() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let v1 = "/apis/events.k8s.io/v1/namespaces/default/events";
    let core = "/api/v1/namespaces/default/events";
    let mut core_watch = s.watch(&format!("{core}?watch=true"));
    let mut v1_watch = s.watch(&format!("{v1}?watch=true"));
    let event = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e1"},
        "regarding": {"kind": "Pod", "name": "p1", "namespace": "default"}, "note": "pulled", "reason": "Pulled",
        "type": "Normal", "action": "Pull", "reportingController": "example.com/kubelet", "reportingInstance": "node-1",
        "eventTime": "2026-01-01T00:00:00.000000Z", "series": {"count": 2, "lastObservedTime": "2026-01-01T00:00:01.000000Z"}});
    let r = s.post(v1, &event);
    assert_eq!(r.status, 201, "{}", r.text());
    let as_core = s.get(&format!("{core}/e1")).json();
    assert_eq!(as_core["apiVersion"], "v1");
    assert_eq!(as_core["involvedObject"]["name"], "p1");
    assert_eq!(as_core["message"], "pulled");
    assert_eq!(as_core["reportingComponent"], "example.com/kubelet");
    assert_eq!(as_core["reportingInstance"], "node-1");
    assert_eq!(as_core["series"]["count"], json!(2));
    assert!(
        as_core.get("regarding").is_none() && as_core.get("note").is_none(),
        "{as_core}"
    );
    // Both watches see it, each in its own version.
    let ev = core_watch.next_event().expect("core watch");
    assert_eq!(
        (ev["type"].as_str(), ev["object"]["message"].as_str()),
        (Some("ADDED"), Some("pulled"))
    );
    let ev = v1_watch.next_event().expect("events/v1 watch");
    assert_eq!(
        (ev["type"].as_str(), ev["object"]["note"].as_str()),
        (Some("ADDED"), Some("pulled"))
    );
    assert_eq!(ev["object"]["apiVersion"], "events.k8s.io/v1");

    // Written through core/v1 with deprecated fields, read through events/v1.
    let legacy = json!({"metadata": {"name": "e2"}, "involvedObject": {"kind": "Node", "name": "n1"}, "message": "old",
        "reason": "Boot", "source": {"component": "kubelet", "host": "n1"}, "count": 4,
        "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:01:00Z", "type": "Normal"});
    assert_eq!(s.post(core, &legacy).status, 201);
    let as_v1 = s.get(&format!("{v1}/e2")).json();
    assert_eq!(as_v1["regarding"]["name"], "n1");
    assert_eq!(as_v1["note"], "old");
    assert_eq!(
        as_v1["deprecatedSource"],
        json!({"component": "kubelet", "host": "n1"})
    );
    assert_eq!(as_v1["deprecatedCount"], json!(4));
    assert_eq!(as_v1["deprecatedFirstTimestamp"], "2026-01-01T00:00:00Z");
    assert_eq!(as_v1["deprecatedLastTimestamp"], "2026-01-01T00:01:00Z");
    let listed = s.get(v1).json();
    assert_eq!(listed["items"].as_array().expect("items").len(), 2);
    // An update through events/v1 is seen by core readers.
    let mut upd = as_v1.clone();
    upd["note"] = json!("updated");
    let r = s.put(&format!("{v1}/e2"), &upd);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(s.get(&format!("{core}/e2")).json()["message"], "updated");

    // The v1 create rules (spec 9.3).
    let bad = json!({"metadata": {"name": "e3"}, "regarding": {"kind": "Pod", "name": "p"}, "type": "Odd", "deprecatedCount": 3});
    let r = s.post(v1, &bad);
    assert_eq!(r.status, 422, "{}", r.text());
    let causes: Vec<String> = r.json()["details"]["causes"]
        .as_array()
        .expect("causes")
        .iter()
        .filter_map(|c| c["field"].as_str().map(str::to_string))
        .collect();
    for f in [
        "eventTime",
        "type",
        "action",
        "reason",
        "reportingController",
        "reportingInstance",
        "deprecatedCount",
    ] {
        assert!(causes.iter().any(|c| c == f), "{f} in {causes:?}");
    }
}
