//! Every served kind through one function: create, get, list (with a label
//! selector), update conflict, update, merge patch, watch and delete — for
//! each resource that discovery lists, built-in or from a sample CRD. A kind
//! without a sample object here fails the suite, so new kinds cannot skip it.
//! Also: events.k8s.io/v1 and core/v1 Events are one stored object.

use cairn_tests::{Server, wait_until};
use serde_json::{Value, json};

/// A valid object of each served resource (`group/resource`, core group
/// without the slash), named `name`.
fn sample(gr: &str, name: &str) -> Option<Value> {
    let meta = json!({"name": name});
    Some(match gr {
        "namespaces" => json!({"metadata": meta}),
        "events" => {
            json!({"metadata": meta, "involvedObject": {"kind": "Pod", "name": "p", "namespace": "conf"}, "reason": "Started", "message": "m", "type": "Normal"})
        }
        "events.k8s.io/events" => {
            json!({"metadata": meta, "regarding": {"kind": "Pod", "name": "p"}, "reason": "Started", "note": "n", "type": "Normal",
            "action": "Start", "reportingController": "example.com/ctl", "reportingInstance": "ctl-1", "eventTime": "2026-01-01T00:00:00.000000Z"})
        }
        "configmaps" => json!({"metadata": meta, "data": {"a": "1"}}),
        "secrets" => json!({"metadata": meta, "stringData": {"a": "1"}}),
        "serviceaccounts" => json!({"metadata": meta}),
        "pods" => {
            json!({"metadata": meta, "spec": {"containers": [{"name": "c", "image": "busybox"}], "terminationGracePeriodSeconds": 0}})
        }
        "services" => {
            json!({"metadata": meta, "spec": {"ports": [{"port": 80}], "selector": {"app": "x"}}})
        }
        "nodes" => json!({"metadata": meta, "spec": {}}),
        "coordination.k8s.io/leases" => {
            json!({"metadata": meta, "spec": {"holderIdentity": "me", "leaseDurationSeconds": 15}})
        }
        "rbac.authorization.k8s.io/roles" => {
            json!({"metadata": meta, "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]})
        }
        "rbac.authorization.k8s.io/clusterroles" => {
            json!({"metadata": meta, "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]})
        }
        "rbac.authorization.k8s.io/rolebindings" => {
            json!({"metadata": meta, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
            "subjects": [{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}]})
        }
        "rbac.authorization.k8s.io/clusterrolebindings" => {
            json!({"metadata": meta, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "r"},
            "subjects": [{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}]})
        }
        "apiextensions.k8s.io/customresourcedefinitions" => {
            let plural = name.replace('.', "");
            json!({"metadata": {"name": format!("{plural}.conf.example.com")}, "spec": {"group": "conf.example.com", "scope": "Cluster",
                "names": {"plural": plural, "kind": "Thing"},
                "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object"}}}]}})
        }
        "flowcontrol.apiserver.k8s.io/flowschemas" => {
            json!({"metadata": meta, "spec": {"priorityLevelConfiguration": {"name": "global-default"},
                "rules": [{"subjects": [{"kind": "User", "user": {"name": "alice"}}],
                           "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/version"]}]}]}})
        }
        "flowcontrol.apiserver.k8s.io/prioritylevelconfigurations" => {
            json!({"metadata": meta, "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Reject"}}}})
        }
        "apps/deployments" | "apps/replicasets" | "apps/statefulsets" | "apps/daemonsets" => {
            json!({"metadata": meta, "spec": {"selector": {"matchLabels": {"app": "c"}},
                "template": {"metadata": {"labels": {"app": "c"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}})
        }
        "apps/controllerrevisions" => {
            json!({"metadata": meta, "revision": 1, "data": {"spec": {}}})
        }
        "batch/jobs" => {
            json!({"metadata": meta, "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}})
        }
        "batch/cronjobs" => {
            json!({"metadata": meta, "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template":
                {"spec": {"restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "busybox"}]}}}}}})
        }
        "networking.k8s.io/ingresses" => {
            json!({"metadata": meta, "spec": {"defaultBackend": {"service": {"name": "web", "port": {"number": 80}}}}})
        }
        "networking.k8s.io/ingressclasses" => {
            json!({"metadata": meta, "spec": {"controller": "example.com/ingress"}})
        }
        "networking.k8s.io/networkpolicies" => {
            json!({"metadata": meta, "spec": {"podSelector": {}}})
        }
        "policy/poddisruptionbudgets" => {
            json!({"metadata": meta, "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "c"}}}})
        }
        "autoscaling/horizontalpodautoscalers" => {
            json!({"metadata": meta, "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 3}})
        }
        "discovery.k8s.io/endpointslices" => {
            json!({"metadata": meta, "addressType": "IPv4", "endpoints": [{"addresses": ["10.0.0.1"]}], "ports": [{"port": 80}]})
        }
        "endpoints" => {
            json!({"metadata": meta, "subsets": [{"addresses": [{"ip": "10.0.0.1"}], "ports": [{"port": 80}]}]})
        }
        "persistentvolumes" => {
            json!({"metadata": meta, "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/data"}}})
        }
        "persistentvolumeclaims" => {
            json!({"metadata": meta, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}})
        }
        "replicationcontrollers" => {
            json!({"metadata": meta, "spec": {"selector": {"app": "c"},
                "template": {"metadata": {"labels": {"app": "c"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}})
        }
        "resourcequotas" => json!({"metadata": meta, "spec": {"hard": {"pods": "10"}}}),
        "limitranges" => {
            json!({"metadata": meta, "spec": {"limits": [{"type": "Container", "default": {"cpu": "500m"}}]}})
        }
        "podtemplates" => {
            json!({"metadata": meta, "template": {"metadata": {"labels": {"app": "c"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}})
        }
        "storage.k8s.io/storageclasses" => {
            json!({"metadata": meta, "provisioner": "example.com/disk"})
        }
        "storage.k8s.io/csidrivers" => json!({"metadata": meta, "spec": {}}),
        "storage.k8s.io/csinodes" => {
            json!({"metadata": meta, "spec": {"drivers": [{"name": "example.com/disk", "nodeID": "n1"}]}})
        }
        "storage.k8s.io/volumeattachments" => {
            json!({"metadata": meta, "spec": {"attacher": "example.com/disk", "nodeName": "n1", "source": {"persistentVolumeName": "pv1"}}})
        }
        "storage.k8s.io/csistoragecapacities" => {
            json!({"metadata": meta, "storageClassName": "fast", "capacity": "10Gi"})
        }
        "scheduling.k8s.io/priorityclasses" => json!({"metadata": meta, "value": 1000}),
        "node.k8s.io/runtimeclasses" => json!({"metadata": meta, "handler": "runc"}),
        // No webhooks: a configuration that calls nothing while the suite writes.
        "admissionregistration.k8s.io/mutatingwebhookconfigurations"
        | "admissionregistration.k8s.io/validatingwebhookconfigurations" => {
            json!({"metadata": meta, "webhooks": []})
        }
        "example.com/gadgets" => json!({"metadata": meta, "spec": {"color": "red"}}),
        // Local (no service): named `<version>.<group>`, the version being `name`.
        "apiregistration.k8s.io/apiservices" => json!({
            "metadata": {"name": format!("{name}.conf.example.io")},
            "spec": {"group": "conf.example.io", "version": name,
                "groupPriorityMinimum": 100, "versionPriority": 10}}),
        "certificates.k8s.io/certificatesigningrequests" => json!({"metadata": meta,
            "spec": {"request": signing_request(), "signerName": "example.com/conformance",
                "usages": ["client auth"]}}),
        _ => return None,
    })
}

/// A PEM certificate signing request, base64 as JSON carries bytes.
fn signing_request() -> String {
    use base64::Engine;
    let key = rcgen::KeyPair::generate().expect("key");
    let pem = rcgen::CertificateParams::default()
        .serialize_request(&key)
        .expect("request")
        .pem()
        .expect("pem");
    base64::engine::general_purpose::STANDARD.encode(pem)
}

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
        exercise(&s, &base, &api_version, kind, subresources, obj);
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
