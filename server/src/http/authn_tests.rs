//! Static tokens, anonymous requests and the authentication reviews through
//! a whole in-process server: token-file users with their groups, unknown
//! tokens refused (and nothing written), anonymous on, off and per path,
//! TokenReview and SelfSubjectReview as kube-apiserver answers them.

use std::sync::Arc;

use serde_json::{Value, json};

use super::*;
use crate::http::test_server::{self, TestServer};
use crate::request::Pipeline;
use crate::request::authn::anonymous::Anonymous;
use crate::request::authn::token::Bearer;
use crate::request::authn::token_file::TokenFile;
use crate::request::authn::{Authenticator, Authenticators, setup};
use crate::request::authz::{self, Authorizer, Authorizers, Decision};
use crate::util::maybe_async::MaybeAsync;

const TOKENS: &str = "alice-token,alice,1001,\"devs,ops\"\nbob-token,bob,1002\n";

/// Everyone may do everything: these tests are about who, not what.
struct AllowAll;

impl Authorizer for AllowAll {
    fn authorize<'a>(
        &'a self,
        _attrs: &'a authz::Attributes<'a>,
    ) -> MaybeAsync<'a, Result<Decision, ApiError>> {
        MaybeAsync::Ready(Ok(Decision::Allow))
    }
}

type Server = TestServer;

/// A server whose bearer tokens are `TOKENS` and whose fallback is `anonymous`.
async fn start(anonymous: Option<Anonymous>) -> Server {
    test_server::start(&["--api-domain", "k8s.io"], |registry| {
        let file = TokenFile::parse(TOKENS, "tokens.csv").expect("valid token file");
        let tokens = setup::cached_tokens(Some(Arc::new(file)), Vec::new());
        setup::register_reviews(registry, "k8s.io", Arc::clone(&tokens), Vec::new());
        let fallback = anonymous.map(|a| Arc::new(a) as Arc<dyn Authenticator>);
        Pipeline {
            authenticators: Authenticators::new(
                vec![Arc::new(Bearer::new(tokens, Vec::new()))],
                fallback,
            ),
            authorizers: Arc::new(Authorizers::new(vec![Arc::new(AllowAll)])),
        }
    })
    .await
}

/// Status code and body (JSON when it is JSON) of one HTTP/1.1 request.
async fn call(
    server: &Server,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&Value>,
) -> (u16, Value) {
    let auth = token.map(|t| format!("Authorization: Bearer {t}"));
    let mut headers = vec!["Content-Type: application/json"];
    headers.extend(auth.as_deref());
    let payload = body.map_or_else(String::new, Value::to_string);
    let (code, body) = server.exchange(method, path, &headers, &payload).await;
    let body = body.as_str();
    let value = serde_json::from_str(body).unwrap_or_else(|_| Value::String(body.to_string()));
    (code, value)
}

const SELF_REVIEWS: &str = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
const TOKEN_REVIEWS: &str = "/apis/authentication.k8s.io/v1/tokenreviews";

async fn whoami(server: &Server, token: Option<&str>) -> Result<Value, u16> {
    let review = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"});
    match call(server, "POST", SELF_REVIEWS, token, Some(&review)).await {
        (201, answer) => {
            assert_eq!(
                (&answer["kind"], &answer["apiVersion"]),
                (
                    &json!("SelfSubjectReview"),
                    &json!("authentication.k8s.io/v1")
                )
            );
            Ok(answer["status"]["userInfo"].clone())
        }
        (code, _) => Err(code),
    }
}

#[tokio::test]
async fn token_file_users_and_refused_tokens() {
    let server = start(Some(Anonymous::everywhere())).await;
    assert_eq!(
        whoami(&server, Some("alice-token")).await,
        Ok(
            json!({"username": "alice", "uid": "1001", "groups": ["devs", "ops", "system:authenticated"]})
        )
    );
    assert_eq!(
        whoami(&server, Some("bob-token")).await,
        Ok(json!({"username": "bob", "uid": "1002", "groups": ["system:authenticated"]}))
    );
    // A token nobody knows is refused, not taken for anonymous, and
    // the answer says nothing about why.
    let configmaps = "/api/v1/namespaces/default/configmaps";
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}});
    let (code, status) = call(&server, "POST", configmaps, Some("forged"), Some(&cm)).await;
    assert_eq!(
        (code, &status["reason"], &status["message"]),
        (401, &json!("Unauthorized"), &json!("Unauthorized"))
    );
    let (code, _) = call(
        &server,
        "GET",
        &format!("{configmaps}/x"),
        Some("alice-token"),
        None,
    )
    .await;
    assert_eq!(code, 404, "nothing was written");
    let (code, _) = call(&server, "POST", configmaps, Some("alice-token"), Some(&cm)).await;
    assert_eq!(code, 201);
    let _ = server.stop.send(true);
}

#[tokio::test]
async fn anonymous_on_off_and_per_path() {
    let on = start(Some(Anonymous::everywhere())).await;
    assert_eq!(
        whoami(&on, None).await,
        Ok(json!({"username": "system:anonymous", "groups": ["system:unauthenticated"]}))
    );
    assert_eq!(call(&on, "GET", "/healthz", None, None).await.0, 200);
    let _ = on.stop.send(true);

    let off = start(None).await;
    assert_eq!(whoami(&off, None).await, Err(401));
    assert_eq!(call(&off, "GET", "/healthz", None, None).await.0, 401);
    assert!(whoami(&off, Some("bob-token")).await.is_ok());
    let _ = off.stop.send(true);

    let some = start(Some(Anonymous::new(vec!["/healthz".into()]))).await;
    assert_eq!(call(&some, "GET", "/healthz", None, None).await.0, 200);
    assert_eq!(call(&some, "GET", "/livez", None, None).await.0, 401);
    assert_eq!(call(&some, "GET", "/api", None, None).await.0, 401);
    assert_eq!(whoami(&some, None).await, Err(401));
    let _ = some.stop.send(true);
}

