//! Every validation rule of AuthorizationConfiguration, each with the one
//! line kube-apiserver prints for it; decoding, defaults and the type.

use std::time::Duration;

use serde_json::{Value, json};

use super::{AuthorizerKind, Connection, FailurePolicy, Problem, ReviewVersion, parse};

/// A kubeconfig file that exists for as long as the test runs.
struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn new() -> Files {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("webhook.kubeconfig"), "apiVersion: v1\n").expect("write");
        Files { dir }
    }

    fn kubeconfig(&self) -> String {
        self.dir
            .path()
            .join("webhook.kubeconfig")
            .display()
            .to_string()
    }

    /// A valid configuration: a webhook, then RBAC.
    fn base(&self) -> Value {
        json!({
            "apiVersion": "apiserver.config.k8s.io/v1",
            "kind": "AuthorizationConfiguration",
            "authorizers": [{
                "type": "Webhook",
                "name": "hook",
                "webhook": {
                    "timeout": "3s",
                    "subjectAccessReviewVersion": "v1",
                    "matchConditionSubjectAccessReviewVersion": "v1",
                    "failurePolicy": "Deny",
                    "connectionInfo": {"type": "KubeConfigFile", "kubeConfigFile": self.kubeconfig()},
                    "matchConditions": [{"expression": "has(request.resourceAttributes)"}]
                }
            }, {"type": "RBAC", "name": "rbac"}]
        })
    }

    /// `base()` with `authorizers[0].webhook.<key>` set (`null` removes it).
    fn webhook_with(&self, key: &str, value: Value) -> Value {
        let mut doc = self.base();
        let webhook = doc["authorizers"][0]["webhook"]
            .as_object_mut()
            .expect("webhook");
        if value.is_null() {
            webhook.remove(key);
        } else {
            webhook.insert(key.into(), value);
        }
        doc
    }
}

fn line(doc: &Value) -> String {
    match parse(doc.to_string().as_bytes(), "k8s.io") {
        Ok(_) => "ok".into(),
        Err(Problem::Invalid(l) | Problem::Load(l)) => l,
    }
}

fn authorizers(list: Value) -> Value {
    json!({
        "apiVersion": "apiserver.config.k8s.io/v1beta1",
        "kind": "AuthorizationConfiguration",
        "authorizers": list
    })
}

#[test]
fn a_valid_configuration_is_compiled_with_defaults() {
    let files = Files::new();
    let config = parse(files.base().to_string().as_bytes(), "k8s.io").expect("valid");
    assert_eq!(config.authorizers.len(), 2);
    let AuthorizerKind::Webhook(hook) = &config.authorizers[0].kind else {
        panic!("a webhook first");
    };
    assert_eq!(hook.name, "hook");
    assert_eq!(hook.timeout, Duration::from_secs(3));
    assert_eq!(hook.authorized_ttl, Some(Duration::from_secs(300)));
    assert_eq!(hook.unauthorized_ttl, Some(Duration::from_secs(30)));
    assert_eq!(hook.review_version, ReviewVersion::V1);
    assert_eq!(hook.failure_policy, FailurePolicy::Deny);
    assert_eq!(
        hook.connection,
        Connection::KubeConfigFile(files.kubeconfig().into())
    );
    assert_eq!(hook.match_conditions.len(), 1);
    assert!(matches!(config.authorizers[1].kind, AuthorizerKind::Rbac));
}

