//! `--authorization-config` at start-up: the real binary refuses every
//! invalid AuthorizationConfiguration with a non-zero exit and one line on
//! stderr naming the field path and the rule, as kube-apiserver does, and
//! writes nothing. One test per rule group.

use std::path::Path;

use serde_json::{Value, json};

fn config(authorizers: Value) -> String {
    json!({
        "apiVersion": "apiserver.config.k8s.io/v1",
        "kind": "AuthorizationConfiguration",
        "authorizers": authorizers
    })
    .to_string()
}

/// The refusal of `text` as `--authorization-config` (with `extra` flags).
fn refusal(text: &str, extra: &[&str]) -> String {
    cairn_tests::start_refused("--authorization-config", text, extra)
}

fn refused(authorizers: Value, line: &str) {
    let got = refusal(&config(authorizers), &[]);
    assert!(got.ends_with(line), "got: {got}\nwanted: {line}");
}

/// A valid webhook entry (its kubeconfig in `dir`) with `key` set (`null` removes it).
fn hook_with(dir: &Path, key: &str, value: Value) -> Value {
    let kubeconfig = dir.join("k.kubeconfig");
    std::fs::write(
        &kubeconfig,
        "clusters: [{name: k, cluster: {server: 'http://127.0.0.1:9'}}]\n",
    )
    .expect("write");
    let mut entry = json!({
        "type": "Webhook",
        "name": "hook",
        "webhook": {
            "timeout": "3s",
            "subjectAccessReviewVersion": "v1",
            "matchConditionSubjectAccessReviewVersion": "v1",
            "failurePolicy": "NoOpinion",
            "connectionInfo": {"type": "KubeConfigFile", "kubeConfigFile": kubeconfig},
            "matchConditions": [{"expression": "has(request.resourceAttributes)"}]
        }
    });
    let webhook = entry["webhook"].as_object_mut().expect("webhook");
    if value.is_null() {
        webhook.remove(key);
    } else {
        webhook.insert(key.into(), value);
    }
    entry
}

#[test]
fn authorizers_types_and_names_are_checked_at_start() {
    refused(
        json!([]),
        "authorizers: Required value: at least one authorization mode must be defined",
    );
    refused(
        json!([{"type": "Node", "name": "node"}]),
        "authorizers[0].type: Unsupported value: \"Node\": supported values: \"AlwaysAllow\", \"AlwaysDeny\", \"RBAC\", \"Webhook\"",
    );
    refused(
        json!([{"type": "RBAC", "name": "a"}, {"type": "RBAC", "name": "b"}]),
        "authorizers[1].type: Duplicate value: \"RBAC\"",
    );
    refused(
        json!([{"type": "RBAC"}]),
        "authorizers[0].name: Required value",
    );
    refused(
        json!([{"type": "AlwaysAllow", "name": "a"}, {"type": "AlwaysDeny", "name": "a"}]),
        "authorizers[1].name: Duplicate value: \"a\"",
    );
    assert!(
        refusal(
            &config(json!([{"type": "RBAC", "name": "Not_A_Label"}])),
            &[]
        )
        .contains(
            "authorizers[0].name: Invalid value: \"Not_A_Label\": authorizer name is invalid"
        )
    );
}

#[test]
fn webhook_presence_is_checked_at_start() {
    refused(
        json!([{"type": "Webhook", "name": "w"}]),
        "authorizers[0].webhook: Required value: required when type=Webhook",
    );
    refused(
        json!([{"type": "RBAC", "name": "r", "webhook": {}}]),
        "authorizers[0].webhook: Invalid value: \"non-null\": may only be specified when type=Webhook",
    );
}

#[test]
fn webhook_durations_versions_and_policy_are_checked_at_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    refused(
        json!([hook_with(d, "timeout", Value::Null)]),
        "authorizers[0].timeout: Required value",
    );
    refused(
        json!([hook_with(d, "timeout", json!("45s"))]),
        "authorizers[0].timeout: Invalid value: \"45s\": must be > 0s and <= 30s",
    );
    refused(
        json!([hook_with(d, "authorizedTTL", json!("-1s"))]),
        "authorizers[0].authorizedTTL: Invalid value: \"-1s\": must be > 0s",
    );
    refused(
        json!([hook_with(d, "subjectAccessReviewVersion", json!("v2"))]),
        "authorizers[0].subjectAccessReviewVersion: Unsupported value: \"v2\": supported values: \"v1\", \"v1beta1\"",
    );
    refused(
        json!([hook_with(
            d,
            "matchConditionSubjectAccessReviewVersion",
            Value::Null
        )]),
        "authorizers[0].matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified",
    );
    refused(
        json!([hook_with(d, "failurePolicy", json!("Maybe"))]),
        "authorizers[0].failurePolicy: Unsupported value: \"Maybe\": supported values: \"NoOpinion\", \"Deny\"",
    );
}

#[test]
fn webhook_connections_are_checked_at_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    refused(
        json!([hook_with(d, "connectionInfo", json!({"type": "Pigeon"}))]),
        "authorizers[0].connectionInfo.type: Unsupported value: \"Pigeon\": supported values: \"InClusterConfig\", \"KubeConfigFile\"",
    );
    refused(
        json!([hook_with(
            d,
            "connectionInfo",
            json!({"type": "KubeConfigFile", "kubeConfigFile": "/nonexistent/k"})
        )]),
        "authorizers[0].connectionInfo.kubeConfigFile: Invalid value: \"/nonexistent/k\": error loading file: stat /nonexistent/k: no such file or directory",
    );
    refused(
        json!([hook_with(
            d,
            "connectionInfo",
            json!({"type": "KubeConfigFile"})
        )]),
        "authorizers[0].connectionInfo.kubeConfigFile: Required value",
    );
}

#[test]
fn match_conditions_are_checked_at_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let many: Vec<Value> = (0..65)
        .map(|i| json!({"expression": format!("request.uid == '{i}'")}))
        .collect();
    refused(
        json!([hook_with(d, "matchConditions", json!(many))]),
        "authorizers[0].matchConditions: Too many: 65: must have at most 64 items",
    );
    refused(
        json!([hook_with(
            d,
            "matchConditions",
            json!([{"expression": "true"}, {"expression": "true"}])
        )]),
        "authorizers[0].matchConditions[1].expression: Duplicate value: \"true\"",
    );
    assert!(
        refusal(&config(json!([hook_with(d, "matchConditions", json!([{"expression": "request.user =="}]))])), &[])
            .contains("authorizers[0].matchConditions[0].expression: Invalid value: \"request.user ==\": compilation failed")
    );
}

#[test]
fn the_file_and_the_mode_flag_are_exclusive_and_the_kind_is_checked() {
    let valid = config(json!([{"type": "RBAC", "name": "rbac"}]));
    assert!(refusal(&valid, &["--authorization-mode", "RBAC"]).contains("cannot both be set"));
    let wrong_kind = valid.replace("AuthorizationConfiguration", "AuthenticationConfiguration");
    assert!(
        refusal(&wrong_kind, &[]).contains("no kind \"AuthenticationConfiguration\" is registered")
    );
}
