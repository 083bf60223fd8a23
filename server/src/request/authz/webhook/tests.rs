//! The webhook authorizer against a webhook served by the test over a real
//! socket: the reviews it sends (v1 and v1beta1), the answers it reads,
//! both caches, the failure policy and match conditions.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use http::Method;
use serde_json::json;

use super::Webhook;
use super::test_hook::{Behaviour, TOKEN, TestHook};
use crate::api::cel::Expression;
use crate::api::error::ApiError;
use crate::config::authz::{Connection, FailurePolicy, ReviewVersion, WebhookConfig};
use crate::request::authz::{Attributes, Authorizer, Decision};
use crate::request::info::RequestInfo;
use crate::request::user::UserInfo;

fn settings(kubeconfig: PathBuf) -> WebhookConfig {
    WebhookConfig {
        name: "hook".into(),
        timeout: Duration::from_secs(2),
        authorized_ttl: Some(Duration::from_secs(300)),
        unauthorized_ttl: Some(Duration::from_secs(30)),
        review_version: ReviewVersion::V1,
        failure_policy: FailurePolicy::NoOpinion,
        connection: Connection::KubeConfigFile(kubeconfig),
        match_conditions: Vec::new(),
    }
}

fn webhook(config: WebhookConfig) -> Webhook {
    Webhook::new(Arc::new(config), "k8s.io").expect("webhook")
}

fn jane() -> UserInfo {
    let mut user = UserInfo::new("jane", &["dev", "system:authenticated"]);
    user.uid = "u-1".into();
    user.extra
        .insert("example.com/scopes".into(), vec!["a".into()]);
    user
}

async fn ask(hook: &Webhook, method: Method, path: &str) -> Result<Decision, ApiError> {
    let user = jane();
    let info = RequestInfo::new(&method, path.to_owned(), None, None);
    let attrs = Attributes {
        user: &user,
        info: &info,
    };
    hook.authorize(&attrs).resolve().await
}

async fn get_pod(hook: &Webhook, name: &str) -> Result<Decision, ApiError> {
    ask(
        hook,
        Method::GET,
        &format!("/api/v1/namespaces/ns/pods/{name}"),
    )
    .await
}

fn allowed() -> Behaviour {
    Behaviour::Status(json!({"allowed": true}))
}

fn denied(reason: &str) -> Behaviour {
    Behaviour::Status(json!({"allowed": false, "denied": true, "reason": reason}))
}

#[tokio::test]
async fn a_v1_review_over_http_and_its_answer() {
    let server = TestHook::http(allowed()).await;
    let hook = webhook(settings(server.kubeconfig()));
    assert_eq!(get_pod(&hook, "p").await.expect("answer"), Decision::Allow);
    let review = &server.reviews()[0];
    assert_eq!(review["apiVersion"], "authorization.k8s.io/v1");
    assert_eq!(review["kind"], "SubjectAccessReview");
    assert_eq!(
        review["spec"],
        json!({
            "resourceAttributes": {"namespace": "ns", "verb": "get", "version": "v1", "resource": "pods", "name": "p"},
            "user": "jane",
            "groups": ["dev", "system:authenticated"],
            "extra": {"example.com/scopes": ["a"]},
            "uid": "u-1"
        })
    );
    assert_eq!(server.authorization_headers(), [format!("Bearer {TOKEN}")]);
}

#[tokio::test]
async fn a_v1beta1_review_over_https_spells_group() {
    let server = TestHook::https(allowed()).await;
    let hook = webhook(WebhookConfig {
        review_version: ReviewVersion::V1beta1,
        ..settings(server.kubeconfig())
    });
    assert_eq!(
        ask(&hook, Method::GET, "/healthz").await.expect("answer"),
        Decision::Allow
    );
    let review = &server.reviews()[0];
    assert_eq!(review["apiVersion"], "authorization.k8s.io/v1beta1");
    assert_eq!(
        review["spec"]["nonResourceAttributes"],
        json!({"path": "/healthz", "verb": "get"})
    );
    assert_eq!(
        review["spec"]["group"],
        json!(["dev", "system:authenticated"])
    );
    assert!(review["spec"].get("groups").is_none());
}

