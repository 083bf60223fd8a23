//! A policy's verdict: match conditions, variables seeing earlier ones,
//! message fallbacks, reasons, failure policies and audit annotations.

use serde_json::{Value, json};

use super::compiled;
use super::evaluate::{Inputs, evaluate};
use crate::storage::{KeyValue, Revision};

fn compiled_policy(spec: Value) -> std::sync::Arc<compiled::Policy> {
    let obj = json!({"metadata": {"name": "p"}, "spec": spec});
    let kv = KeyValue {
        key: bytes::Bytes::from_static(b"/registry/p"),
        value: bytes::Bytes::from(serde_json::to_vec(&obj).unwrap()),
        create_revision: Revision::ZERO,
        mod_revision: Revision::ZERO,
        version: 1,
        lease: None,
    };
    compiled::policy(&kv).expect("a policy")
}

fn verdict_on(spec: Value, object: &Value) -> super::evaluate::Verdict {
    let policy = compiled_policy(spec);
    let null = Value::Null;
    let request = json!({"operation": "CREATE", "userInfo": {"username": "alice"}});
    evaluate(
        &policy,
        &Inputs {
            object,
            old_object: &null,
            request: &request,
            params: &null,
            namespace_object: &null,
            authorizer: None,
        },
    )
}

#[test]
fn validations_fail_with_the_best_message_they_have() {
    let spec = json!({
        "variables": [{"name": "n", "expression": "object.spec.replicas"},
                      {"name": "twice", "expression": "variables.n * 2"}],
        "validations": [
            {"expression": "variables.twice < 10", "messageExpression": "'twice is ' + string(variables.twice)"},
            {"expression": "variables.n < 3", "message": "too many", "reason": "Forbidden"},
            {"expression": "variables.n < 2"},
            {"expression": "variables.n < 100"}
        ],
        "auditAnnotations": [{"key": "who", "valueExpression": "request.userInfo.username"}]
    });
    let verdict = verdict_on(spec, &json!({"spec": {"replicas": 5}}));
    let messages: Vec<(&str, &str, Option<usize>)> = verdict
        .failures
        .iter()
        .map(|f| (f.message.as_str(), f.reason, f.index))
        .collect();
    assert_eq!(
        messages,
        [
            ("twice is 10", "Invalid", Some(0)),
            ("too many", "Forbidden", Some(1)),
            ("failed expression: variables.n < 2", "Invalid", Some(2)),
        ]
    );
    assert_eq!(
        verdict.annotations,
        [("who".to_string(), "alice".to_string())]
    );
}

#[test]
fn match_conditions_skip_and_failure_policies_decide_errors() {
    let conditional = json!({
        "matchConditions": [{"name": "big", "expression": "object.spec.replicas > 3"}],
        "validations": [{"expression": "false"}]
    });
    assert!(verdict_on(conditional.clone(), &json!({"spec": {"replicas": 1}})).skipped);
    assert_eq!(
        verdict_on(conditional, &json!({"spec": {"replicas": 9}}))
            .failures
            .len(),
        1
    );
    let broken = |policy: &str| json!({"failurePolicy": policy, "validations": [{"expression": "object.spec.missing == 1"}]});
    assert!(
        verdict_on(broken("Ignore"), &json!({"spec": {}}))
            .failures
            .is_empty()
    );
    let failed = verdict_on(broken("Fail"), &json!({"spec": {}}));
    assert!(
        failed.failures[0]
            .message
            .starts_with("expression 'object.spec.missing == 1' resulted in error: "),
        "{:?}",
        failed.failures
    );
}

#[test]
fn expensive_expressions_are_cut_off_by_the_cost_limits() {
    let items = |n: usize| json!({"items": (0..n).collect::<Vec<_>>()});
    let quadratic = "object.items.all(a, object.items.exists(b, b == a))";
    let one = json!({"validations": [{"expression": quadratic}]});
    let failed = verdict_on(one.clone(), &items(2000));
    assert_eq!(failed.failures.len(), 1, "{:?}", failed.failures);
    assert!(
        failed.failures[0]
            .message
            .contains("operation cancelled: actual cost limit exceeded"),
        "{:?}",
        failed.failures
    );
    assert!(verdict_on(one, &items(50)).failures.is_empty());

    let many = json!({"validations": vec![json!({"expression": quadratic}); 40]});
    let failed = verdict_on(many, &items(300));
    assert!(
        failed
            .failures
            .iter()
            .any(|f| f.message.contains("cost budget")),
        "{:?}",
        failed.failures
    );
    assert!(failed.failures.len() < 40, "the first ones fit the budget");
}