#[test]
fn yaml_versions_and_caching_switches() {
    let yaml = "apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: Webhook\n  name: in-cluster\n  webhook:\n    timeout: 1m0s\n    authorizedTTL: 1m\n    cacheAuthorizedRequests: false\n    unauthorizedTTL: 10s\n    subjectAccessReviewVersion: v1beta1\n    failurePolicy: NoOpinion\n    connectionInfo:\n      type: InClusterConfig\n- type: AlwaysDeny\n  name: deny\n";
    let got = parse(yaml.as_bytes(), "k8s.io").map(|_| ()).unwrap_err();
    assert_eq!(
        got,
        Problem::Invalid(
            "authorizers[0].timeout: Invalid value: \"1m0s\": must be > 0s and <= 30s".into()
        )
    );
    let config = parse(yaml.replace("1m0s", "30s").as_bytes(), "k8s.io").expect("valid");
    let AuthorizerKind::Webhook(hook) = &config.authorizers[0].kind else {
        panic!("a webhook");
    };
    assert_eq!(hook.authorized_ttl, None);
    assert_eq!(hook.unauthorized_ttl, Some(Duration::from_secs(10)));
    assert_eq!(hook.review_version, ReviewVersion::V1beta1);
    assert_eq!(hook.connection, Connection::InCluster);
    assert!(matches!(
        config.authorizers[1].kind,
        AuthorizerKind::AlwaysDeny
    ));
}

#[test]
fn the_type_at_the_configured_domain_and_strict_decoding() {
    let files = Files::new();
    let mut doc = files.base();
    doc["apiVersion"] = json!("apiserver.config.svc.io/v1");
    assert_eq!(
        line(&doc),
        "no kind \"AuthorizationConfiguration\" is registered for version \"apiserver.config.svc.io/v1\""
    );
    assert!(parse(doc.to_string().as_bytes(), "svc.io").is_ok());
    doc["kind"] = json!("AuthenticationConfiguration");
    assert!(
        parse(doc.to_string().as_bytes(), "svc.io")
            .is_err_and(|e| matches!(e, Problem::Load(l) if l.starts_with("no kind")))
    );
    assert_eq!(
        line(&files.webhook_with("colour", json!("red"))),
        "strict decoding error: unknown field \"authorizers[0].webhook.colour\""
    );
    assert_eq!(
        line(&files.webhook_with("timeout", json!(3))),
        "strict decoding error: authorizers[0].webhook.timeout: cannot unmarshal number into a value of type string"
    );
    assert_eq!(
        line(&files.webhook_with("timeout", json!("soon"))),
        "strict decoding error: authorizers[0].webhook.timeout: time: invalid duration \"soon\""
    );
}

#[test]
fn authorizers_are_required() {
    assert_eq!(
        line(&authorizers(json!([]))),
        "authorizers: Required value: at least one authorization mode must be defined"
    );
}

#[test]
fn type_is_required_and_known() {
    assert_eq!(
        line(&authorizers(json!([{"name": "a"}]))),
        "authorizers[0].type: Required value"
    );
    for unsupported in ["Node", "ABAC", "Magic"] {
        assert_eq!(
            line(&authorizers(json!([{"type": unsupported, "name": "a"}]))),
            format!(
                "authorizers[0].type: Unsupported value: \"{unsupported}\": supported values: \"AlwaysAllow\", \"AlwaysDeny\", \"RBAC\", \"Webhook\""
            )
        );
    }
}

#[test]
fn non_webhook_types_appear_once() {
    assert_eq!(
        line(&authorizers(
            json!([{"type": "RBAC", "name": "a"}, {"type": "RBAC", "name": "b"}])
        )),
        "authorizers[1].type: Duplicate value: \"RBAC\""
    );
}

#[test]
fn webhooks_may_repeat_under_unique_names() {
    let files = Files::new();
    let mut doc = files.base();
    let second = doc["authorizers"][0].clone();
    doc["authorizers"]
        .as_array_mut()
        .expect("list")
        .push(second);
    assert_eq!(line(&doc), "authorizers[2].name: Duplicate value: \"hook\"");
    doc["authorizers"][2]["name"] = json!("other-hook");
    assert_eq!(line(&doc), "ok");
}

#[test]
fn name_is_required_and_a_dns_label() {
    assert_eq!(
        line(&authorizers(json!([{"type": "RBAC"}]))),
        "authorizers[0].name: Required value"
    );
    assert_eq!(
        line(&authorizers(json!([{"type": "RBAC", "name": "Bad_Name"}]))),
        "authorizers[0].name: Invalid value: \"Bad_Name\": authorizer name is invalid: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
    );
}