#[tokio::test]
async fn denied_and_undecided_answers_keep_their_reasons() {
    let server = TestHook::http(denied("not on weekends")).await;
    let hook = webhook(settings(server.kubeconfig()));
    assert_eq!(
        get_pod(&hook, "a").await.expect("answer"),
        Decision::Deny("not on weekends".into())
    );
    server.set(Behaviour::Status(
        json!({"allowed": false, "reason": "ask someone else"}),
    ));
    assert_eq!(
        get_pod(&hook, "b").await.expect("answer"),
        Decision::NoOpinion("ask someone else".into())
    );
    server.set(Behaviour::Status(json!({"allowed": true, "denied": true})));
    assert_eq!(
        get_pod(&hook, "c").await.expect("answer"),
        Decision::Deny(String::new())
    );
}

#[tokio::test]
async fn allowed_answers_are_cached_for_the_authorized_ttl() {
    let server = TestHook::http(allowed()).await;
    let hook = webhook(WebhookConfig {
        authorized_ttl: Some(Duration::from_millis(300)),
        ..settings(server.kubeconfig())
    });
    for _ in 0..3 {
        assert_eq!(get_pod(&hook, "p").await.expect("answer"), Decision::Allow);
    }
    assert_eq!(server.calls(), 1);
    get_pod(&hook, "other").await.expect("answer");
    assert_eq!(server.calls(), 2, "another request is another key");
    tokio::time::sleep(Duration::from_millis(400)).await;
    get_pod(&hook, "p").await.expect("answer");
    assert_eq!(server.calls(), 3, "asked again once the TTL passed");
}

#[tokio::test]
async fn refused_answers_are_cached_for_the_unauthorized_ttl() {
    let server = TestHook::http(denied("no")).await;
    let hook = webhook(WebhookConfig {
        unauthorized_ttl: Some(Duration::from_millis(300)),
        ..settings(server.kubeconfig())
    });
    get_pod(&hook, "p").await.expect("answer");
    get_pod(&hook, "p").await.expect("answer");
    assert_eq!(server.calls(), 1);
    tokio::time::sleep(Duration::from_millis(400)).await;
    get_pod(&hook, "p").await.expect("answer");
    assert_eq!(server.calls(), 2);
}

#[tokio::test]
async fn caching_off_asks_every_time() {
    let server = TestHook::http(allowed()).await;
    let hook = webhook(WebhookConfig {
        authorized_ttl: None,
        ..settings(server.kubeconfig())
    });
    get_pod(&hook, "p").await.expect("answer");
    get_pod(&hook, "p").await.expect("answer");
    assert_eq!(server.calls(), 2);
    server.set(denied("no"));
    let hook = webhook(WebhookConfig {
        unauthorized_ttl: None,
        ..settings(server.kubeconfig())
    });
    get_pod(&hook, "p").await.expect("answer");
    get_pod(&hook, "p").await.expect("answer");
    assert_eq!(server.calls(), 4);
}

#[tokio::test]
async fn a_hung_webhook_times_out_into_the_failure_policy() {
    let server = TestHook::http(Behaviour::Hang).await;
    let timeout = Duration::from_millis(300);
    let deny = webhook(WebhookConfig {
        timeout,
        failure_policy: FailurePolicy::Deny,
        ..settings(server.kubeconfig())
    });
    let started = Instant::now();
    assert!(matches!(get_pod(&deny, "p").await, Ok(Decision::Deny(_))));
    assert!(started.elapsed() < Duration::from_secs(2));
    let no_opinion = webhook(WebhookConfig {
        timeout,
        ..settings(server.kubeconfig())
    });
    assert!(matches!(
        get_pod(&no_opinion, "p").await,
        Err(ApiError::Internal(m)) if m.contains("timed out")
    ));
}

