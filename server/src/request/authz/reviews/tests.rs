//! The access reviews against a small recording authorizer: spec to
//! attributes, the status each decision gives, and kube's validation
//! messages.

use std::sync::Arc;

use parking_lot::Mutex;
use serde_json::{Value, json};

use super::access::{AccessReviewer, Review};
use super::rules::RulesReviewer;
use crate::api::error::ApiError;
use crate::api::kind::{Answerer, Question};
use crate::request::authz::rules::{NonResourceRule, ResourceRule, RulesFor};
use crate::request::authz::{Attributes, Authorizer, Authorizers, Decision};
use crate::request::info::RequestInfo;
use crate::request::user::UserInfo;
use crate::util::maybe_async::MaybeAsync;

/// jane may get pods in dev; mallory is denied; "broken" fails; everyone
/// else gets no opinion. Remembers what it was last asked.
#[derive(Default)]
struct Recording {
    asked: Mutex<Option<(UserInfo, RequestInfo)>>,
}

impl Authorizer for Recording {
    fn authorize<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
    ) -> MaybeAsync<'a, Result<Decision, ApiError>> {
        *self.asked.lock() = Some((attrs.user.clone(), attrs.info.clone()));
        let info = attrs.info;
        let decision = match attrs.user.name.as_str() {
            "mallory" => Ok(Decision::Deny("mallory is banned".into())),
            "broken" => Err(ApiError::Internal("policy unreadable".into())),
            "jane" if info.verb == "get" && info.namespace() == "dev" => Ok(Decision::Allow),
            _ => Ok(Decision::NoOpinion("no rule matched".into())),
        };
        MaybeAsync::Ready(decision)
    }

    fn rules_for(&self, user: &UserInfo, namespace: &str) -> RulesFor {
        if user.name != "jane" {
            return RulesFor::default();
        }
        RulesFor {
            resource_rules: vec![ResourceRule {
                verbs: vec!["get".into()],
                api_groups: vec![String::new()],
                resources: vec![format!("pods-in-{namespace}")],
                resource_names: Vec::new(),
            }],
            non_resource_rules: vec![NonResourceRule {
                verbs: vec!["get".into()],
                non_resource_urls: vec!["/healthz".into()],
            }],
            incomplete: false,
            evaluation_error: String::new(),
        }
    }
}

struct Fixture {
    recording: Arc<Recording>,
    authorizers: Arc<Authorizers>,
}

fn fixture() -> Fixture {
    let recording = Arc::new(Recording::default());
    let authorizers = Arc::new(Authorizers::new(vec![
        Arc::clone(&recording) as Arc<dyn Authorizer>
    ]));
    Fixture {
        recording,
        authorizers,
    }
}

async fn ask(
    fixture: &Fixture,
    review: Review,
    requester: &str,
    namespace: Option<&str>,
    body: Value,
) -> Result<Value, (u16, String)> {
    let reviewer = AccessReviewer::new(
        review,
        Arc::clone(&fixture.authorizers),
        "authorization.k8s.io",
    );
    let user = Arc::new(UserInfo::new(requester, &["system:authenticated"]));
    reviewer
        .answer(
            Question {
                user: &user,
                namespace,
                store: None,
                dry_run: false,
            },
            body,
        )
        .resolve()
        .await
        .map_err(|e| (e.code(), e.to_string()))
}

fn pods(user: &str, namespace: &str) -> Value {
    json!({"spec": {"user": user, "resourceAttributes": {"namespace": namespace, "verb": "get", "resource": "pods"}}})
}

#[tokio::test]
async fn a_subject_access_review_reports_the_chains_verdict() {
    let f = fixture();
    let allowed = ask(&f, Review::Subject, "admin", None, pods("jane", "dev"))
        .await
        .expect("answered");
    assert_eq!(
        allowed,
        json!({
            "metadata": {"creationTimestamp": null},
            "spec": {"user": "jane", "resourceAttributes": {"namespace": "dev", "verb": "get", "resource": "pods"}},
            "status": {"allowed": true}
        })
    );
    let none = ask(&f, Review::Subject, "admin", None, pods("jane", "prod"))
        .await
        .expect("answered");
    assert_eq!(
        none["status"],
        json!({"allowed": false, "reason": "no rule matched"})
    );
    let denied = ask(&f, Review::Subject, "admin", None, pods("mallory", "dev"))
        .await
        .expect("answered");
    assert_eq!(
        denied["status"],
        json!({"allowed": false, "denied": true, "reason": "mallory is banned"})
    );
    let broken = ask(&f, Review::Subject, "admin", None, pods("broken", "dev"))
        .await
        .expect("an evaluation error is an answer, not a failure");
    assert_eq!(
        broken["status"],
        json!({"allowed": false, "evaluationError": "Internal error occurred: policy unreadable"})
    );
}

