//! The `kubernetes` Service's Endpoints and EndpointSlice, kept as
//! kube-apiserver's endpoint reconciler keeps them: the advertised address
//! on the port the Service targets, named `https`; put back when edited,
//! recreated when deleted; readable with kubectl; and the proxy verb finds
//! the backend through them.

use cairn_tests::{Server, kubectl, kubectl_present, wait_until};
use serde_json::{Value, json};

const ENDPOINTS: &str = "/api/v1/namespaces/default/endpoints/kubernetes";
const SLICE: &str = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes";

fn start() -> Server {
    Server::start(&[
        "--api-domain",
        "k8s.io",
        "--advertise-address",
        "10.11.12.13",
    ])
}

fn target_port(s: &Server) -> Value {
    let svc = s
        .get("/api/v1/namespaces/default/services/kubernetes")
        .json();
    svc["spec"]["ports"][0]["targetPort"].clone()
}

fn wanted_subsets(port: &Value) -> Value {
    json!([{"addresses": [{"ip": "10.11.12.13"}],
            "ports": [{"name": "https", "port": port, "protocol": "TCP"}]}])
}

fn settled(s: &Server, path: &str, check: impl Fn(&Value) -> bool) -> Value {
    let mut last = Value::Null;
    wait_until(&format!("{path} as the reconciler keeps it"), || {
        let r = s.get(path);
        last = if r.status == 200 {
            r.json()
        } else {
            Value::Null
        };
        check(&last)
    });
    last
}

#[test]
fn the_kubernetes_endpoints_and_slice_are_kept() {
    let s = start();
    wait_until("the kubernetes service", || {
        s.get("/api/v1/namespaces/default/services/kubernetes")
            .status
            == 200
    });
    let port = target_port(&s);
    let subsets = wanted_subsets(&port);
    let eps = settled(&s, ENDPOINTS, |e| e["subsets"] == subsets);
    assert_eq!(
        eps["metadata"]["labels"]["endpointslice.kubernetes.io/skip-mirror"],
        "true"
    );
    let slice = settled(&s, SLICE, |sl| sl["addressType"] == "IPv4");
    assert_eq!(
        slice["metadata"]["labels"]["kubernetes.io/service-name"],
        "kubernetes"
    );
    assert_eq!(
        slice["endpoints"],
        json!([{"addresses": ["10.11.12.13"], "conditions": {"ready": true}}])
    );
    assert_eq!(
        slice["ports"],
        json!([{"name": "https", "port": port, "protocol": "TCP"}])
    );

    // Edited: put back.
    let r = s.patch(
        ENDPOINTS,
        "application/merge-patch+json",
        r#"{"subsets":[{"addresses":[{"ip":"10.9.9.9"}],"ports":[{"name":"https","port":1,"protocol":"TCP"}]}]}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    settled(&s, ENDPOINTS, |e| e["subsets"] == subsets);
    let r = s.patch(
        SLICE,
        "application/merge-patch+json",
        r#"{"endpoints":[{"addresses":["10.9.9.9"]}]}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    settled(&s, SLICE, |sl| {
        sl["endpoints"][0]["addresses"] == json!(["10.11.12.13"])
    });

    // Deleted: recreated.
    assert_eq!(s.delete(ENDPOINTS).status, 200);
    settled(&s, ENDPOINTS, |e| e["subsets"] == subsets);
    assert_eq!(s.delete(SLICE).status, 200);
    settled(&s, SLICE, |sl| sl["addressType"] == "IPv4");
}

#[test]
fn kubectl_gets_the_kubernetes_endpoints() {
    if !kubectl_present() {
        return;
    }
    let s = start();
    let port = target_port(&s);
    settled(&s, ENDPOINTS, |e| e["subsets"] == wanted_subsets(&port));
    let (ok, out) = kubectl(&s, &["get", "endpoints", "kubernetes"], None);
    assert!(ok, "{out}");
    assert!(out.contains(&format!("10.11.12.13:{port}")), "{out}");
    settled(&s, SLICE, |sl| sl["addressType"] == "IPv4");
    let (ok, out) = kubectl(
        &s,
        &[
            "get",
            "endpointslices",
            "-l",
            "kubernetes.io/service-name=kubernetes",
        ],
        None,
    );
    assert!(ok, "{out}");
    assert!(out.contains("kubernetes") && out.contains("IPv4"), "{out}");
}