#[test]
fn webhook_is_required_exactly_for_webhooks() {
    assert_eq!(
        line(&authorizers(json!([{"type": "Webhook", "name": "w"}]))),
        "authorizers[0].webhook: Required value: required when type=Webhook"
    );
    assert_eq!(
        line(&authorizers(
            json!([{"type": "AlwaysAllow", "name": "a", "webhook": {}}])
        )),
        "authorizers[0].webhook: Invalid value: \"non-null\": may only be specified when type=Webhook"
    );
}

#[test]
fn timeout_is_required_positive_and_at_most_30s() {
    let files = Files::new();
    assert_eq!(
        line(&files.webhook_with("timeout", Value::Null)),
        "authorizers[0].timeout: Required value"
    );
    assert_eq!(
        line(&files.webhook_with("timeout", json!("45s"))),
        "authorizers[0].timeout: Invalid value: \"45s\": must be > 0s and <= 30s"
    );
    assert_eq!(
        line(&files.webhook_with("timeout", json!("-30s"))),
        "authorizers[0].timeout: Invalid value: \"-30s\": must be > 0s and <= 30s"
    );
    assert_eq!(line(&files.webhook_with("timeout", json!("30s"))), "ok");
}

#[test]
fn ttls_are_positive_when_written() {
    let files = Files::new();
    assert_eq!(
        line(&files.webhook_with("authorizedTTL", json!("0s"))),
        "authorizers[0].authorizedTTL: Required value"
    );
    assert_eq!(
        line(&files.webhook_with("unauthorizedTTL", json!("-1m"))),
        "authorizers[0].unauthorizedTTL: Invalid value: \"-1m0s\": must be > 0s"
    );
}

#[test]
fn review_version_is_required_and_v1_or_v1beta1() {
    let files = Files::new();
    assert_eq!(
        line(&files.webhook_with("subjectAccessReviewVersion", Value::Null)),
        "authorizers[0].subjectAccessReviewVersion: Required value"
    );
    assert_eq!(
        line(&files.webhook_with("subjectAccessReviewVersion", json!("v2"))),
        "authorizers[0].subjectAccessReviewVersion: Unsupported value: \"v2\": supported values: \"v1\", \"v1beta1\""
    );
}

#[test]
fn match_condition_version_is_v1_and_needed_with_conditions() {
    let files = Files::new();
    assert_eq!(
        line(&files.webhook_with("matchConditionSubjectAccessReviewVersion", Value::Null)),
        "authorizers[0].matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified"
    );
    assert_eq!(
        line(&files.webhook_with("matchConditionSubjectAccessReviewVersion", json!("v1beta1"))),
        "authorizers[0].matchConditionSubjectAccessReviewVersion: Unsupported value: \"v1beta1\": supported values: \"v1\""
    );
    let mut doc = files.webhook_with("matchConditionSubjectAccessReviewVersion", Value::Null);
    doc["authorizers"][0]["webhook"]["matchConditions"] = json!([]);
    assert_eq!(line(&doc), "ok");
}

#[test]
fn failure_policy_is_required_and_known() {
    let files = Files::new();
    assert_eq!(
        line(&files.webhook_with("failurePolicy", Value::Null)),
        "authorizers[0].failurePolicy: Required value"
    );
    assert_eq!(
        line(&files.webhook_with("failurePolicy", json!("Allow"))),
        "authorizers[0].failurePolicy: Unsupported value: \"Allow\": supported values: \"NoOpinion\", \"Deny\""
    );
}

#[test]
fn connection_type_is_required_and_known() {
    let files = Files::new();
    assert_eq!(
        line(&files.webhook_with("connectionInfo", json!({}))),
        "authorizers[0].connectionInfo.type: Required value"
    );
    assert_eq!(
        line(&files.webhook_with("connectionInfo", json!({"type": "Carrier"}))),
        "authorizers[0].connectionInfo.type: Unsupported value: \"Carrier\": supported values: \"InClusterConfig\", \"KubeConfigFile\""
    );
}

