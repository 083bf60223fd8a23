//! The objects every bad request aims at: a ConfigMap, an Event, a Pod, and
//! a custom resource with `/status` and `/scale`, on one server.

use cairn_tests::{Server, wait_until};
use serde_json::{Value, json};

pub const NS: &str = "/api/v1/namespaces/default";
pub const CM: &str = "/api/v1/namespaces/default/configmaps/cm";
pub const CMS: &str = "/api/v1/namespaces/default/configmaps";
pub const EVENT: &str = "/api/v1/namespaces/default/events/ev";
pub const POD: &str = "/api/v1/namespaces/default/pods/p";
pub const WIDGETS: &str = "/apis/example.com/v1/namespaces/default/widgets";
pub const WIDGET: &str = "/apis/example.com/v1/namespaces/default/widgets/w1";
const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/// A server with every fixture created (CBOR on, so its bodies are read).
pub fn server() -> Server {
    let s = Server::start(&[
        "--api-domain",
        "k8s.io",
        "--feature-gates",
        "CBORServingAndStorage=true",
    ]);
    created(&s, CRDS, &widget_crd());
    wait_until("the widgets CRD to be served", || {
        s.get(WIDGETS).status == 200
    });
    // The group's APIService is registered and its status written by a
    // controller a moment later: wait for that too, or its writes land
    // while the corpus checks that nothing changes the store.
    wait_until("the widgets APIService to be available", || {
        let r = s.get("/apis/apiregistration.k8s.io/v1/apiservices/v1.example.com");
        r.status == 200
            && r.json()["status"]["conditions"]
                .as_array()
                .is_some_and(|c| {
                    c.iter()
                        .any(|c| c["type"] == "Available" && c["status"] == "True")
                })
    });
    created(&s, CMS, &config_map("cm"));
    created(&s, &format!("{NS}/events"), &event("ev"));
    created(
        &s,
        &format!("{NS}/pods"),
        &json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}),
    );
    created(&s, WIDGETS, &widget("w1"));
    s
}

fn created(s: &Server, path: &str, body: &Value) {
    let r = s.post(path, body);
    assert_eq!(r.status, 201, "create at {path}: {}", r.text());
}

pub fn config_map(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"a": "1"}})
}

pub fn event(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": name},
           "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
           "reason": "Started", "message": "m", "type": "Normal"})
}

pub fn widget(name: &str) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name},
           "spec": {"size": "small", "replicas": 2}, "status": {"replicas": 1}})
}

fn widget_crd() -> Value {
    let schema = json!({
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": {
                "size": {"type": "string"},
                "replicas": {"type": "integer"},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
            "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}}
        }
    });
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": schema},
                "subresources": {"status": {}, "scale": {
                    "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}}}]
        }
    })
}

/// The store's current revision, as a list reports it.
pub fn revision(s: &Server) -> String {
    let r = s.get(&format!("{CMS}?limit=1"));
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["metadata"]["resourceVersion"]
        .as_str()
        .expect("list resourceVersion")
        .to_string()
}