#[test]
fn the_request_resource_check_asks_about_what_the_request_addresses() {
    use std::sync::Arc;

    use crate::api::cel::{Addressed, Requester};
    use crate::request::authz::{Attributes, Authorizer, Authorizers, Decision};
    use crate::request::info::RequestInfo;
    use crate::request::user::UserInfo;
    use crate::util::maybe_async::MaybeAsync;

    /// Allows `delete` only; keeps what it was asked.
    struct DeletesOnly(std::sync::Mutex<Vec<RequestInfo>>);
    impl Authorizer for DeletesOnly {
        fn authorize<'a>(
            &'a self,
            attrs: &'a Attributes<'a>,
        ) -> MaybeAsync<'a, Result<Decision, crate::api::error::ApiError>> {
            self.0.lock().unwrap().push(attrs.info.clone());
            MaybeAsync::Ready(Ok(if attrs.info.verb == "delete" {
                Decision::Allow
            } else {
                Decision::NoOpinion(String::new())
            }))
        }
    }
    let asker = Arc::new(DeletesOnly(std::sync::Mutex::default()));
    let authorizers = Arc::new(Authorizers::new(vec![asker.clone()]));
    let user = Arc::new(UserInfo::new("alice", &["devs"]));
    let binding = Requester {
        user: Some(&user),
        authorizers: &authorizers,
    }
    .binding(&Addressed {
        group: "apps",
        resource: "deployments",
        subresource: "scale",
        namespace: "team",
        name: "web",
    });
    let policy = compiled_policy(json!({"validations": [
        {"expression": "authorizer.requestResource.check('delete').allowed()"},
        {"expression": "authorizer.requestResource.check('patch').allowed()", "message": "no patch"}
    ]}));
    let null = Value::Null;
    let request = json!({"operation": "UPDATE"});
    let verdict = evaluate(
        &policy,
        &Inputs {
            object: &null,
            old_object: &null,
            request: &request,
            params: &null,
            namespace_object: &null,
            authorizer: Some(&binding),
        },
    );
    let messages: Vec<&str> = verdict
        .failures
        .iter()
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(messages, ["no patch"]);
    let asked = asker.0.lock().unwrap();
    let target = asked[0].resource.as_ref().expect("a resource check");
    assert_eq!(
        (
            target.group.as_str(),
            target.resource.as_str(),
            target.subresource.as_deref(),
            target.namespace.as_deref(),
            target.name.as_deref()
        ),
        (
            "apps",
            "deployments",
            Some("scale"),
            Some("team"),
            Some("web")
        )
    );
}

#[test]
fn variables_are_evaluated_only_when_named_and_their_failures_reported() {
    let spec = json!({
        "variables": [
            {"name": "broken", "expression": "object.spec.missing + 1"},
            {"name": "replicas", "expression": "object.spec.replicas"},
            {"name": "selfish", "expression": "variables.selfish"}
        ],
        "validations": [
            {"expression": "variables.replicas < 10"},
            {"expression": "variables.broken > 0"},
            {"expression": "variables.broken > 1"},
            {"expression": "variables.selfish"}
        ]
    });
    let verdict = verdict_on(spec, &json!({"spec": {"replicas": 5}}));
    let messages: Vec<(&str, Option<usize>)> = verdict
        .failures
        .iter()
        .map(|f| (f.message.as_str(), f.index))
        .collect();
    assert_eq!(messages.len(), 3, "{messages:?}");
    for (message, index) in &messages[..2] {
        assert!(
            message
                .contains("resulted in error: composited variable \"broken\" fails to evaluate: "),
            "{index:?}: {message}"
        );
    }
    assert!(
        messages[2]
            .0
            .contains("composited variable \"selfish\" fails to evaluate"),
        "{messages:?}"
    );
    let unused = json!({
        "variables": [{"name": "broken", "expression": "object.spec.missing + 1"}],
        "validations": [{"expression": "object.spec.replicas < 10"}]
    });
    assert!(
        verdict_on(unused, &json!({"spec": {"replicas": 5}}))
            .failures
            .is_empty(),
        "a variable nothing names is never evaluated"
    );
}