#[tokio::test]
async fn the_spec_becomes_the_attributes_verbatim() {
    let f = fixture();
    let body = json!({"spec": {
        "user": "sam", "uid": "7", "groups": ["devs"], "extra": {"scopes": ["a", "b"]},
        "resourceAttributes": {"verb": "*", "group": "apps", "resource": "*", "subresource": "scale", "name": "web"}
    }});
    ask(&f, Review::Subject, "admin", None, body)
        .await
        .expect("answered");
    let (user, info) = f.recording.asked.lock().clone().expect("asked");
    assert_eq!(user.name, "sam");
    assert_eq!(user.uid, "7");
    assert_eq!(user.groups, ["devs"], "no group is added to the subject");
    assert_eq!(user.extra["scopes"], ["a", "b"]);
    assert_eq!(info.verb, "*");
    let r = info.resource.as_ref().expect("a resource request");
    assert_eq!((r.group.as_str(), r.resource.as_str()), ("apps", "*"));
    assert_eq!(r.version, "*", "no version means every version");
    assert_eq!(r.subresource.as_deref(), Some("scale"));
    assert_eq!(info.name(), "web");
    assert_eq!(info.namespace(), "");

    let cluster_namespace = json!({"spec": {"user": "sam", "resourceAttributes": {"verb": "get", "resource": "namespaces", "name": "dev"}}});
    ask(&f, Review::Subject, "admin", None, cluster_namespace)
        .await
        .expect("answered");
    let (_, info) = f.recording.asked.lock().clone().expect("asked");
    assert_eq!(
        info.namespace(),
        "",
        "a review asks at the cluster scope when it names no namespace"
    );

    let path = json!({"spec": {"groups": ["ops"], "nonResourceAttributes": {"path": "/healthz", "verb": "get"}}});
    ask(&f, Review::Subject, "admin", None, path)
        .await
        .expect("answered");
    let (user, info) = f.recording.asked.lock().clone().expect("asked");
    assert_eq!(
        (user.name.as_str(), user.groups.as_slice()),
        ("", &["ops".to_string()][..])
    );
    assert_eq!(
        (info.verb.as_ref(), info.path.as_str()),
        ("get", "/healthz")
    );
    assert!(info.resource.is_none());
}

#[tokio::test]
async fn self_reviews_ask_about_the_requester() {
    let f = fixture();
    let body = json!({"spec": {"resourceAttributes": {"namespace": "dev", "verb": "get", "resource": "pods"}}});
    let mine = ask(&f, Review::SelfSubject, "jane", None, body.clone())
        .await
        .expect("answered");
    assert_eq!(mine["status"], json!({"allowed": true}));
    let (user, _) = f.recording.asked.lock().clone().expect("asked");
    assert_eq!(user.groups, ["system:authenticated"]);
    let theirs = ask(&f, Review::SelfSubject, "sam", None, body)
        .await
        .expect("answered");
    assert_eq!(theirs["status"]["allowed"], json!(false));
}

fn invalid(message: &str) -> Result<Value, (u16, String)> {
    Err((
        422,
        format!(".authorization.k8s.io \"\" is invalid: {message}"),
    ))
}

