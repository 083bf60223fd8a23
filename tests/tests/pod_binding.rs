//! `pods/<name>/binding` and the legacy `bindings` collection, as a
//! scheduler uses them: the pod gets its node, the Binding's annotations and
//! a True PodScheduled condition; an assigned pod is a 409, a wrong name a
//! 400, a Binding without a node a 422, a missing pod a 404; watchers see
//! the assignment; RBAC asks for `create` on `pods/binding`; discovery and
//! OpenAPI list them; kubectl shows the node.

use std::time::Duration;

use cairn_tests::{Server, TlsClient, kubectl, kubectl_present};
use serde_json::{Value, json};

const PODS: &str = "/api/v1/namespaces/default/pods";

fn pod(name: &str) -> Value {
    json!({"metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}})
}

fn binding(name: &str, node: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Binding",
           "metadata": {"name": name, "annotations": {"scheduled-by": "test"}},
           "target": {"apiVersion": "v1", "kind": "Node", "name": node}})
}

#[test]
fn binding_assigns_a_pod_to_its_node_once() {
    let s = Server::start(&[]);
    assert_eq!(s.post(PODS, &pod("p1")).status, 201);
    let rv = s.get(&format!("{PODS}/p1")).json()["metadata"]["resourceVersion"]
        .as_str()
        .expect("rv")
        .to_string();
    let mut watch = s.watch(&format!("{PODS}?watch=true&resourceVersion={rv}"));
    watch.set_timeout(Duration::from_secs(10));

    let wrong = s.post(&format!("{PODS}/p1/binding"), &binding("p2", "n1"));
    assert_eq!(wrong.status, 400, "{}", wrong.text());
    assert_eq!(
        wrong.json()["message"],
        "name in URL does not match name in Binding object"
    );
    let mut nowhere = binding("p1", "");
    nowhere["target"]["name"] = json!("");
    let r = s.post(&format!("{PODS}/p1/binding"), &nowhere);
    assert_eq!(r.status, 422, "{}", r.text());
    assert_eq!(r.json()["details"]["causes"][0]["field"], "target.name");

    let r = s.post(&format!("{PODS}/p1/binding"), &binding("p1", "n1"));
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(
        (r.json()["kind"].as_str(), r.json()["status"].as_str()),
        (Some("Status"), Some("Success"))
    );
    let bound = s.get(&format!("{PODS}/p1")).json();
    assert_eq!(bound["spec"]["nodeName"], "n1");
    assert_eq!(bound["metadata"]["annotations"]["scheduled-by"], "test");
    let scheduled = bound["status"]["conditions"]
        .as_array()
        .expect("conditions")
        .iter()
        .find(|c| c["type"] == "PodScheduled")
        .expect("PodScheduled");
    assert_eq!(scheduled["status"], "True");
    let event = watch.next_event().expect("an event");
    assert_eq!(event["type"], "MODIFIED");
    assert_eq!(event["object"]["spec"]["nodeName"], "n1");
    // Field selectors on the node see the assignment.
    let on_n1 = s
        .get(&format!("{PODS}?fieldSelector=spec.nodeName%3Dn1"))
        .json();
    assert_eq!(on_n1["items"].as_array().map(Vec::len), Some(1));

    let again = s.post(&format!("{PODS}/p1/binding"), &binding("p1", "n2"));
    assert_eq!(again.status, 409, "{}", again.text());
    assert_eq!(
        again.json()["message"],
        "Operation cannot be fulfilled on pods \"p1\": pod p1 is already assigned to node \"n1\""
    );
    let missing = s.post(&format!("{PODS}/gone/binding"), &binding("gone", "n1"));
    assert_eq!(missing.status, 404, "{}", missing.text());
    assert_eq!(s.get(&format!("{PODS}/p1/binding")).status, 405);
    // Kinds without the subresource do not serve it.
    assert_eq!(
        s.post(
            "/api/v1/namespaces/default/configmaps/x/binding",
            &binding("x", "n1")
        )
        .status,
        404
    );
}

