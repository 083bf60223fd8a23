//! The chain from an AuthorizationConfiguration file, its reload, mode
//! `Webhook` from the legacy flags, and the start-up check.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use http::Method;
use serde_json::json;
use tokio::sync::watch;

use super::*;
use crate::api::error::ApiError;
use crate::request::authz::webhook::test_hook::{Behaviour, TestHook};
use crate::request::authz::{Attributes, Decision};
use crate::request::info::RequestInfo;
use crate::request::user::UserInfo;
use crate::util::maybe_async::MaybeAsync;

/// Stands in for RBAC: allows everything, so its place in the chain shows.
struct AllowingRbac;

impl Authorizer for AllowingRbac {
    fn authorize<'a>(
        &'a self,
        _attrs: &'a Attributes<'a>,
    ) -> MaybeAsync<'a, Result<Decision, ApiError>> {
        MaybeAsync::Ready(Ok(Decision::Allow))
    }
}

fn write(path: &Path, authorizers: serde_json::Value) {
    let doc = json!({
        "apiVersion": "apiserver.config.k8s.io/v1",
        "kind": "AuthorizationConfiguration",
        "authorizers": authorizers
    });
    std::fs::write(path, doc.to_string()).expect("write");
}

fn webhook_entry(kubeconfig: &Path) -> serde_json::Value {
    json!({
        "type": "Webhook",
        "name": "hook",
        "webhook": {
            "timeout": "2s",
            "subjectAccessReviewVersion": "v1",
            "failurePolicy": "NoOpinion",
            "connectionInfo": {"type": "KubeConfigFile", "kubeConfigFile": kubeconfig}
        }
    })
}

async fn allowed(union: &Authorizers) -> bool {
    let user = UserInfo::new("jane", &["system:authenticated"]);
    let info = RequestInfo::new(
        &Method::GET,
        "/api/v1/namespaces/ns/pods".into(),
        None,
        None,
    );
    union
        .decide(&Attributes {
            user: &user,
            info: &info,
        })
        .await
        .allowed
}

#[tokio::test]
async fn the_file_orders_the_chain() {
    let hook = TestHook::http(Behaviour::Status(json!({"allowed": false, "denied": true}))).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("authz.json");
    let rbac: Arc<dyn Authorizer> = Arc::new(AllowingRbac);

    write(
        &path,
        json!([webhook_entry(&hook.kubeconfig()), {"type": "RBAC", "name": "rbac"}]),
    );
    let chain = load(&path, "k8s.io", Arc::clone(&rbac)).expect("chain");
    assert_eq!(chain.len(), 2);
    assert!(
        !allowed(&Authorizers::new(chain)).await,
        "the webhook denies first"
    );
    assert_eq!(hook.calls(), 1);

    write(
        &path,
        json!([{"type": "AlwaysDeny", "name": "deny"}, {"type": "RBAC", "name": "rbac"}]),
    );
    let chain = load(&path, "k8s.io", rbac).expect("chain");
    assert!(
        allowed(&Authorizers::new(chain)).await,
        "AlwaysDeny has no opinion"
    );
}

#[tokio::test]
async fn a_webhook_whose_kubeconfig_is_unusable_stops_the_load() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = dir.path().join("hook.kubeconfig");
    std::fs::write(&kubeconfig, "clusters: []\n").expect("write");
    let path = dir.path().join("authz.json");
    write(&path, json!([webhook_entry(&kubeconfig)]));
    let error = load(&path, "k8s.io", Arc::new(AllowingRbac))
        .err()
        .expect("refused");
    assert!(
        error.starts_with("webhook authorizer \"hook\": the webhook kubeconfig"),
        "{error}"
    );
}