#[tokio::test]
async fn invalid_reviews_are_refused_as_kube_words_it() {
    let f = fixture();
    assert_eq!(
        ask(
            &f,
            Review::Subject,
            "admin",
            None,
            json!({"spec": {"user": "jane"}})
        )
        .await,
        invalid(
            "spec.resourceAttributes: Invalid value: \"null\": exactly one of nonResourceAttributes or resourceAttributes must be specified"
        )
    );
    assert_eq!(
        ask(
            &f,
            Review::Subject,
            "admin",
            None,
            json!({"spec": {"resourceAttributes": {"verb": "get"}}})
        )
        .await,
        invalid("spec.user: Invalid value: \"\": at least one of user or group must be specified")
    );
    assert_eq!(
        ask(&f, Review::Subject, "admin", None, json!({"spec": {}})).await,
        invalid(
            "[spec.resourceAttributes: Invalid value: \"null\": exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: \"\": at least one of user or group must be specified]"
        )
    );
    let both = json!({"spec": {"user": "u", "resourceAttributes": {"verb": "get"}, "nonResourceAttributes": {"path": "/x", "verb": "get"}}});
    assert_eq!(
        ask(&f, Review::SelfSubject, "admin", None, both).await,
        invalid(
            "spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:\"/x\", Verb:\"get\"}: cannot be specified in combination with resourceAttributes"
        )
    );
    let named = json!({"metadata": {"name": "r"}, "spec": {"nonResourceAttributes": {"path": "/x", "verb": "get"}}});
    let refused = ask(&f, Review::SelfSubject, "admin", None, named)
        .await
        .expect_err("metadata must be empty");
    assert_eq!(refused.0, 422);
    assert!(
        refused.1.starts_with(".authorization.k8s.io \"\" is invalid: metadata: Invalid value: v1.ObjectMeta{Name:\"r\", ")
            && refused.1.ends_with("}: must be empty"),
        "{}",
        refused.1
    );
    let kubectl = json!({"metadata": {"creationTimestamp": null}, "spec": {"nonResourceAttributes": {"path": "/x", "verb": "get"}}});
    assert!(
        ask(&f, Review::SelfSubject, "admin", None, kubectl)
            .await
            .is_ok(),
        "a null creation time is empty metadata"
    );
    let selectors = json!({"spec": {"user": "u", "resourceAttributes": {"verb": "list", "fieldSelector": {}, "labelSelector": {"rawSelector": "a=b", "requirements": [{"key": "a", "operator": "In", "values": ["b"]}]}}}});
    assert_eq!(
        ask(&f, Review::Subject, "admin", None, selectors).await,
        invalid(
            "[spec.resourceAttributes.fieldSelector.requirements: Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required, spec.resourceAttributes.labelSelector.rawSelector: Invalid value: \"a=b\": may not specified at the same time as requirements]"
        )
    );
    let unparsable = json!({"spec": {"user": "jane", "resourceAttributes": {"namespace": "dev", "verb": "get", "labelSelector": {"rawSelector": "a in"}}}});
    let answered = ask(&f, Review::Subject, "admin", None, unparsable)
        .await
        .expect("answered");
    assert_eq!(
        answered["status"],
        json!({"allowed": true, "evaluationError": "spec.resourceAttributes.labelSelector ignored due to parse error"})
    );
}

#[tokio::test]
async fn a_local_review_stays_in_the_urls_namespace() {
    let f = fixture();
    let answered = ask(&f, Review::Local, "admin", Some("dev"), pods("jane", "dev"))
        .await
        .expect("answered");
    assert_eq!(
        answered["metadata"],
        json!({"namespace": "dev", "creationTimestamp": null})
    );
    assert_eq!(answered["status"], json!({"allowed": true}));
    assert_eq!(
        ask(
            &f,
            Review::Local,
            "admin",
            Some("dev"),
            pods("jane", "prod")
        )
        .await,
        invalid(
            "spec.resourceAttributes.namespace: Invalid value: \"prod\": must match metadata.namespace"
        )
    );
    let elsewhere = json!({"metadata": {"namespace": "prod"}, "spec": {"user": "jane", "resourceAttributes": {"namespace": "prod"}}});
    assert_eq!(
        ask(&f, Review::Local, "admin", Some("dev"), elsewhere).await,
        Err((
            400,
            "the namespace of the provided object does not match the namespace sent on the request"
                .into()
        ))
    );
    let path =
        json!({"spec": {"user": "jane", "nonResourceAttributes": {"path": "/x", "verb": "get"}}});
    assert_eq!(
        ask(&f, Review::Local, "admin", Some("dev"), path).await,
        invalid(
            "spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:\"/x\", Verb:\"get\"}: disallowed on this kind of request"
        )
    );
}

#[tokio::test]
async fn a_rules_review_lists_the_chains_rules_for_the_namespace() {
    let f = fixture();
    let reviewer = RulesReviewer::new(Arc::clone(&f.authorizers));
    let jane = Arc::new(UserInfo::new("jane", &[]));
    let question = || Question {
        user: &jane,
        namespace: None,
        store: None,
        dry_run: false,
    };
    let answered = reviewer
        .answer(question(), json!({"spec": {"namespace": "dev"}}))
        .resolve()
        .await
        .expect("answered");
    assert_eq!(
        answered,
        json!({
            "metadata": {"creationTimestamp": null},
            "spec": {},
            "status": {
                "resourceRules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods-in-dev"]}],
                "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}],
                "incomplete": false
            }
        })
    );
    let refused = reviewer
        .answer(question(), json!({"spec": {}}))
        .resolve()
        .await
        .map_err(|e| (e.code(), e.to_string()));
    assert_eq!(refused, Err((400, "no namespace on request".into())));
}
