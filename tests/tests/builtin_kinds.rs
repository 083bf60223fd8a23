//! Built-in kinds' own rules over HTTP: subresources (`pods/status`,
//! `pods/eviction`, `namespaces/status`, `namespaces/finalize`), discovery of
//! them, Secrets' stringData, immutable ConfigMaps, pod defaults and spec
//! immutability, Service defaults, RBAC roleRef, Leases in their group.

use cairn_tests::{Server, wait_until};
use serde_json::{Value, json};

const PODS: &str = "/api/v1/namespaces/default/pods";

fn pod(name: &str) -> Value {
    json!({"metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}})
}

#[test]
fn discovery_lists_subresources() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let core = s.get("/api/v1").json();
    let names: Vec<&str> = core["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    for want in [
        "pods",
        "pods/status",
        "pods/eviction",
        "services/status",
        "nodes/status",
        "namespaces/status",
        "namespaces/finalize",
        "configmaps",
        "secrets",
        "serviceaccounts",
    ] {
        assert!(names.contains(&want), "{want} in {names:?}");
    }
    let eviction = core["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .find(|r| r["name"] == "pods/eviction")
        .expect("eviction");
    assert_eq!(
        (
            eviction["group"].as_str(),
            eviction["version"].as_str(),
            eviction["kind"].as_str()
        ),
        (Some("policy"), Some("v1"), Some("Eviction"))
    );
    for group in [
        "coordination.k8s.io",
        "rbac.authorization.k8s.io",
        "events.k8s.io",
        "apiextensions.k8s.io",
    ] {
        assert_eq!(s.get(&format!("/apis/{group}/v1")).status, 200, "{group}");
    }
}

#[test]
fn pod_status_is_written_only_through_its_subresource() {
    let s = Server::start(&[]);
    let created = s.post(PODS, &pod("p1"));
    assert_eq!(created.status, 201, "{}", created.text());
    let created = created.json();
    assert_eq!(created["status"]["phase"], "Pending");
    assert_eq!(created["status"]["qosClass"], "BestEffort");
    assert_eq!(created["spec"]["restartPolicy"], "Always");
    assert_eq!(created["spec"]["terminationGracePeriodSeconds"], json!(30));
    // The main resource ignores status.
    let mut upd = created.clone();
    upd["status"]["phase"] = json!("Running");
    upd["metadata"]["labels"] = json!({"a": "b"});
    let r = s.put(&format!("{PODS}/p1"), &upd).json();
    assert_eq!(
        (
            r["status"]["phase"].as_str(),
            r["metadata"]["labels"]["a"].as_str()
        ),
        (Some("Pending"), Some("b"))
    );
    // /status changes status only.
    let mut st = r.clone();
    st["status"]["phase"] = json!("Running");
    st["metadata"]["labels"] = json!({"a": "ignored"});
    let r = s.put(&format!("{PODS}/p1/status"), &st);
    assert_eq!(r.status, 200, "{}", r.text());
    let r = r.json();
    assert_eq!(
        (
            r["status"]["phase"].as_str(),
            r["metadata"]["labels"]["a"].as_str()
        ),
        (Some("Running"), Some("b"))
    );
    assert_eq!(
        s.get(&format!("{PODS}/p1/status")).json()["status"]["phase"],
        "Running"
    );
    let r = s.patch(
        &format!("{PODS}/p1/status"),
        "application/merge-patch+json",
        r#"{"status":{"podIP":"10.0.0.7"}}"#,
    );
    assert_eq!(r.json()["status"]["podIP"], "10.0.0.7");
    // Field selectors on pod fields.
    let listed = s
        .get(&format!("{PODS}?fieldSelector=status.podIP%3D10.0.0.7"))
        .json();
    assert_eq!(listed["items"].as_array().expect("items").len(), 1);
    // Spec is immutable except for the fields Kubernetes allows.
    let r = s.patch(
        &format!("{PODS}/p1"),
        "application/merge-patch+json",
        r#"{"spec":{"restartPolicy":"Never"}}"#,
    );
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(
        r.text()
            .contains("pod updates may not change fields other than"),
        "{}",
        r.text()
    );
    let r = s.patch(
        &format!("{PODS}/p1"),
        "application/json-patch+json",
        r#"[{"op":"replace","path":"/spec/containers/0/image","value":"nginx:1.28"}]"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // Status subresource verbs: no POST, no DELETE.
    assert_eq!(
        s.send_json("POST", &format!("{PODS}/p1/status"), &st)
            .status,
        405
    );
}

#[test]
fn eviction_deletes_a_pod() {
    let s = Server::start(&[]);
    assert_eq!(s.post(PODS, &pod("p1")).status, 201);
    assert_eq!(s.post(PODS, &pod("p2")).status, 201);
    let wrong =
        json!({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "other"}});
    assert_eq!(s.post(&format!("{PODS}/p1/eviction"), &wrong).status, 400);
    let dry = json!({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "p1"}, "deleteOptions": {"dryRun": ["All"]}});
    assert_eq!(s.post(&format!("{PODS}/p1/eviction"), &dry).status, 201);
    assert_eq!(
        s.get(&format!("{PODS}/p1")).status,
        200,
        "dry run keeps the pod"
    );
    let eviction = json!({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "p1"}, "deleteOptions": {"gracePeriodSeconds": 0}});
    let r = s.post(&format!("{PODS}/p1/eviction"), &eviction);
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["status"], "Success");
    wait_until("the evicted pod to go", || {
        s.get(&format!("{PODS}/p1")).status == 404
    });
    assert_eq!(
        s.post(
            &format!("{PODS}/missing/eviction"),
            &json!({"metadata": {"name": "missing"}})
        )
        .status,
        404
    );
    assert_eq!(s.get(&format!("{PODS}/p2/eviction")).status, 405);
    // Kinds without the subresource do not serve it.
    assert_eq!(
        s.post(
            "/api/v1/namespaces/default/configmaps/x/eviction",
            &eviction
        )
        .status,
        404
    );
}