#[tokio::test]
async fn server_errors_are_retried_then_fail_by_policy() {
    let server = TestHook::http(Behaviour::Code(500)).await;
    let hook = webhook(WebhookConfig {
        timeout: Duration::from_millis(1500),
        failure_policy: FailurePolicy::Deny,
        ..settings(server.kubeconfig())
    });
    let started = Instant::now();
    assert!(matches!(get_pod(&hook, "p").await, Ok(Decision::Deny(_))));
    assert!(started.elapsed() < Duration::from_millis(1600));
    assert!(server.calls() >= 2, "retried: {}", server.calls());
    let failures = server.calls();
    get_pod(&hook, "p").await.expect("a decision");
    assert!(server.calls() > failures, "failures are not cached");

    server.set(Behaviour::Code(403));
    let before = server.calls();
    assert!(get_pod(&hook, "q").await.is_ok());
    assert_eq!(server.calls(), before + 1, "a client error is not retried");
}

#[tokio::test]
async fn malformed_answers_and_unreachable_webhooks_fail_by_policy() {
    let server = TestHook::http(Behaviour::Garbage).await;
    let hook = webhook(settings(server.kubeconfig()));
    assert!(matches!(
        get_pod(&hook, "p").await,
        Err(ApiError::Internal(m)) if m.contains("not JSON")
    ));
    server.set(Behaviour::Status(json!({"allowed": "yes"})));
    assert!(get_pod(&hook, "q").await.is_err());

    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("gone.kubeconfig");
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let doc = json!({"clusters": [{"name": "x", "cluster": {"server": format!("http://127.0.0.1:{port}/")}}]});
    std::fs::write(&path, doc.to_string()).expect("write");
    let gone = webhook(WebhookConfig {
        failure_policy: FailurePolicy::Deny,
        ..settings(path)
    });
    assert!(matches!(get_pod(&gone, "p").await, Ok(Decision::Deny(_))));
}

fn conditions(sources: &[&str]) -> Vec<Expression> {
    sources
        .iter()
        .map(|s| Expression::compile(s, &["request"]).expect("compiles"))
        .collect()
}

#[tokio::test]
async fn match_conditions_choose_which_requests_are_sent() {
    let server = TestHook::http(allowed()).await;
    let hook = webhook(WebhookConfig {
        match_conditions: conditions(&[
            "has(request.resourceAttributes)",
            "request.resourceAttributes.namespace == 'ns'",
            "'dev' in request.groups",
            "'a' in request.extra['example.com/scopes']",
        ]),
        ..settings(server.kubeconfig())
    });
    assert_eq!(get_pod(&hook, "p").await.expect("answer"), Decision::Allow);
    assert_eq!(server.calls(), 1);
    assert_eq!(
        ask(&hook, Method::GET, "/api/v1/namespaces/other/pods/p")
            .await
            .expect("answer"),
        Decision::NoOpinion(String::new())
    );
    assert_eq!(
        ask(&hook, Method::GET, "/healthz").await.expect("answer"),
        Decision::NoOpinion(String::new())
    );
    assert_eq!(server.calls(), 1, "unmatched requests are not sent");
}

#[tokio::test]
async fn a_failing_match_condition_decides_by_policy_without_a_call() {
    let server = TestHook::http(allowed()).await;
    let deny = webhook(WebhookConfig {
        match_conditions: conditions(&["request.resourceAttributes.namespace == 'ns'"]),
        failure_policy: FailurePolicy::Deny,
        ..settings(server.kubeconfig())
    });
    assert!(matches!(
        ask(&deny, Method::GET, "/healthz").await,
        Ok(Decision::Deny(_))
    ));
    let no_opinion = webhook(WebhookConfig {
        match_conditions: conditions(&["request.resourceAttributes.namespace == 'ns'"]),
        ..settings(server.kubeconfig())
    });
    assert!(matches!(
        ask(&no_opinion, Method::GET, "/healthz").await,
        Err(ApiError::Internal(m)) if m.contains("cel evaluation error")
    ));
    assert_eq!(server.calls(), 0);
}
