//! How webhooks are reached and what version they see: a webhook behind a
//! Service (dialled at its endpoint, its certificate checked against
//! `<name>.<namespace>.svc`), the credentials a WebhookAdmissionConfiguration's
//! kubeconfig gives each webhook host, and `matchPolicy: Equivalent`
//! calling a webhook with the version its rules name, the patch taken
//! back to the version written.

use cairn_tests::{Server, wait_until};
use serde_json::{Value, json};

use super::hook::{Hook, patch};
use super::{CONFIGMAPS, MUTATING, VALIDATING, configmap, configmaps_rule, configuration, install};

const SECRETS: &str = "/api/v1/namespaces/default/secrets";
const HPA_V1: &str = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";
const HPA_V2: &str = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";

fn allow(_: &Value) -> Value {
    json!({"allowed": true})
}

fn secret(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}})
}

/// Service `name` in `default` on port 443, its Endpoints at the hook.
fn front_with_service(s: &Server, name: &str, hook: &Hook) {
    let service = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
        "spec": {"ports": [{"port": 443, "targetPort": hook.port}]}});
    let r = s.post("/api/v1/namespaces/default/services", &service);
    assert_eq!(r.status, 201, "{}", r.text());
    let endpoints = json!({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": name},
        "subsets": [{"addresses": [{"ip": "127.0.0.1"}], "ports": [{"port": hook.port}]}]});
    let r = s.post("/api/v1/namespaces/default/endpoints", &endpoints);
    assert_eq!(r.status, 201, "{}", r.text());
}

fn by_service(hook: &Hook, name: &str, service: &str, rules: Value) -> Value {
    let mut entry = hook.entry(name, rules, json!({}));
    entry["clientConfig"] = json!({
        "service": {"namespace": "default", "name": service, "path": "/admit", "port": 443},
        "caBundle": hook.ca_bundle,
    });
    entry
}

fn secrets_rule() -> Value {
    json!([{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["secrets"]}])
}

/// Writes the AdmissionConfiguration naming a kubeconfig whose users are
/// `users` (name, token); returns the flags that load it.
fn admission_config(dir: &std::path::Path, users: &[(&str, &str)]) -> Vec<String> {
    let entries: Vec<Value> = users
        .iter()
        .map(|(name, token)| json!({"name": name, "user": {"token": token}}))
        .collect();
    let kubeconfig = dir.join("webhooks.kubeconfig");
    std::fs::write(&kubeconfig, json!({"users": entries}).to_string()).expect("write");
    let config = dir.join("admission.yaml");
    std::fs::write(
        &config,
        format!(
            "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n\
             - name: ValidatingAdmissionWebhook\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n\
             \x20   kind: WebhookAdmissionConfiguration\n    kubeConfigFile: {}\n",
            kubeconfig.display()
        ),
    )
    .expect("write");
    vec![
        "--admission-control-config-file".into(),
        config.display().to_string(),
    ]
}

#[test]
fn service_webhooks_are_reached_at_their_endpoints_with_the_kubeconfig_credentials() {
    let dir = tempfile::tempdir().expect("tempdir");
    let hook = Hook::start_named(allow, &["hook.default.svc"]);
    let url_user = format!("127.0.0.1:{}", hook.port);
    let mut flags = admission_config(
        dir.path(),
        &[
            (url_user.as_str(), "url-token"),
            ("hook.default.svc", "service-token"),
            ("*", "fallback-token"),
        ],
    );
    flags.extend(["--api-domain".into(), "k8s.io".into()]);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let s = Server::start(&flags);
    front_with_service(&s, "hook", &hook);

    let config = configuration(
        VALIDATING,
        "reach",
        vec![
            hook.entry("url.cairn.test", configmaps_rule(), json!({})),
            by_service(&hook, "service.cairn.test", "hook", secrets_rule()),
            by_service(
                &hook,
                "gone.cairn.test",
                "gone",
                json!([{"operations": ["CREATE"],
                "apiGroups": [""], "apiVersions": ["v1"], "resources": ["serviceaccounts"]}]),
            ),
        ],
    );
    install(&s, VALIDATING, &config, |s, probe| {
        s.post(SECRETS, &secret(&format!("probe-{probe}"))).status == 201
            && hook
                .reviews()
                .iter()
                .any(|r| r["request"]["kind"]["kind"] == "Secret")
    });
    let r = s.post(CONFIGMAPS, &configmap("by-url", json!({})));
    assert_eq!(r.status, 201, "{}", r.text());
    let calls = hook.received();
    let token_of = |kind: &str| {
        calls
            .iter()
            .find(|r| r.review["request"]["kind"]["kind"] == kind)
            .and_then(|r| r.authorization.clone())
    };
    // kube's client names the webhook's timeout in the query.
    assert!(
        calls.iter().all(|r| r.target == "/admit?timeout=10s"),
        "{:?}",
        calls.iter().map(|r| &r.target).collect::<Vec<_>>()
    );
    assert_eq!(token_of("ConfigMap").as_deref(), Some("Bearer url-token"));
    assert_eq!(token_of("Secret").as_deref(), Some("Bearer service-token"));

    // A Service that does not exist fails the call (failurePolicy Fail).
    let account = json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"}});
    let r = s.post("/api/v1/namespaces/default/serviceaccounts", &account);
    assert_eq!(r.status, 500, "{}", r.text());
    let message = r.json()["message"].as_str().unwrap_or_default().to_string();
    assert!(
        message.starts_with("Internal error occurred: failed calling webhook \"gone.cairn.test\"")
            && message.contains("service \"gone\" not found"),
        "{message}"
    );
    assert!(!message.contains("token"), "{message}");
}

