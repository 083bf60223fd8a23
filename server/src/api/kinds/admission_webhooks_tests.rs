//! Webhook configuration defaults and validation messages.

use serde_json::json;

use super::*;

fn lines(obj: &Value, mutating: bool) -> Vec<String> {
    crate::api::kinds::cause_lines(&webhook_errors(obj, mutating))
}

fn good() -> Value {
    json!({"webhooks": [{
        "name": "deny.example.com",
        "clientConfig": {"url": "https://127.0.0.1:9443/validate"},
        "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"]
    }]})
}

#[test]
fn defaults_are_kubes() {
    let mut obj = good();
    default_webhooks(&mut obj, true);
    let hook = &obj["webhooks"][0];
    assert_eq!(hook["failurePolicy"], "Fail");
    assert_eq!(hook["matchPolicy"], "Equivalent");
    assert_eq!(hook["timeoutSeconds"], 10);
    assert_eq!(hook["namespaceSelector"], json!({}));
    assert_eq!(hook["objectSelector"], json!({}));
    assert_eq!(hook["reinvocationPolicy"], "Never");
    assert_eq!(hook["rules"][0]["scope"], "*");
    assert!(lines(&obj, true).is_empty(), "{:?}", lines(&obj, true));
}

#[test]
fn problems_are_worded_as_kube_words_them() {
    let obj = json!({"webhooks": [
        {"name": "short", "clientConfig": {"url": "http://x/"}, "sideEffects": "Some",
         "admissionReviewVersions": ["v2"], "timeoutSeconds": 31},
        {"name": "a.b.c", "clientConfig": {}, "admissionReviewVersions": []},
        {"name": "a.b.c", "clientConfig": {"url": "https://h/p?q=1"}, "sideEffects": "None",
         "admissionReviewVersions": ["v1"], "failurePolicy": "Maybe"}
    ]});
    assert_eq!(
        lines(&obj, false),
        [
            "webhooks[0].name: Invalid value: \"short\": should be a domain with at least three segments separated by dots",
            "webhooks[0].sideEffects: Unsupported value: \"Some\": supported values: \"None\", \"NoneOnDryRun\"",
            "webhooks[0].admissionReviewVersions: Invalid value: []string{\"v2\"}: must include at least one of v1, v1beta1",
            "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds",
            "webhooks[0].clientConfig.url: Invalid value: \"http://x/\": 'https' is the only allowed URL scheme",
            "webhooks[1].sideEffects: Required value: must specify one of None, NoneOnDryRun",
            "webhooks[1].admissionReviewVersions: Required value: must specify one of v1, v1beta1",
            "webhooks[1].clientConfig: Required value: exactly one of url or service is required",
            "webhooks[2].name: Duplicate value: \"a.b.c\"",
            "webhooks[2].failurePolicy: Unsupported value: \"Maybe\": supported values: \"Fail\", \"Ignore\"",
            "webhooks[2].clientConfig.url: Invalid value: \"https://h/p?q=1\": query parameters are not permitted in the URL",
        ]
    );
}

#[test]
fn rules_need_their_lists() {
    let obj = json!({"webhooks": [{
        "name": "r.example.com", "clientConfig": {"service": {"namespace": "ns", "name": "svc", "port": 0}},
        "rules": [{"operations": ["*", "CREATE"], "apiGroups": [], "apiVersions": ["v1"], "resources": ["a/b/c"], "scope": "Global"}],
        "sideEffects": "None", "admissionReviewVersions": ["v1beta1"]
    }]});
    let found = lines(&obj, false);
    assert!(
        found
            .iter()
            .any(|l| l.starts_with("webhooks[0].rules[0].operations: Invalid value")),
        "{found:?}"
    );
    assert!(
        found.contains(&"webhooks[0].rules[0].apiGroups: Required value".to_string()),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|l| l.starts_with("webhooks[0].rules[0].resources[0]: Invalid value")),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|l| l.starts_with("webhooks[0].rules[0].scope: Unsupported value: \"Global\"")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|l| l.contains("port is not valid")),
        "{found:?}"
    );
}
