//! A Binding is admitted as Kubernetes admits it: a create of a Binding
//! (resource `pods`, subresource `binding`, or the `bindings` collection),
//! and the pod's assignment that follows is not admitted again as an
//! update of the pod.

use cairn_tests::Server;
use serde_json::{Value, json};

use super::hook::Hook;
use super::{VALIDATING, configuration, deny_all, install};

const PODS: &str = "/api/v1/namespaces/default/pods";

fn deny_the_forbidden_node(request: &Value) -> Value {
    if request["object"]["target"]["name"] == "forbidden" {
        json!({"allowed": false, "status": {"code": 403, "message": "nothing is scheduled there"}})
    } else {
        json!({"allowed": true})
    }
}

fn pod(s: &Server, name: &str) {
    let body = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
    let r = s.post(PODS, &body);
    assert_eq!(r.status, 201, "{}", r.text());
}

fn binding(pod: &str, node: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": pod},
        "target": {"apiVersion": "v1", "kind": "Node", "name": node}})
}

fn bind(s: &Server, pod: &str, node: &str) -> cairn_tests::Response {
    s.post(&format!("{PODS}/{pod}/binding"), &binding(pod, node))
}

fn review_of<'a>(reviews: &'a [Value], name: &str) -> Option<&'a Value> {
    reviews
        .iter()
        .map(|r| &r["request"])
        .find(|r| r["name"] == name)
}

#[test]
fn a_binding_is_admitted_as_the_create_of_a_binding() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let hook = Hook::start(deny_the_forbidden_node);
    let pod_updates = Hook::start(deny_all);
    let rules = |operation: &str, resources: Value| {
        json!([{"operations": [operation], "apiGroups": [""], "apiVersions": ["v1"],
            "resources": resources}])
    };
    let config = configuration(
        VALIDATING,
        "bindings",
        vec![
            hook.entry(
                "binding.example.com",
                rules("CREATE", json!(["pods/binding", "bindings"])),
                json!({}),
            ),
            pod_updates.entry(
                "pod-updates.example.com",
                rules("UPDATE", json!(["pods"])),
                json!({}),
            ),
        ],
    );
    install(&s, VALIDATING, &config, |s, probe| {
        let name = format!("probe-{probe}");
        pod(s, &name);
        bind(s, &name, "forbidden").status == 403
    });

    pod(&s, "p1");
    let r = bind(&s, "p1", "n1");
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(
        s.get(&format!("{PODS}/p1")).json()["spec"]["nodeName"],
        "n1"
    );
    let reviews = hook.reviews();
    let seen = review_of(&reviews, "p1").expect("the binding was reviewed");
    assert_eq!(seen["operation"], "CREATE");
    assert_eq!(
        seen["kind"],
        json!({"group": "", "version": "v1", "kind": "Binding"})
    );
    assert_eq!(
        seen["resource"],
        json!({"group": "", "version": "v1", "resource": "pods"})
    );
    assert_eq!(seen["subResource"], "binding");
    assert_eq!(seen["object"]["target"]["name"], "n1");
    assert!(seen["oldObject"].is_null(), "{seen}");
    // The pod's assignment is the binding's, not an update to admit.
    assert!(review_of(&pod_updates.reviews(), "p1").is_none());

    // The bindings collection: resource `bindings`, no subresource.
    pod(&s, "p2");
    let r = s.post("/api/v1/namespaces/default/bindings", &binding("p2", "n2"));
    assert_eq!(r.status, 201, "{}", r.text());
    let reviews = hook.reviews();
    let seen = review_of(&reviews, "p2").expect("the binding was reviewed");
    assert_eq!(seen["resource"]["resource"], "bindings");
    assert_eq!(seen["kind"]["kind"], "Binding");
    assert!(seen.get("subResource").is_none(), "{seen}");

    // A denial leaves the pod unassigned, with the webhook's message.
    pod(&s, "p3");
    let r = bind(&s, "p3", "forbidden");
    assert_eq!(r.status, 403);
    assert!(
        r.text().contains("nothing is scheduled there"),
        "{}",
        r.text()
    );
    assert!(s.get(&format!("{PODS}/p3")).json()["spec"]["nodeName"].is_null());
}