/// Labels the object with the version the webhook was called with.
fn label_with_version(request: &Value) -> Value {
    let version = request["kind"]["version"].clone();
    if request["object"]["metadata"]["labels"].is_object() {
        patch(&json!([{"op": "add", "path": "/metadata/labels/seen", "value": version}]))
    } else {
        patch(&json!([{"op": "add", "path": "/metadata/labels", "value": {"seen": version}}]))
    }
}

fn hpa_v1_rule() -> Value {
    json!([{"operations": ["CREATE"], "apiGroups": ["autoscaling"], "apiVersions": ["v1"],
        "resources": ["horizontalpodautoscalers"]}])
}

fn hpa_v2(name: &str) -> Value {
    json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "maxReplicas": 4,
            "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": 55}}}]}})
}

#[test]
fn equivalent_match_policy_calls_with_the_rules_version_and_maps_the_patch_back() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let equivalent = Hook::start(label_with_version);
    let exact = Hook::start(label_with_version);
    let config = configuration(
        MUTATING,
        "versions",
        vec![
            equivalent.entry("equivalent.cairn.test", hpa_v1_rule(), json!({})),
            exact.entry(
                "exact.cairn.test",
                hpa_v1_rule(),
                json!({"matchPolicy": "Exact"}),
            ),
        ],
    );
    let r = s.post(MUTATING, &config);
    assert_eq!(r.status, 201, "{}", r.text());
    let mut probe = 0;
    wait_until("the mutating configuration to take effect", || {
        probe += 1;
        let r = s.post(HPA_V2, &hpa_v2(&format!("probe-{probe}")));
        assert_eq!(r.status, 201, "{}", r.text());
        r.json()["metadata"]["labels"]["seen"] == "v1"
    });

    let r = s.post(HPA_V2, &hpa_v2("written-in-v2"));
    assert_eq!(r.status, 201, "{}", r.text());
    let created = r.json();
    assert_eq!(created["apiVersion"], "autoscaling/v2");
    assert_eq!(created["metadata"]["labels"]["seen"], "v1");
    assert_eq!(
        created["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
        55
    );
    let review = equivalent
        .reviews()
        .into_iter()
        .rfind(|r| r["request"]["name"] == "written-in-v2")
        .expect("the equivalent webhook was called");
    let request = &review["request"];
    assert_eq!(
        request["kind"],
        json!({"group": "autoscaling", "version": "v1", "kind": "HorizontalPodAutoscaler"})
    );
    assert_eq!(request["resource"]["version"], "v1");
    assert_eq!(request["requestKind"]["version"], "v2");
    assert_eq!(request["requestResource"]["version"], "v2");
    assert_eq!(request["object"]["apiVersion"], "autoscaling/v1");
    assert_eq!(
        request["object"]["spec"]["targetCPUUtilizationPercentage"],
        55
    );
    // The Exact webhook is called only for writes in the version it names.
    assert!(exact.reviews().is_empty(), "{:?}", exact.reviews());
    let v1 = json!({"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "written-in-v1"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "maxReplicas": 2}});
    let r = s.post(HPA_V1, &v1);
    assert_eq!(r.status, 201, "{}", r.text());
    let request = &exact.reviews()[0]["request"];
    assert_eq!(request["requestKind"], request["kind"]);
    let stored = s.get(&format!("{HPA_V2}/written-in-v1")).json();
    assert_eq!(stored["metadata"]["labels"]["seen"], "v1");
}