#[tokio::test]
async fn reloading_replaces_a_valid_chain_and_keeps_the_old_on_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("authz.json");
    write(&path, json!([{"type": "RBAC", "name": "rbac"}]));
    let rbac: Arc<dyn Authorizer> = Arc::new(AllowingRbac);
    let first: Arc<dyn Authorizer> = Arc::new(AlwaysDeny);
    let mut chain = vec![Arc::clone(&first)];
    chain.extend(load(&path, "k8s.io", Arc::clone(&rbac)).expect("chain"));
    let target = Arc::new(Authorizers::new(chain));
    let (stop_tx, stop) = watch::channel(false);
    let reload = Reload {
        domain: "k8s.io".into(),
        rbac,
        target: Arc::clone(&target),
        keep_first: vec![first],
    };
    let interval = Duration::from_millis(50);
    let task = tokio::spawn(reload.run(FileWatch::new(&path), interval, stop));
    assert!(allowed(&target).await);

    write(&path, json!([{"type": "AlwaysDeny", "name": "deny"}]));
    settles_at(&target, false).await;

    std::fs::write(&path, "authorizers: 3").expect("write");
    tokio::time::sleep(interval * 4).await;
    assert_eq!(target.current().len(), 2, "an invalid file changes nothing");
    assert!(!allowed(&target).await);

    write(
        &path,
        json!([{"type": "AlwaysAllow", "name": "allow"}, {"type": "RBAC", "name": "rbac"}]),
    );
    settles_at(&target, true).await;
    assert_eq!(target.current().len(), 3);

    stop_tx.send(true).expect("stop");
    tokio::time::timeout(Duration::from_secs(2), task)
        .await
        .expect("the watch ends when told")
        .expect("no panic");
}

/// Waits until the chain's answer is `allowed`.
async fn settles_at(target: &Authorizers, expected: bool) {
    for _ in 0..100 {
        if allowed(target).await == expected {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the chain was not replaced");
}

#[derive(Parser)]
struct Only {
    #[command(flatten)]
    flags: AuthorizationFlags,
}

fn flags(args: &[&str]) -> AuthorizationFlags {
    Only::parse_from(std::iter::once("cairn-apiserver").chain(args.iter().copied())).flags
}

#[tokio::test]
async fn mode_webhook_sends_v1beta1_by_default_and_has_no_opinion_on_failure() {
    let hook = TestHook::http(Behaviour::Status(json!({"allowed": true}))).await;
    let kubeconfig = hook.kubeconfig().display().to_string();
    let file_flag = format!("--authorization-webhook-config-file={kubeconfig}");
    let legacy = flags(&[
        "--authorization-mode=Webhook",
        &file_flag,
        "--authorization-webhook-cache-authorized-ttl=0s",
    ]);
    check(&legacy, "k8s.io").expect("valid flags");
    let union = Authorizers::new(vec![legacy_webhook(&legacy, "k8s.io").expect("webhook")]);
    assert!(allowed(&union).await);
    assert!(allowed(&union).await);
    assert_eq!(hook.calls(), 2, "a 0s TTL turns the cache off");
    assert_eq!(
        hook.reviews()[0]["apiVersion"],
        "authorization.k8s.io/v1beta1"
    );

    hook.set(Behaviour::Code(404));
    let verdict = union
        .decide(&Attributes {
            user: &UserInfo::new("jane", &[]),
            info: &RequestInfo::new(&Method::GET, "/version".into(), None, None),
        })
        .await;
    assert!(!verdict.allowed && !verdict.denied);
    assert!(verdict.evaluation_error.contains("404"), "{verdict:?}");
}

#[test]
fn the_start_up_check_names_the_problem() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("authz.json");
    write(&path, json!([{"type": "Node", "name": "node"}]));
    let file_flag = format!("--authorization-config={}", path.display());
    assert!(
        check(&flags(&[&file_flag]), "k8s.io")
            .unwrap_err()
            .starts_with("authorizers[0].type: Unsupported value: \"Node\"")
    );
    assert!(
        check(
            &flags(&[
                "--authorization-mode=Webhook",
                "--authorization-webhook-config-file=/nonexistent"
            ]),
            "k8s.io"
        )
        .unwrap_err()
        .starts_with("--authorization-webhook-config-file: cannot read the webhook kubeconfig")
    );
    assert!(
        check(
            &flags(&[
                "--authorization-mode=Webhook",
                "--authorization-webhook-config-file=/x",
                "--authorization-webhook-version=v2"
            ]),
            "k8s.io"
        )
        .unwrap_err()
        .contains("--authorization-webhook-version")
    );
}
