//! Subresource bodies in protobuf, as client-go's typed clients send them
//! when asked to (controllers do): an `autoscaling/v1` Scale PUT to
//! `deployments/<name>/scale` and a `policy/v1` Eviction POSTed to
//! `pods/<name>/eviction`, decoded as their JSON would be.

use cairn_tests::Server;
use cairn_tests::k8s_proto::{self, DeleteOptions, ObjectMeta};
use prost::Message;
use serde_json::json;

const PB: &str = "application/vnd.kubernetes.protobuf";

#[derive(Clone, PartialEq, Message)]
struct ScaleSpec {
    #[prost(int32, optional, tag = "1")]
    replicas: Option<i32>,
}

#[derive(Clone, PartialEq, Message)]
struct ScaleStatus {
    #[prost(int32, optional, tag = "1")]
    replicas: Option<i32>,
    #[prost(string, optional, tag = "2")]
    selector: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct Scale {
    #[prost(message, optional, tag = "1")]
    metadata: Option<ObjectMeta>,
    #[prost(message, optional, tag = "2")]
    spec: Option<ScaleSpec>,
    #[prost(message, optional, tag = "3")]
    status: Option<ScaleStatus>,
}

#[derive(Clone, PartialEq, Message)]
struct Eviction {
    #[prost(message, optional, tag = "1")]
    metadata: Option<ObjectMeta>,
    #[prost(message, optional, tag = "2")]
    delete_options: Option<DeleteOptions>,
}

fn named(name: &str) -> Option<ObjectMeta> {
    Some(ObjectMeta {
        name: Some(name.into()),
        namespace: Some("default".into()),
        ..ObjectMeta::default()
    })
}

fn send(s: &Server, method: &str, path: &str, body: &[u8]) -> cairn_tests::Response {
    s.request(
        method,
        path,
        &[("Content-Type", PB), ("Accept", PB)],
        Some(body),
    )
}

#[test]
fn a_scale_put_in_protobuf_scales() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let deployments = "/apis/apps/v1/namespaces/default/deployments";
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    assert_eq!(s.post(deployments, &deployment).status, 201);
    let scale = Scale {
        metadata: named("web"),
        spec: Some(ScaleSpec { replicas: Some(4) }),
        status: None,
    };
    let body = k8s_proto::wrap("autoscaling/v1", "Scale", &scale);
    let r = send(&s, "PUT", &format!("{deployments}/web/scale"), &body);
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    // The answer is a protobuf Scale too.
    let (api_version, kind, raw) = k8s_proto::unwrap(&r.body);
    assert_eq!(
        (api_version.as_str(), kind.as_str()),
        ("autoscaling/v1", "Scale")
    );
    let answered = Scale::decode(raw.as_slice()).expect("a Scale");
    assert_eq!(answered.spec.and_then(|s| s.replicas), Some(4));
    let stored = s.get(&format!("{deployments}/web")).json();
    assert_eq!(stored["spec"]["replicas"], 4);
}

#[test]
fn an_eviction_in_protobuf_evicts() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let pods = "/api/v1/namespaces/default/pods";
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
    assert_eq!(s.post(pods, &pod).status, 201);
    let eviction = |dry_run: &[&str]| {
        let message = Eviction {
            metadata: named("p"),
            delete_options: Some(DeleteOptions {
                dry_run: dry_run.iter().map(|d| (*d).to_string()).collect(),
                ..DeleteOptions::default()
            }),
        };
        k8s_proto::wrap("policy/v1", "Eviction", &message)
    };
    // A dry run changes nothing; the options inside the Eviction count.
    let r = send(
        &s,
        "POST",
        &format!("{pods}/p/eviction"),
        &eviction(&["All"]),
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(s.get(&format!("{pods}/p")).status, 200);
    let r = send(&s, "POST", &format!("{pods}/p/eviction"), &eviction(&[]));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let after = s.get(&format!("{pods}/p"));
    assert!(
        after.status == 404 || after.json()["metadata"]["deletionTimestamp"].is_string(),
        "{}",
        after.text()
    );
}
