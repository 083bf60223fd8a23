//! The access reviews through a whole in-process server: published as
//! create-only kinds (discovery, OpenAPI), answered with the chain the
//! server was given; every review's protobuf form round-trips (kubectl
//! sends its reviews in protobuf: see the black-box tests).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::api::protobuf;
use crate::http::test_server::{self, TestServer};
use crate::request::Pipeline;
use crate::request::authz::privileged::PrivilegedGroups;
use crate::request::authz::{Authorizers, reviews};

const GROUP: &str = "/apis/authorization.k8s.io/v1";

/// The insecure port's identity (system:masters) with the masters chain,
/// which the reviews answer with too.
async fn start() -> TestServer {
    test_server::start(&["--api-domain", "k8s.io"], |registry| {
        let authorizers = Arc::new(Authorizers::new(vec![
            Arc::new(PrivilegedGroups::masters()),
        ]));
        reviews::register(registry, "k8s.io", Arc::clone(&authorizers));
        Pipeline {
            authorizers,
            ..Pipeline::insecure_port()
        }
    })
    .await
}

async fn json_call(
    server: &TestServer,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> (u16, Value) {
    let payload = body.map_or_else(String::new, Value::to_string);
    let (code, text) = server
        .exchange(method, path, &["Content-Type: application/json"], &payload)
        .await;
    let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (code, value)
}

#[tokio::test]
async fn the_reviews_are_published_as_create_only_kinds() {
    let server = start().await;
    let (code, discovery) = json_call(&server, "GET", GROUP, None).await;
    assert_eq!(code, 200);
    let mut resources: Vec<(String, Value, Value)> = discovery["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap_or_default().to_string(),
                r["verbs"].clone(),
                r["namespaced"].clone(),
            )
        })
        .collect();
    resources.sort_by(|a, b| a.0.cmp(&b.0));
    let create = json!(["create"]);
    assert_eq!(
        resources,
        [
            (
                "localsubjectaccessreviews".into(),
                create.clone(),
                json!(true)
            ),
            (
                "selfsubjectaccessreviews".into(),
                create.clone(),
                json!(false)
            ),
            (
                "selfsubjectrulesreviews".into(),
                create.clone(),
                json!(false)
            ),
            ("subjectaccessreviews".into(), create, json!(false)),
        ]
    );
    let (_, swagger) = json_call(&server, "GET", "/openapi/v2", None).await;
    let local =
        &swagger["paths"][format!("{GROUP}/namespaces/{{namespace}}/localsubjectaccessreviews")];
    assert_eq!(
        local["post"]["operationId"],
        "createAuthorizationV1NamespacedLocalSubjectAccessReview"
    );
    let status = &swagger["definitions"]["io.k8s.api.authorization.v1.SubjectAccessReview"]["properties"]
        ["status"];
    assert!(status.is_object(), "{status}");
    let (code, _) = json_call(
        &server,
        "GET",
        &format!("{GROUP}/subjectaccessreviews"),
        None,
    )
    .await;
    assert_eq!(code, 405);
    let _ = server.stop.send(true);
}

#[tokio::test]
async fn reviews_are_answered_with_the_servers_chain() {
    let server = start().await;
    let review = json!({
        "apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {"verb": "delete", "resource": "nodes"}}
    });
    let (code, answer) = json_call(
        &server,
        "POST",
        &format!("{GROUP}/selfsubjectaccessreviews"),
        Some(&review),
    )
    .await;
    assert_eq!(code, 201, "{answer}");
    assert_eq!(
        answer["status"],
        json!({"allowed": true}),
        "the admin is in system:masters"
    );

    let subject = json!({
        "apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
        "spec": {"user": "jane", "groups": ["devs"], "nonResourceAttributes": {"path": "/healthz", "verb": "get"}}
    });
    let (code, answer) = json_call(
        &server,
        "POST",
        &format!("{GROUP}/subjectaccessreviews"),
        Some(&subject),
    )
    .await;
    assert_eq!(code, 201, "{answer}");
    assert_eq!(answer["spec"], subject["spec"]);
    assert_eq!(
        answer["status"],
        json!({"allowed": false}),
        "jane is nobody here"
    );
    let _ = server.stop.send(true);
}

#[test]
fn every_review_round_trips_through_protobuf() {
    use crate::api::kinds::authorization as kinds;
    let rules = json!({
        "spec": {"namespace": "dev"},
        "status": {
            "resourceRules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"]}],
            "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}],
            "incomplete": true, "evaluationError": "e"
        }
    });
    let access = json!({
        "metadata": {"namespace": "dev"},
        "spec": {"user": "u", "uid": "1", "groups": ["g"], "extra": {"k": ["v", "w"]},
            "resourceAttributes": {"namespace": "dev", "verb": "get", "group": "apps", "version": "v1",
                "resource": "deployments", "subresource": "scale", "name": "web",
                "fieldSelector": {"rawSelector": "a=b"},
                "labelSelector": {"requirements": [{"key": "k", "operator": "In", "values": ["x"]}]}}},
        "status": {"allowed": false, "denied": true, "reason": "r", "evaluationError": "e"}
    });
    for (schema, value) in [
        (kinds::self_subject_rules_review_schema(), &rules),
        (kinds::subject_access_review_schema(), &access),
        (kinds::local_subject_access_review_schema(), &access),
    ] {
        assert!(protobuf::offered(&schema));
        let bytes = protobuf::encode_message(&schema, value).expect("encodes");
        let back = protobuf::decode_message(&schema, &bytes).expect("decodes");
        assert_eq!(&Value::Object(back), value);
    }
}
