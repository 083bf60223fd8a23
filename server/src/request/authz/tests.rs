//! The authorizer union and Kubernetes' 403 messages.

use std::sync::Mutex;

use http::Method;

use super::privileged::PrivilegedGroups;
use super::*;
use crate::request::user::insecure_port_user;

/// Answers the same every time, and records that it was asked.
struct Fixed {
    name: &'static str,
    answer: Result<Decision, &'static str>,
    asked: Arc<Mutex<Vec<&'static str>>>,
}

impl Authorizer for Fixed {
    fn authorize<'a>(
        &'a self,
        _attrs: &'a Attributes<'a>,
    ) -> MaybeAsync<'a, Result<Decision, ApiError>> {
        self.asked.lock().expect("lock").push(self.name);
        MaybeAsync::Ready(
            self.answer
                .clone()
                .map_err(|e| ApiError::ServiceUnavailable(e.into())),
        )
    }
}

fn request(method: Method, path: &str) -> RequestInfo {
    RequestInfo::new(&method, path.to_string(), None, None)
}

fn nobody() -> UserInfo {
    UserInfo::new("jane", &["system:authenticated"])
}

/// The union of `answers` in order: its verdict and who was asked.
async fn decide(
    answers: &[Result<Decision, &'static str>],
) -> (Result<(), ApiError>, Vec<&'static str>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let names = ["first", "second", "third"];
    let union = Authorizers::new(
        answers
            .iter()
            .zip(names)
            .map(|(answer, name)| {
                Arc::new(Fixed {
                    name,
                    answer: answer.clone(),
                    asked: Arc::clone(&asked),
                }) as Arc<dyn Authorizer>
            })
            .collect(),
    );
    let user = nobody();
    let info = request(Method::GET, "/api/v1/namespaces/ns/pods/p");
    let verdict = union
        .authorize(&Attributes {
            user: &user,
            info: &info,
        })
        .await;
    let asked = asked.lock().expect("lock").clone();
    (verdict, asked)
}

fn message(verdict: Result<(), ApiError>) -> String {
    verdict.expect_err("refused").to_string()
}

#[tokio::test]
async fn the_first_opinion_decides() {
    let none = || Ok(Decision::NoOpinion(String::new()));
    let (verdict, asked) =
        decide(&[none(), Ok(Decision::Allow), Ok(Decision::Deny("no".into()))]).await;
    assert!(verdict.is_ok());
    assert_eq!(asked, ["first", "second"]);

    let (verdict, asked) = decide(&[
        Ok(Decision::Deny("policy says no".into())),
        Ok(Decision::Allow),
    ])
    .await;
    assert_eq!(asked, ["first"]);
    assert_eq!(
        message(verdict),
        "pods \"p\" is forbidden: User \"jane\" cannot get resource \"pods\" in API group \"\" in the namespace \"ns\": policy says no"
    );
}

#[tokio::test]
async fn without_an_opinion_the_request_is_forbidden_with_every_reason() {
    let (verdict, asked) = decide(&[
        Ok(Decision::NoOpinion("RBAC: role not found".into())),
        Ok(Decision::NoOpinion(String::new())),
        Ok(Decision::NoOpinion("webhook: no rule".into())),
    ])
    .await;
    assert_eq!(asked, ["first", "second", "third"]);
    let err = verdict.expect_err("forbidden");
    assert_eq!(err.code(), 403);
    assert!(
        err.to_string()
            .ends_with("in the namespace \"ns\": RBAC: role not found\nwebhook: no rule"),
        "{err}"
    );
    assert!(matches!(
        decide(&[]).await.0,
        Err(ApiError::Forbidden { .. })
    ));
}

#[tokio::test]
async fn a_failed_authorizer_is_no_opinion_then_a_server_error() {
    let (verdict, asked) = decide(&[Err("webhook unreachable"), Ok(Decision::Allow)]).await;
    assert!(verdict.is_ok());
    assert_eq!(asked, ["first", "second"]);
    let (verdict, _) = decide(&[
        Err("webhook unreachable"),
        Ok(Decision::NoOpinion(String::new())),
    ])
    .await;
    let err = verdict.expect_err("failed");
    assert_eq!(
        (err.code(), err.to_string().contains("webhook unreachable")),
        (500, true)
    );
}

#[test]
fn deny_messages_follow_kubernetes() {
    let user = nobody();
    let refuse = |method: Method, path: &str| {
        let info = request(method, path);
        forbidden(
            &Attributes {
                user: &user,
                info: &info,
            },
            "",
        )
    };
    let e = refuse(
        Method::DELETE,
        "/apis/apps/v1/namespaces/ns/deployments/web",
    );
    assert_eq!(
        e.to_string(),
        "deployments.apps \"web\" is forbidden: User \"jane\" cannot delete resource \"deployments\" in API group \"apps\" in the namespace \"ns\""
    );
    assert_eq!(
        e.status()["details"],
        serde_json::json!({"name": "web", "group": "apps", "kind": "deployments.apps"})
    );
    assert_eq!(
        refuse(Method::GET, "/api/v1/nodes").to_string(),
        "nodes is forbidden: User \"jane\" cannot list resource \"nodes\" in API group \"\" at the cluster scope"
    );
    assert_eq!(
        refuse(Method::PUT, "/api/v1/namespaces/ns/pods/p/status").to_string(),
        "pods \"p\" is forbidden: User \"jane\" cannot update resource \"pods/status\" in API group \"\" in the namespace \"ns\""
    );
    assert_eq!(
        refuse(Method::DELETE, "/api/v1/namespaces/team").to_string(),
        "namespaces \"team\" is forbidden: User \"jane\" cannot delete resource \"namespaces\" in API group \"\" in the namespace \"team\""
    );
    assert_eq!(
        refuse(Method::GET, "/api/v1/watch/namespaces/ns/events").to_string(),
        "events is forbidden: User \"jane\" cannot watch resource \"events\" in API group \"\" in the namespace \"ns\""
    );
    let health = refuse(Method::GET, "/healthz");
    assert_eq!(
        health.to_string(),
        "forbidden: User \"jane\" cannot get path \"/healthz\""
    );
    let status = health.status();
    assert_eq!(
        (status["reason"].as_str(), status["code"].as_u64()),
        (Some("Forbidden"), Some(403))
    );
    assert_eq!(status["details"], serde_json::json!({}));
}

#[tokio::test]
async fn masters_may_do_anything_others_are_left_to_later_authorizers() {
    let masters = PrivilegedGroups::masters();
    let admin = insecure_port_user();
    let jane = nobody();
    for (method, path) in [
        (Method::DELETE, "/api/v1/namespaces/default/events/e"),
        (Method::GET, "/healthz"),
        (Method::POST, "/apis/apps/v1/namespaces/ns/deployments"),
    ] {
        let info = request(method, path);
        let allowed = masters
            .authorize(&Attributes {
                user: &admin,
                info: &info,
            })
            .resolve()
            .await;
        assert_eq!(allowed.expect("no error"), Decision::Allow, "{path}");
        let other = masters
            .authorize(&Attributes {
                user: &jane,
                info: &info,
            })
            .resolve()
            .await;
        assert_eq!(other.expect("no error"), Decision::NoOpinion(String::new()));
    }
}
