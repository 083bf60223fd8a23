//! DefaultTolerationSeconds on the real binary: every pod created without
//! them gets kube's NoExecute tolerations of `not-ready` and `unreachable`
//! nodes (300 s, or what the flags say); a pod's own are kept; the plugin
//! can be disabled as kube-apiserver's can.

use cairn_tests::Server;
use serde_json::{Value, json};

const PODS: &str = "/api/v1/namespaces/default/pods";

fn created(s: &Server, name: &str, tolerations: Value) -> Value {
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "nginx"}], "tolerations": tolerations}});
    let r = s.post(PODS, &pod);
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()["spec"]["tolerations"].clone()
}

fn toleration(key: &str, seconds: i64) -> Value {
    json!({"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": seconds})
}

#[test]
fn pods_get_kubes_default_tolerations() {
    let s = Server::start(&[]);
    assert_eq!(
        created(&s, "plain", json!([])),
        json!([
            toleration("node.kubernetes.io/not-ready", 300),
            toleration("node.kubernetes.io/unreachable", 300)
        ])
    );
    // Stored, not only answered.
    let stored = s.get(&format!("{PODS}/plain")).json();
    assert_eq!(
        stored["spec"]["tolerations"].as_array().map(Vec::len),
        Some(2)
    );
    let own = toleration("node.kubernetes.io/unreachable", 7);
    assert_eq!(
        created(&s, "own", json!([own])),
        json!([own, toleration("node.kubernetes.io/not-ready", 300)])
    );
}

#[test]
fn the_flags_set_the_seconds_and_the_plugin_can_be_disabled() {
    let s = Server::start(&[
        "--default-not-ready-toleration-seconds",
        "60",
        "--default-unreachable-toleration-seconds",
        "90",
    ]);
    assert_eq!(
        created(&s, "p", json!([])),
        json!([
            toleration("node.kubernetes.io/not-ready", 60),
            toleration("node.kubernetes.io/unreachable", 90)
        ])
    );
    let s = Server::start(&["--disable-admission-plugins", "DefaultTolerationSeconds"]);
    let tolerations = created(&s, "p", json!([]));
    assert!(
        tolerations.as_array().is_none_or(Vec::is_empty),
        "{tolerations}"
    );
}