#[tokio::test]
async fn token_reviews_of_good_bad_and_empty_tokens() {
    let server = start(None).await;
    let review = |token: &str| json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": token}});
    let (code, good) = call(
        &server,
        "POST",
        TOKEN_REVIEWS,
        Some("bob-token"),
        Some(&review("alice-token")),
    )
    .await;
    assert_eq!(code, 201);
    assert_eq!(
        good,
        json!({
            "kind": "TokenReview", "apiVersion": "authentication.k8s.io/v1",
            "metadata": {"creationTimestamp": null},
            "spec": {"token": "alice-token"},
            "status": {"authenticated": true, "user": {"username": "alice", "uid": "1001", "groups": ["devs", "ops", "system:authenticated"]}}
        })
    );
    let (code, bad) = call(
        &server,
        "POST",
        TOKEN_REVIEWS,
        Some("bob-token"),
        Some(&review("forged")),
    )
    .await;
    assert_eq!(
        (code, &bad["status"]),
        (201, &json!({"user": {}, "error": "invalid bearer token"}))
    );
    let (code, empty) = call(
        &server,
        "POST",
        TOKEN_REVIEWS,
        Some("bob-token"),
        Some(&review("")),
    )
    .await;
    assert_eq!(
        (code, &empty["reason"], &empty["message"]),
        (
            400,
            &json!("BadRequest"),
            &json!("token is required for TokenReview in authentication")
        )
    );
    let wrong_kind = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview", "spec": {"token": "x"}});
    let (code, status) = call(
        &server,
        "POST",
        TOKEN_REVIEWS,
        Some("bob-token"),
        Some(&wrong_kind),
    )
    .await;
    assert_eq!(
        (code, &status["message"]),
        (
            400,
            &json!(
                "the kind in the data (SelfSubjectReview) does not match the expected kind (TokenReview)"
            )
        )
    );
    let wrong_version = json!({"apiVersion": "authentication.k8s.io/v1beta1", "kind": "TokenReview", "spec": {"token": "x"}});
    assert_eq!(
        call(
            &server,
            "POST",
            TOKEN_REVIEWS,
            Some("bob-token"),
            Some(&wrong_version)
        )
        .await
        .0,
        400
    );
    let _ = server.stop.send(true);
}

#[tokio::test]
async fn reviews_are_create_only_and_published_so() {
    let server = start(None).await;
    let bob = Some("bob-token");
    for path in [TOKEN_REVIEWS, SELF_REVIEWS] {
        for method in ["GET", "DELETE", "PUT", "PATCH"] {
            let (code, status) = call(&server, method, path, bob, None).await;
            assert_eq!(
                (code, &status["reason"], &status["message"]),
                (
                    405,
                    &json!("MethodNotAllowed"),
                    &json!("the server does not allow this method on the requested resource")
                ),
                "{method} {path}"
            );
        }
        assert_eq!(
            call(&server, "GET", &format!("{path}/x"), bob, None)
                .await
                .0,
            404
        );
        assert_eq!(
            call(&server, "POST", &format!("{path}/x"), bob, Some(&json!({})))
                .await
                .0,
            404
        );
    }
    let namespaced = "/apis/authentication.k8s.io/v1/namespaces/default/tokenreviews";
    assert_eq!(
        call(&server, "POST", namespaced, bob, Some(&json!({})))
            .await
            .0,
        404
    );
    assert_eq!(
        call(
            &server,
            "GET",
            "/apis/authentication.k8s.io/v1/watch/tokenreviews",
            bob,
            None
        )
        .await
        .0,
        404
    );

    let (code, discovery) = call(&server, "GET", "/apis/authentication.k8s.io/v1", bob, None).await;
    assert_eq!(code, 200);
    let resources: Vec<(String, Value, Value)> = discovery["resources"]
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
    assert_eq!(
        resources,
        [
            ("tokenreviews".to_string(), json!(["create"]), json!(false)),
            (
                "selfsubjectreviews".to_string(),
                json!(["create"]),
                json!(false)
            ),
        ]
    );
    let (_, swagger) = call(&server, "GET", "/openapi/v2", bob, None).await;
    let item = &swagger["paths"][TOKEN_REVIEWS];
    let methods: Vec<&String> = item
        .as_object()
        .expect("the path")
        .keys()
        .filter(|k| *k != "parameters")
        .collect();
    assert_eq!(methods, ["post"]);
    assert_eq!(
        item["post"]["operationId"],
        "createAuthenticationV1TokenReview"
    );
    assert!(swagger["definitions"]["io.k8s.api.authentication.v1.TokenReview"].is_object());
    assert!(
        swagger["definitions"]
            .get("io.k8s.api.authentication.v1.TokenReviewList")
            .is_none()
    );
    assert!(
        swagger["paths"]
            .get(format!("{TOKEN_REVIEWS}/{{name}}"))
            .is_none()
    );
    let _ = server.stop.send(true);
}