#[test]
fn the_bindings_collection_assigns_the_pod_it_names() {
    let s = Server::start(&[]);
    assert_eq!(s.post(PODS, &pod("p1")).status, 201);
    let r = s.post("/api/v1/namespaces/default/bindings", &binding("p1", "n3"));
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["status"], "Success");
    assert_eq!(
        s.get(&format!("{PODS}/p1")).json()["spec"]["nodeName"],
        "n3"
    );
    let r = s.post("/api/v1/namespaces/default/bindings", &binding("p1", "n4"));
    assert_eq!(r.status, 409, "{}", r.text());
    let r = s.post(
        "/api/v1/namespaces/default/bindings",
        &binding("nope", "n4"),
    );
    assert_eq!(r.status, 404, "{}", r.text());
    assert_eq!(s.get("/api/v1/namespaces/default/bindings").status, 405);
}

#[test]
fn discovery_and_openapi_list_bindings() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let core = s.get("/api/v1").json();
    let resources = core["resources"].as_array().expect("resources");
    let find = |name: &str| {
        resources
            .iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("{name} in discovery"))
            .clone()
    };
    let sub = find("pods/binding");
    assert_eq!(
        (sub["kind"].as_str(), sub["verbs"].clone(), sub.get("group")),
        (Some("Binding"), json!(["create"]), None)
    );
    let legacy = find("bindings");
    assert_eq!(
        (legacy["kind"].as_str(), legacy["verbs"].clone()),
        (Some("Binding"), json!(["create"]))
    );
    let doc = s.get("/openapi/v2").json();
    let op = &doc["paths"]["/api/v1/namespaces/{namespace}/pods/{name}/binding"]["post"];
    assert_eq!(op["operationId"], "createCoreV1NamespacedPodBinding");
    assert_eq!(
        op["responses"]["201"]["schema"]["$ref"],
        "#/definitions/io.k8s.api.core.v1.Binding"
    );
    assert!(doc["definitions"]["io.k8s.api.core.v1.Binding"]["properties"]["target"].is_object());
}

#[test]
fn binding_needs_create_on_pods_binding() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tokens = dir.path().join("tokens.csv");
    std::fs::write(&tokens, "sched-token,sched,1\nnobody-token,nobody,2\n").expect("tokens");
    let s = Server::start_secure(&["--token-auth-file", tokens.to_str().expect("utf-8")]);
    let admin = s.admin_client();
    let json_type = [("Content-Type", "application/json")];
    let send = |client: &TlsClient, token: Option<&str>, path: &str, body: &Value| {
        let auth = token.map(|t| format!("Bearer {t}"));
        let mut headers = json_type.to_vec();
        if let Some(a) = auth.as_deref() {
            headers.push(("Authorization", a));
        }
        let bytes = serde_json::to_vec(body).expect("json");
        s.https(client, "POST", path, &headers, Some(&bytes))
    };
    assert_eq!(send(&admin, None, PODS, &pod("p1")).status, 201);
    let role = json!({"metadata": {"name": "binder"},
                      "rules": [{"apiGroups": [""], "resources": ["pods/binding"], "verbs": ["create"]}]});
    let r = send(
        &admin,
        None,
        "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        &role,
    );
    assert_eq!(r.status, 201, "{}", r.text());
    s.grant(
        &json!({"kind": "User", "name": "sched"}),
        "binder",
        ("create", "pods/binding"),
    );
    let client = s.tls_client(None);
    let path = format!("{PODS}/p1/binding");
    let refused = send(&client, Some("nobody-token"), &path, &binding("p1", "n1"));
    assert_eq!(refused.status, 403, "{}", refused.text());
    assert!(
        refused
            .text()
            .contains("cannot create resource \\\"pods/binding\\\"")
            || refused
                .text()
                .contains("cannot create resource \"pods/binding\""),
        "{}",
        refused.text()
    );
    let r = send(&client, Some("sched-token"), &path, &binding("p1", "n1"));
    assert_eq!(r.status, 201, "{}", r.text());
}

#[test]
fn kubectl_shows_the_bound_node() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start(&[]);
    assert_eq!(s.post(PODS, &pod("p1")).status, 201);
    assert_eq!(
        s.post(&format!("{PODS}/p1/binding"), &binding("p1", "worker-7"))
            .status,
        201
    );
    let (ok, out) = kubectl(&s, &["get", "pods", "-o", "wide"], None);
    assert!(ok, "{out}");
    let line = out
        .lines()
        .find(|l| l.starts_with("p1 "))
        .expect("p1 listed");
    assert!(line.contains("worker-7"), "{out}");
}