#[test]
fn kubeconfig_file_only_with_its_type_and_existing() {
    let files = Files::new();
    let info = |v: Value| line(&files.webhook_with("connectionInfo", v));
    assert_eq!(
        info(json!({"type": "InClusterConfig", "kubeConfigFile": files.kubeconfig()})),
        format!(
            "authorizers[0].connectionInfo.kubeConfigFile: Invalid value: \"{}\": can only be set when type=KubeConfigFile",
            files.kubeconfig()
        )
    );
    assert_eq!(
        info(json!({"type": "KubeConfigFile"})),
        "authorizers[0].connectionInfo.kubeConfigFile: Required value"
    );
    assert_eq!(
        info(json!({"type": "KubeConfigFile", "kubeConfigFile": "webhook.kubeconfig"})),
        "authorizers[0].connectionInfo.kubeConfigFile: Invalid value: \"webhook.kubeconfig\": must be an absolute path"
    );
    assert_eq!(
        info(json!({"type": "KubeConfigFile", "kubeConfigFile": "/nonexistent/k"})),
        "authorizers[0].connectionInfo.kubeConfigFile: Invalid value: \"/nonexistent/k\": error loading file: stat /nonexistent/k: no such file or directory"
    );
    let dir = files.dir.path().display().to_string();
    assert_eq!(
        info(json!({"type": "KubeConfigFile", "kubeConfigFile": dir})),
        format!(
            "authorizers[0].connectionInfo.kubeConfigFile: Invalid value: \"{dir}\": must be a regular file"
        )
    );
}

#[test]
fn at_most_64_match_conditions() {
    let files = Files::new();
    let many: Vec<Value> = (0..65)
        .map(|i| json!({"expression": format!("request.user == 'u{i}'")}))
        .collect();
    assert_eq!(
        line(&files.webhook_with("matchConditions", json!(many))),
        "authorizers[0].matchConditions: Too many: 65: must have at most 64 items"
    );
}

#[test]
fn match_conditions_are_present_and_unique() {
    let files = Files::new();
    assert_eq!(
        line(&files.webhook_with("matchConditions", json!([{"expression": "  "}]))),
        "authorizers[0].matchConditions[0].expression: Required value"
    );
    let twice = json!([{"expression": "true"}, {"expression": "true"}]);
    assert_eq!(
        line(&files.webhook_with("matchConditions", twice)),
        "authorizers[0].matchConditions[1].expression: Duplicate value: \"true\""
    );
}

#[test]
fn match_conditions_compile_to_booleans_over_request() {
    let files = Files::new();
    let one = |e: &str| line(&files.webhook_with("matchConditions", json!([{"expression": e}])));
    assert!(
        one("request.user ==").starts_with(
            "authorizers[0].matchConditions[0].expression: Invalid value: \"request.user ==\": compilation failed: "
        )
    );
    assert_eq!(
        one("claims.sub == 'x'"),
        "authorizers[0].matchConditions[0].expression: Invalid value: \"claims.sub == 'x'\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'claims' (in container '')"
    );
    assert_eq!(
        one("'yes'"),
        "authorizers[0].matchConditions[0].expression: Invalid value: \"'yes'\": must evaluate to bool"
    );
    assert_eq!(
        one("request.verb == 'get'"),
        "authorizers[0].matchConditions[0].expression: Invalid value: \"request.verb == 'get'\": compilation failed: ERROR: <input>:1:1: undefined field 'verb'"
    );
    assert_eq!(one("request.user.startsWith('system:')"), "ok");
}

#[test]
fn every_problem_is_reported_on_one_line() {
    let files = Files::new();
    let mut doc = files.webhook_with("timeout", json!("31s"));
    doc["authorizers"][0]["webhook"]["failurePolicy"] = json!("Sometimes");
    let got = line(&doc);
    assert_eq!(
        got,
        "[authorizers[0].timeout: Invalid value: \"31s\": must be > 0s and <= 30s, authorizers[0].failurePolicy: Unsupported value: \"Sometimes\": supported values: \"NoOpinion\", \"Deny\"]"
    );
    assert!(!got.contains('\n'));
}