#[test]
fn namespace_status_and_finalize_subresources() {
    let s = Server::start(&[]);
    assert_eq!(
        s.post("/api/v1/namespaces", &json!({"metadata": {"name": "ns1"}}))
            .status,
        201
    );
    let mut ns = s.get("/api/v1/namespaces/ns1").json();
    ns["status"]["conditions"] =
        json!([{"type": "NamespaceDeletionDiscoveryFailure", "status": "False"}]);
    let r = s.put("/api/v1/namespaces/ns1/status", &ns);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["status"]["conditions"][0]["status"], "False");
    // finalize writes spec.finalizers only; an empty list on a namespace
    // without finalizers leaves it Active.
    let mut ns = s.get("/api/v1/namespaces/ns1").json();
    ns["spec"]["finalizers"] = json!([]);
    ns["metadata"]["labels"] = json!({"ignored": "yes"});
    let r = s.put("/api/v1/namespaces/ns1/finalize", &ns);
    assert_eq!(r.status, 200, "{}", r.text());
    let r = r.json();
    assert_eq!(r["spec"]["finalizers"], json!([]));
    assert!(r["metadata"].get("labels").is_none(), "{r}");
    assert_eq!(s.get("/api/v1/namespaces/ns1/finalize").status, 405);
}

#[test]
fn secrets_configmaps_services_rbac_and_leases_follow_their_rules() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    // Secrets: stringData folds into data; type is immutable; bad base64 fails.
    let r = s.post("/api/v1/namespaces/default/secrets", &json!({"metadata": {"name": "s1"}, "stringData": {"user": "admin"}, "data": {"pw": "aHVudGVyMg=="}}));
    assert_eq!(r.status, 201, "{}", r.text());
    let secret = r.json();
    assert_eq!(secret["type"], "Opaque");
    assert_eq!(
        secret["data"],
        json!({"pw": "aHVudGVyMg==", "user": "YWRtaW4="})
    );
    assert!(secret.get("stringData").is_none());
    let r = s.patch(
        "/api/v1/namespaces/default/secrets/s1",
        "application/merge-patch+json",
        r#"{"type":"kubernetes.io/tls"}"#,
    );
    assert_eq!(r.status, 422, "{}", r.text());
    let r = s.post(
        "/api/v1/namespaces/default/secrets",
        &json!({"metadata": {"name": "s2"}, "data": {"k": "***"}}),
    );
    assert!(matches!(r.status, 400 | 422), "{}", r.text());
    // ConfigMaps: an immutable one refuses data changes; key syntax is checked.
    let r = s.post(
        "/api/v1/namespaces/default/configmaps",
        &json!({"metadata": {"name": "c1"}, "data": {"a": "1"}, "immutable": true}),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let r = s.patch(
        "/api/v1/namespaces/default/configmaps/c1",
        "application/merge-patch+json",
        r#"{"data":{"a":"2"}}"#,
    );
    assert_eq!(r.status, 422, "{}", r.text());
    let r = s.post(
        "/api/v1/namespaces/default/configmaps",
        &json!({"metadata": {"name": "c2"}, "data": {"bad key": "1"}}),
    );
    assert_eq!(r.status, 422, "{}", r.text());
    // Services: defaults.
    let r = s.post("/api/v1/namespaces/default/services", &json!({"metadata": {"name": "web"}, "spec": {"ports": [{"port": 80}], "selector": {"app": "web"}}}));
    assert_eq!(r.status, 201, "{}", r.text());
    let svc = r.json();
    assert_eq!(svc["spec"]["type"], "ClusterIP");
    assert_eq!(svc["spec"]["ports"][0]["protocol"], "TCP");
    assert_eq!(svc["spec"]["ports"][0]["targetPort"], json!(80));
    // RBAC: roleRef cannot change.
    let rb = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings";
    let r = s.post(rb, &json!({"metadata": {"name": "rb"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
        "subjects": [{"kind": "ServiceAccount", "name": "default", "namespace": "default"}]}));
    assert_eq!(r.status, 201, "{}", r.text());
    let r = s.patch(
        &format!("{rb}/rb"),
        "application/merge-patch+json",
        r#"{"roleRef":{"name":"writer"}}"#,
    );
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("cannot change roleRef"), "{}", r.text());
    let r = s.post("/apis/rbac.authorization.k8s.io/v1/clusterroles", &json!({"metadata": {"name": "cr"}, "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": []}]}));
    assert_eq!(r.status, 422, "{}", r.text());
    // Leases live in coordination.{domain}.
    let r = s.post("/apis/coordination.k8s.io/v1/namespaces/default/leases", &json!({"metadata": {"name": "l1"},
        "spec": {"holderIdentity": "a", "leaseDurationSeconds": 10, "renewTime": "2026-01-01T00:00:00.123456Z"}}));
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["apiVersion"], "coordination.k8s.io/v1");
    assert_eq!(r.json()["spec"]["renewTime"], "2026-01-01T00:00:00.123456Z");
}
