//! Tests of the authorizer library at run time: what each function asks
//! the chain, decisions and errors, answers that wait (see also
//! `authz_compile_tests`).

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::Requester;
use crate::api::error::ApiError;
use crate::api::schema::{Schema, validate_rules};
use crate::request::authz::{Attributes, Authorizer, Authorizers, Decision};
use crate::request::info::RequestInfo;
use crate::request::user::UserInfo;
use crate::util::maybe_async::MaybeAsync;

/// What the fake authorizer was asked: user, groups and the request.
type Asked = Arc<Mutex<Vec<(String, Vec<String>, RequestInfo)>>>;

/// Allows `alice` everything, denies `mallory` with a reason, fails for
/// `broken`, and has no opinion on anyone else; answers after a task
/// switch when `waits`. Records every question.
struct Fake {
    asked: Asked,
    waits: bool,
}

impl Fake {
    fn answer(user: &UserInfo) -> Result<Decision, ApiError> {
        match user.name.as_str() {
            "alice" => Ok(Decision::Allow),
            "mallory" => Ok(Decision::Deny("mallory is banned".into())),
            "broken" => Err(ApiError::ServiceUnavailable("policy unreadable".into())),
            _ => Ok(Decision::NoOpinion("no rule matched".into())),
        }
    }
}

impl Authorizer for Fake {
    fn authorize<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
    ) -> MaybeAsync<'a, Result<Decision, ApiError>> {
        self.asked.lock().expect("lock").push((
            attrs.user.name.clone(),
            attrs.user.groups.clone(),
            attrs.info.clone(),
        ));
        let answer = Fake::answer(attrs.user);
        if self.waits {
            MaybeAsync::pending(async move {
                tokio::task::yield_now().await;
                answer
            })
        } else {
            MaybeAsync::Ready(answer)
        }
    }
}

pub(super) fn chain(waits: bool) -> (Arc<Authorizers>, Asked) {
    let asked = Asked::default();
    let fake = Fake {
        asked: Arc::clone(&asked),
        waits,
    };
    (Arc::new(Authorizers::new(vec![Arc::new(fake)])), asked)
}

/// A schema with `rule` on `spec` (strings `ns` and `name`).
pub(super) fn schema(rule: Value) -> Schema {
    Schema::from_openapi(&json!({"type": "object", "properties": {"spec": {
        "type": "object",
        "x-kubernetes-validations": [rule],
        "properties": {
            "ns": {"type": "string", "maxLength": 63},
            "name": {"type": "string", "maxLength": 63}
        }
    }}}))
    .unwrap_or_else(|e| panic!("{e:?}"))
}

/// The errors of `rule` on `spec` written by `user` (`None`: the API
/// server itself) through `authorizers`.
pub(super) fn run_as(
    rule: Value,
    spec: Value,
    user: Option<&str>,
    authorizers: &Arc<Authorizers>,
) -> Vec<String> {
    let user = user.map(|name| Arc::new(UserInfo::new(name, &["devs"])));
    let requester = Requester {
        user: user.as_ref(),
        authorizers,
    };
    super::validate_rules_by(&schema(rule), &json!({ "spec": spec }), None, &requester)
        .iter()
        .map(ToString::to_string)
        .collect()
}

pub(super) const SECRETS_RULE: &str =
    "authorizer.group('').resource('secrets').namespace(self.ns).check('get').allowed()";

#[test]
fn a_resource_check_asks_the_chain_as_the_writer() {
    let (authorizers, asked) = chain(false);
    let rule = json!({ "rule": SECRETS_RULE });
    let spec = json!({"ns": "team"});
    assert!(run_as(rule.clone(), spec.clone(), Some("alice"), &authorizers).is_empty());
    assert_eq!(
        run_as(rule, spec, Some("bob"), &authorizers),
        [format!(
            "spec: Invalid value: \"object\": failed rule: {SECRETS_RULE}"
        )]
    );
    let asked = asked.lock().expect("lock");
    assert_eq!(asked.len(), 2);
    let (user, groups, info) = &asked[0];
    assert_eq!(
        (user.as_str(), groups.as_slice()),
        ("alice", &["devs".to_string()][..])
    );
    assert_eq!(info.verb, "get");
    let r = info.resource.as_ref().expect("a resource request");
    assert_eq!(
        (r.group.as_str(), r.version.as_str(), r.resource.as_str()),
        ("", "*", "secrets")
    );
    assert_eq!(r.namespace.as_deref(), Some("team"));
    assert_eq!((r.name.as_deref(), r.subresource.as_deref()), (None, None));
}

#[test]
fn every_part_of_a_resource_check_reaches_the_chain() {
    let (authorizers, asked) = chain(false);
    let rule = "authorizer.group('apps').resource('deployments').subresource('scale').namespace('ns').name(self.name).check('update').allowed() \
                && authorizer.group('').resource('pods').subresource('').namespace('').name('').check('list').allowed()";
    let errs = run_as(
        json!({ "rule": rule }),
        json!({"name": "web"}),
        Some("alice"),
        &authorizers,
    );
    assert!(errs.is_empty(), "{errs:?}");
    let asked = asked.lock().expect("lock");
    let first = asked[0].2.resource.clone().expect("resource");
    assert_eq!(asked[0].2.verb, "update");
    assert_eq!(
        (
            first.group.as_str(),
            first.resource.as_str(),
            first.subresource.as_deref()
        ),
        ("apps", "deployments", Some("scale"))
    );
    assert_eq!(
        (first.namespace.as_deref(), first.name.as_deref()),
        (Some("ns"), Some("web"))
    );
    // `""` leaves a part unset: the cluster scope, any name, the resource.
    let second = asked[1].2.resource.clone().expect("resource");
    assert_eq!(
        (second.namespace, second.name, second.subresource),
        (None, None, None)
    );
}

