//! Impersonation against a small authorizer: which checks are made, the
//! user the request ends up as, and kube's refusals.

use std::sync::Arc;

use http::{HeaderMap, HeaderName, HeaderValue};
use parking_lot::Mutex;

use super::*;
use crate::request::authz::{Authorizer, Decision};
use crate::util::maybe_async::MaybeAsync;

/// "boss" may impersonate anyone but the user "ceo"; everyone else
/// nobody. Records every check as `resource/sub namespace name`.
#[derive(Default)]
struct Boss {
    checks: Mutex<Vec<String>>,
}

impl Authorizer for Boss {
    fn authorize<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
    ) -> MaybeAsync<'a, Result<Decision, ApiError>> {
        let info = attrs.info;
        let r = info.resource.as_ref().expect("a resource check");
        assert_eq!(info.verb, "impersonate");
        let resource = match &r.subresource {
            Some(sub) => format!("{}/{sub}", r.resource),
            None => r.resource.clone(),
        };
        self.checks.lock().push(format!(
            "{}:{resource} {} {}",
            r.group,
            info.namespace(),
            info.name()
        ));
        let allowed = attrs.user.name == "boss" && !(r.resource == "users" && info.name() == "ceo");
        MaybeAsync::Ready(Ok(if allowed {
            Decision::Allow
        } else {
            Decision::NoOpinion(String::new())
        }))
    }
}

fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        map.append(
            HeaderName::from_bytes(name.as_bytes()).expect("name"),
            HeaderValue::from_str(value).expect("value"),
        );
    }
    map
}

async fn run(
    requester: &str,
    pairs: &[(&str, &str)],
) -> (Result<Arc<UserInfo>, (u16, String)>, Vec<String>) {
    let boss = Arc::new(Boss::default());
    let chain = Authorizers::new(vec![Arc::clone(&boss) as Arc<dyn Authorizer>]);
    let requester = Arc::new(UserInfo::new(requester, &["system:authenticated"]));
    let result = impersonate(&chain, &headers(pairs), "/api/v1/pods", "k8s.io", requester)
        .await
        .map_err(|e| (e.code(), e.to_string()));
    let checks = boss.checks.lock().clone();
    (result, checks)
}

#[tokio::test]
async fn without_headers_the_requester_stays() {
    let boss = Authorizers::new(Vec::new());
    let me = Arc::new(UserInfo::new("me", &[]));
    let same = impersonate(&boss, &HeaderMap::new(), "/", "k8s.io", Arc::clone(&me))
        .await
        .expect("nothing to check");
    assert!(Arc::ptr_eq(&me, &same));
}

#[tokio::test]
async fn every_part_is_checked_and_becomes_the_user() {
    let (user, checks) = run(
        "boss",
        &[
            ("Impersonate-User", "jane"),
            ("Impersonate-Group", "devs"),
            ("Impersonate-Group", "ops"),
            ("Impersonate-Extra-Scopes", "view"),
            ("Impersonate-Extra-Scopes", "edit"),
            ("Impersonate-Extra-Example.com%2FTeam", "a"),
            ("Impersonate-Uid", "42"),
        ],
    )
    .await;
    assert_eq!(
        checks,
        [
            ":users  jane",
            ":groups  devs",
            ":groups  ops",
            "authentication.k8s.io:userextras/scopes  view",
            "authentication.k8s.io:userextras/scopes  edit",
            "authentication.k8s.io:userextras/example.com/team  a",
            "authentication.k8s.io:uids  42",
        ]
    );
    let user = user.expect("allowed");
    assert_eq!(user.name, "jane");
    assert_eq!(user.uid, "42");
    assert_eq!(user.groups, ["devs", "ops", "system:authenticated"]);
    assert_eq!(user.extra["scopes"], ["view", "edit"]);
    assert_eq!(user.extra["example.com/team"], ["a"]);
}

#[tokio::test]
async fn groups_are_completed_as_kube_completes_them() {
    let (sa, checks) = run(
        "boss",
        &[("Impersonate-User", "system:serviceaccount:dev:builder")],
    )
    .await;
    assert_eq!(checks, [":serviceaccounts dev builder"]);
    let sa = sa.expect("allowed");
    assert_eq!(sa.name, "system:serviceaccount:dev:builder");
    assert_eq!(
        sa.groups,
        [
            "system:serviceaccounts",
            "system:serviceaccounts:dev",
            "system:authenticated"
        ]
    );
    let (given, _) = run(
        "boss",
        &[
            ("Impersonate-User", "system:serviceaccount:dev:builder"),
            ("Impersonate-Group", "team"),
        ],
    )
    .await;
    assert_eq!(
        given.expect("allowed").groups,
        ["team", "system:authenticated"]
    );
    let (odd, checks) = run(
        "boss",
        &[("Impersonate-User", "system:serviceaccount:Dev:x")],
    )
    .await;
    assert_eq!(
        checks,
        [":users  system:serviceaccount:Dev:x"],
        "not a valid namespace: a user"
    );
    assert_eq!(odd.expect("allowed").name, "system:serviceaccount:Dev:x");
    let (anonymous, _) = run("boss", &[("Impersonate-User", "system:anonymous")]).await;
    assert_eq!(
        anonymous.expect("allowed").groups,
        ["system:unauthenticated"]
    );
    let (unauthenticated, _) = run(
        "boss",
        &[
            ("Impersonate-User", "guest"),
            ("Impersonate-Group", "system:unauthenticated"),
        ],
    )
    .await;
    assert_eq!(
        unauthenticated.expect("allowed").groups,
        ["system:unauthenticated"]
    );
}

#[tokio::test]
async fn refusals_are_kubes() {
    let (ceo, checks) = run(
        "boss",
        &[("Impersonate-User", "ceo"), ("Impersonate-Group", "g")],
    )
    .await;
    assert_eq!(
        ceo,
        Err((
            403,
            "users \"ceo\" is forbidden: User \"boss\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope".into()
        ))
    );
    assert_eq!(checks.len(), 1, "the first refusal ends the checks");
    let (sa, _) = run(
        "intern",
        &[("Impersonate-User", "system:serviceaccount:dev:builder")],
    )
    .await;
    assert_eq!(
        sa,
        Err((
            403,
            "serviceaccounts \"builder\" is forbidden: User \"intern\" cannot impersonate resource \"serviceaccounts\" in API group \"\" in the namespace \"dev\"".into()
        ))
    );
    let chain = Authorizers::new(Vec::new());
    let uid = impersonate(
        &chain,
        &headers(&[("Impersonate-Uid", "7"), ("Impersonate-User", "x")]),
        "/",
        "example.org",
        Arc::new(UserInfo::new("root", &[])),
    )
    .await
    .map_err(|e| e.to_string());
    assert_eq!(
        uid,
        Err("users \"x\" is forbidden: User \"root\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope".into())
    );
    let (lonely, checks) = run(
        "boss",
        &[("Impersonate-Group", "g"), ("Impersonate-Extra-k", "v")],
    )
    .await;
    assert!(checks.is_empty());
    assert_eq!(
        lonely,
        Err((
            500,
            "Internal Server Error: \"/api/v1/pods\": requested [{Group  g    } {UserExtra  v  authentication.k8s.io/v1  k}] without impersonating a user".into()
        ))
    );
}

#[test]
fn extra_keys_are_lower_cased_then_unescaped() {
    assert_eq!(unescape("a%2fb"), "a/b");
    assert_eq!(unescape("100%"), "100%", "malformed: kept as sent");
    assert_eq!(unescape("%zz"), "%zz");
    assert_eq!(unescape("%ff"), "%ff", "not UTF-8: kept as sent");
}