#[test]
fn a_path_check_is_a_non_resource_request() {
    let (authorizers, asked) = chain(false);
    let rule = json!({"rule": "authorizer.path('/healthz').check('get').allowed()"});
    assert!(run_as(rule, json!({}), Some("alice"), &authorizers).is_empty());
    let asked = asked.lock().expect("lock");
    let info = &asked[0].2;
    assert_eq!(
        (info.verb.as_ref(), info.path.as_str()),
        ("get", "/healthz")
    );
    assert!(info.resource.is_none());
}

#[test]
fn a_service_account_check_asks_as_that_account() {
    let (authorizers, asked) = chain(false);
    let rule = json!({"rule": "!authorizer.serviceAccount('kube-system', 'builder').group('').resource('pods').check('create').allowed()"});
    assert!(run_as(rule, json!({}), Some("alice"), &authorizers).is_empty());
    let asked = asked.lock().expect("lock");
    let (user, groups, _) = &asked[0];
    assert_eq!(user, "system:serviceaccount:kube-system:builder");
    assert_eq!(
        groups,
        &[
            "system:serviceaccounts",
            "system:serviceaccounts:kube-system"
        ]
    );
}

#[test]
fn decisions_carry_reasons_and_errors() {
    let (authorizers, _) = chain(false);
    let holds = |rule: &str, user: &str| {
        run_as(json!({ "rule": rule }), json!({}), Some(user), &authorizers).is_empty()
    };
    let check = "authorizer.group('').resource('pods').check('get')";
    assert!(holds(
        &format!("{check}.reason() == 'mallory is banned'"),
        "mallory"
    ));
    assert!(holds(
        &format!("!{check}.allowed() && !{check}.errored()"),
        "mallory"
    ));
    assert!(holds(
        &format!("{check}.reason() == 'no rule matched'"),
        "bob"
    ));
    assert!(holds(&format!("{check}.error() == ''"), "bob"));
    assert!(holds(
        &format!("{check}.errored() && !{check}.allowed()"),
        "broken"
    ));
    assert!(holds(
        &format!("{check}.error().contains('policy unreadable')"),
        "broken"
    ));
    assert!(holds(
        &format!("{check}.allowed() && {check}.reason() == ''"),
        "alice"
    ));
}

#[test]
fn a_message_expression_may_use_the_decision() {
    let (authorizers, _) = chain(false);
    let rule = json!({
        "rule": "authorizer.group('').resource('pods').check('get').allowed()",
        "messageExpression": "'denied: ' + authorizer.group('').resource('pods').check('get').reason()"
    });
    assert_eq!(
        run_as(rule, json!({}), Some("mallory"), &authorizers),
        ["spec: Invalid value: \"object\": denied: mallory is banned"]
    );
}

#[test]
fn bad_arguments_fail_the_evaluation_with_kubernetes_messages() {
    let (authorizers, _) = chain(false);
    for (rule, message) in [
        (
            "authorizer.path(' ').check('get').allowed()",
            "path must not be empty",
        ),
        (
            "authorizer.group('').resource('').check('get').allowed()",
            "resource must not be empty",
        ),
        (
            "authorizer.serviceAccount('ns', 'Bad_Name').path('/x').check('get').allowed()",
            "Invalid service account name",
        ),
        (
            "authorizer.serviceAccount('a.b', 'sa').path('/x').check('get').allowed()",
            "Invalid service account namespace",
        ),
    ] {
        let errs = run_as(
            json!({ "rule": rule }),
            json!({}),
            Some("alice"),
            &authorizers,
        );
        assert_eq!(
            errs,
            [format!(
                "spec: Invalid value: \"object\": {message} evaluating rule: {rule}"
            )]
        );
    }
}

#[test]
fn in_process_writes_check_as_the_api_server() {
    let (authorizers, asked) = chain(false);
    let rule = json!({ "rule": "!authorizer.path('/x').check('get').allowed()" });
    assert!(run_as(rule, json!({}), None, &authorizers).is_empty());
    let asked = asked.lock().expect("lock");
    assert_eq!(asked[0].0, "system:apiserver");
    assert!(asked[0].1.iter().any(|g| g == "system:masters"));
}

#[test]
fn without_a_writer_rules_using_the_authorizer_do_not_run() {
    let s = schema(json!({ "rule": SECRETS_RULE }));
    assert!(validate_rules(&s, &json!({"spec": {"ns": "x"}}), None).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_that_waits_is_waited_for_on_the_server_runtime() {
    let (authorizers, asked) = chain(true);
    let rule = json!({ "rule": SECRETS_RULE });
    assert!(
        run_as(
            rule.clone(),
            json!({"ns": "a"}),
            Some("alice"),
            &authorizers
        )
        .is_empty()
    );
    assert_eq!(
        run_as(rule, json!({"ns": "a"}), Some("bob"), &authorizers).len(),
        1
    );
    assert_eq!(asked.lock().expect("lock").len(), 2);
}

#[test]
fn an_answer_that_waits_is_waited_for_outside_any_runtime() {
    let (authorizers, _) = chain(true);
    let rule = json!({ "rule": SECRETS_RULE });
    assert!(run_as(rule, json!({"ns": "a"}), Some("alice"), &authorizers).is_empty());
}

#[tokio::test(flavor = "current_thread")]
async fn an_answer_that_cannot_be_waited_for_is_an_error_not_a_deadlock() {
    let (authorizers, _) = chain(true);
    let check = "authorizer.group('').resource('pods').check('get')";
    let rule = json!({ "rule": format!("!{check}.allowed() && {check}.error() != ''") });
    let errs = run_as(rule, json!({}), Some("alice"), &authorizers);
    assert!(errs.is_empty(), "{errs:?}");
}
