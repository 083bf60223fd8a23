//! Admission webhooks on the real binary: Mutating- and
//! ValidatingWebhookConfigurations calling webhooks the test serves over
//! HTTPS (trusted through `caBundle`): patches applied and stored,
//! reinvocation, denials with the webhook's message, timeouts under each
//! failure policy, namespace and object selectors, dry runs, kubectl's
//! view of a denial, refused admission flags and files at start, and the
//! spans and trace context of a traced call.

mod audit;
mod binding;
mod hook;
mod reach;
mod traced;
mod warnings;

use std::time::Duration;

use cairn_tests::{Server, kubectl, kubectl_present, start_refused, wait_until};
use hook::{Hook, patch};
use serde_json::{Value, json};

const MUTATING: &str = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
const VALIDATING: &str = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";

fn configmaps_rule() -> Value {
    json!([{"operations": ["CREATE", "UPDATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}])
}

fn configmap(name: &str, labels: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels}, "data": {"k": "v"}})
}

fn configuration(path: &str, name: &str, webhooks: Vec<Value>) -> Value {
    let kind = if path == MUTATING {
        "MutatingWebhookConfiguration"
    } else {
        "ValidatingWebhookConfiguration"
    };
    json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": {"name": name}, "webhooks": webhooks})
}

/// Creates a configuration and waits until the server's informer has it:
/// a probe ConfigMap is answered as `in_effect` says.
fn install(s: &Server, path: &str, config: &Value, in_effect: impl Fn(&Server, usize) -> bool) {
    let r = s.post(path, config);
    assert_eq!(r.status, 201, "{}", r.text());
    let mut probe = 0;
    wait_until("the webhook configuration to take effect", || {
        probe += 1;
        in_effect(s, probe)
    });
}

fn deny_unless_allowed_label(request: &Value) -> Value {
    if request["object"]["metadata"]["labels"]["allowed"] == "true" {
        json!({"allowed": true})
    } else {
        json!({"allowed": false, "status": {"code": 403, "message": "no allowed label"}})
    }
}

fn denied(s: &Server, probe: usize) -> bool {
    s.post(CONFIGMAPS, &configmap(&format!("probe-{probe}"), json!({})))
        .status
        == 403
}

#[test]
fn a_validating_webhook_denies_with_its_message() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let hook = Hook::start(deny_unless_allowed_label);
    let config = configuration(
        VALIDATING,
        "deny",
        vec![hook.entry("deny.cairn.test", configmaps_rule(), json!({}))],
    );
    install(&s, VALIDATING, &config, denied);

    let r = s.post(CONFIGMAPS, &configmap("plain", json!({})));
    assert_eq!(r.status, 403, "{}", r.text());
    let status = r.json();
    assert_eq!(
        status["message"],
        "admission webhook \"deny.cairn.test\" denied the request: no allowed label"
    );
    let ok = s.post(CONFIGMAPS, &configmap("fine", json!({"allowed": "true"})));
    assert_eq!(ok.status, 201, "{}", ok.text());
    let review = hook.reviews().into_iter().last().expect("a review");
    assert_eq!(review["apiVersion"], "admission.k8s.io/v1");
    let request = &review["request"];
    assert_eq!(request["operation"], "CREATE");
    assert_eq!(
        request["resource"],
        json!({"group": "", "version": "v1", "resource": "configmaps"})
    );
    assert_eq!(request["kind"]["kind"], "ConfigMap");
    assert_eq!(request["namespace"], "default");
    assert_eq!(request["name"], "fine");
    assert_eq!(request["dryRun"], false);
    assert_eq!(request["userInfo"]["username"], "system:admin");
    assert_eq!(request["options"]["kind"], "CreateOptions");
    let metrics = s.get("/metrics").text();
    for series in [
        "apiserver_admission_webhook_rejection_count{name=\"deny.cairn.test\",type=\"validating\",operation=\"CREATE\",error_type=\"no_error\",rejection_code=\"403\"}",
        "apiserver_admission_webhook_request_total{name=\"deny.cairn.test\",type=\"validating\",operation=\"CREATE\",code=\"200\",rejected=\"false\"} 1",
        "apiserver_admission_webhook_admission_duration_seconds_count{name=\"deny.cairn.test\",type=\"validating\",operation=\"CREATE\",rejected=\"true\"}",
    ] {
        assert!(metrics.contains(series), "{series} not in\n{metrics}");
    }
    // Unrelated kinds never reach the webhook.
    let before = hook.reviews().len();
    let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}});
    assert_eq!(
        s.post("/api/v1/namespaces/default/secrets", &secret).status,
        201
    );
    assert_eq!(hook.reviews().len(), before);
}

fn add_label(request: &Value) -> Value {
    let has_labels = request["object"]["metadata"]["labels"].is_object();
    let op = if has_labels {
        json!([{"op": "add", "path": "/metadata/labels/mutated", "value": "yes"}])
    } else {
        json!([{"op": "add", "path": "/metadata/labels", "value": {"mutated": "yes"}}])
    };
    patch(&op)
}

/// Counts the times it saw the object, recording it as an annotation-free
/// label `seen-<n>` only on the first call; later it checks the
/// `second` webhook's mark and adds `reinvoked`.
fn first_then_reinvoked(request: &Value) -> Value {
    let labels = &request["object"]["metadata"]["labels"];
    if labels["second"] == "yes" {
        patch(&json!([{"op": "add", "path": "/metadata/labels/reinvoked", "value": "yes"}]))
    } else {
        patch(&json!([{"op": "add", "path": "/metadata/labels/first", "value": "yes"}]))
    }
}

fn second(request: &Value) -> Value {
    if request["object"]["metadata"]["labels"]["second"] == "yes" {
        return json!({"allowed": true});
    }
    patch(&json!([{"op": "add", "path": "/metadata/labels/second", "value": "yes"}]))
}

#[test]
fn mutating_patches_are_stored_and_reinvoked_if_needed() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let hook = Hook::start(add_label);
    let config = configuration(
        MUTATING,
        "label",
        vec![hook.entry("label.cairn.test", configmaps_rule(), json!({}))],
    );
    install(&s, MUTATING, &config, |s, n| {
        let r = s.post(CONFIGMAPS, &configmap(&format!("probe-{n}"), json!({})));
        r.json()["metadata"]["labels"]["mutated"] == "yes"
    });
    let r = s.post(CONFIGMAPS, &configmap("m", json!({"own": "x"})));
    assert_eq!(r.status, 201, "{}", r.text());
    let stored = s.get(&format!("{CONFIGMAPS}/m")).json();
    assert_eq!(
        stored["metadata"]["labels"],
        json!({"own": "x", "mutated": "yes"})
    );

    // a-first (IfNeeded) runs before b-second, which changes the object:
    // a-first is called again and sees b-second's change.
    let first = Hook::start(first_then_reinvoked);
    let later = Hook::start(second);
    let rule = json!([{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}]);
    let a = configuration(MUTATING, "a-first", vec![first.entry("first.cairn.test", rule.clone(), json!({"reinvocationPolicy": "IfNeeded", "objectSelector": {"matchLabels": {"chain": "on"}}}))]);
    let b = configuration(
        MUTATING,
        "b-second",
        vec![later.entry(
            "second.cairn.test",
            rule,
            json!({"objectSelector": {"matchLabels": {"chain": "on"}}}),
        )],
    );
    assert_eq!(s.post(MUTATING, &a).status, 201);
    install(&s, MUTATING, &b, |s, n| {
        let r = s.post(
            CONFIGMAPS,
            &configmap(&format!("chain-{n}"), json!({"chain": "on"})),
        );
        r.json()["metadata"]["labels"]["reinvoked"] == "yes"
    });
    let r = s
        .post(CONFIGMAPS, &configmap("chained", json!({"chain": "on"})))
        .json();
    let labels = &r["metadata"]["labels"];
    assert_eq!(
        (
            &labels["first"],
            &labels["second"],
            &labels["reinvoked"],
            &labels["mutated"]
        ),
        (&json!("yes"), &json!("yes"), &json!("yes"), &json!("yes")),
        "{r}"
    );
}

fn slow(request: &Value) -> Value {
    if request["name"]
        .as_str()
        .is_some_and(|n| n.starts_with("slow"))
    {
        std::thread::sleep(Duration::from_secs(3));
    }
    json!({"allowed": false, "status": {"message": "fast answer"}})
}

#[test]
fn timeouts_follow_the_failure_policy() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let hook = Hook::start(slow);
    let rule = configmaps_rule();
    let config = configuration(VALIDATING, "slow", vec![
        hook.entry("fail.cairn.test", rule.clone(), json!({"timeoutSeconds": 1, "objectSelector": {"matchLabels": {"policy": "fail"}}})),
        hook.entry("ignore.cairn.test", rule, json!({"timeoutSeconds": 1, "failurePolicy": "Ignore", "objectSelector": {"matchLabels": {"policy": "ignore"}}})),
    ]);
    install(&s, VALIDATING, &config, |s, n| {
        s.post(
            CONFIGMAPS,
            &configmap(&format!("probe-{n}"), json!({"policy": "ignore"})),
        )
        .status
            == 403
    });
    let ignored = s.post(
        CONFIGMAPS,
        &configmap("slow-ignored", json!({"policy": "ignore"})),
    );
    assert_eq!(ignored.status, 201, "{}", ignored.text());
    let failed = s.post(
        CONFIGMAPS,
        &configmap("slow-failed", json!({"policy": "fail"})),
    );
    assert_eq!(failed.status, 500, "{}", failed.text());
    let message = failed.json()["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        message.starts_with("Internal error occurred: failed calling webhook \"fail.cairn.test\": failed to call webhook:"),
        "{message}"
    );
    assert_eq!(s.get(&format!("{CONFIGMAPS}/slow-failed")).status, 404);
}

fn deny_all(_: &Value) -> Value {
    json!({"allowed": false, "status": {"message": "selected"}})
}

#[test]
fn namespace_and_object_selectors_choose_the_calls() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    for (name, env) in [("prod", "prod"), ("dev", "dev")] {
        let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": {"env": env}}});
        assert_eq!(s.post("/api/v1/namespaces", &ns).status, 201);
    }
    let hook = Hook::start(deny_all);
    let config = configuration(
        VALIDATING,
        "selective",
        vec![hook.entry(
        "selective.cairn.test",
        configmaps_rule(),
        json!({
            "namespaceSelector": {"matchLabels": {"env": "prod"}},
            "objectSelector": {"matchExpressions": [{"key": "skip", "operator": "DoesNotExist"}]}
        }),
    )],
    );
    install(&s, VALIDATING, &config, |s, n| {
        s.post(
            "/api/v1/namespaces/prod/configmaps",
            &configmap(&format!("probe-{n}"), json!({})),
        )
        .status
            == 403
    });
    let in_dev = s.post(
        "/api/v1/namespaces/dev/configmaps",
        &configmap("a", json!({})),
    );
    assert_eq!(in_dev.status, 201, "{}", in_dev.text());
    let skipped = s.post(
        "/api/v1/namespaces/prod/configmaps",
        &configmap("b", json!({"skip": "1"})),
    );
    assert_eq!(skipped.status, 201, "{}", skipped.text());
    let chosen = s.post(
        "/api/v1/namespaces/prod/configmaps",
        &configmap("c", json!({})),
    );
    assert_eq!(chosen.status, 403, "{}", chosen.text());
}

#[test]
fn match_conditions_choose_the_calls() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let hook = Hook::start(deny_all);
    let conditions = json!({"matchConditions": [
        {"name": "named-deny", "expression": "object.metadata.name.startsWith('deny-')"},
        {"name": "by-admin", "expression": "request.userInfo.username == 'system:admin'"}
    ]});
    let config = configuration(
        VALIDATING,
        "conditional",
        vec![hook.entry("conditional.cairn.test", configmaps_rule(), conditions)],
    );
    install(&s, VALIDATING, &config, |s, n| {
        s.post(
            CONFIGMAPS,
            &configmap(&format!("deny-probe-{n}"), json!({})),
        )
        .status
            == 403
    });
    let calls = hook.reviews().len();
    let other = s.post(CONFIGMAPS, &configmap("kept", json!({})));
    assert_eq!(other.status, 201, "{}", other.text());
    assert_eq!(
        hook.reviews().len(),
        calls,
        "a false condition skips the call"
    );
    let bad = configuration(
        VALIDATING,
        "bad-condition",
        vec![hook.entry(
            "bad.cairn.test",
            configmaps_rule(),
            json!({"matchConditions": [{"name": "x", "expression": "nobody.knows"}]}),
        )],
    );
    let r = s.post(VALIDATING, &bad);
    assert_eq!(r.status, 422, "{}", r.text());
    let message = r.json()["message"].as_str().unwrap_or_default().to_string();
    assert!(
        message.contains("webhooks[0].matchConditions[0].expression: Invalid value: \"nobody.knows\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'nobody'"),
        "{message}"
    );
}

#[test]
fn dry_runs_reach_side_effect_free_webhooks_with_dry_run_set() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let hook = Hook::start(add_label);
    let config = configuration(
        MUTATING,
        "dry",
        vec![hook.entry(
            "dry.cairn.test",
            configmaps_rule(),
            json!({"sideEffects": "NoneOnDryRun"}),
        )],
    );
    install(&s, MUTATING, &config, |s, n| {
        let r = s.post(CONFIGMAPS, &configmap(&format!("probe-{n}"), json!({})));
        r.json()["metadata"]["labels"]["mutated"] == "yes"
    });
    let r = s.post(
        &format!("{CONFIGMAPS}?dryRun=All"),
        &configmap("dry", json!({})),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["metadata"]["labels"]["mutated"], "yes");
    assert_eq!(s.get(&format!("{CONFIGMAPS}/dry")).status, 404);
    let review = hook.reviews().into_iter().last().expect("a review");
    assert_eq!(review["request"]["dryRun"], true);
    assert_eq!(review["request"]["options"]["dryRun"], json!(["All"]));
}

#[test]
fn configurations_are_validated_and_defaulted() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let bad = configuration(
        VALIDATING,
        "bad",
        vec![json!({
            "name": "short", "clientConfig": {"url": "http://127.0.0.1/"},
            "sideEffects": "Some", "admissionReviewVersions": ["v1"], "timeoutSeconds": 40
        })],
    );
    let r = s.post(VALIDATING, &bad);
    assert_eq!(r.status, 422, "{}", r.text());
    let message = r.json()["message"].as_str().unwrap_or_default().to_string();
    for part in [
        "webhooks[0].name: Invalid value: \"short\": should be a domain with at least three segments separated by dots",
        "webhooks[0].sideEffects: Unsupported value: \"Some\": supported values: \"None\", \"NoneOnDryRun\"",
        "webhooks[0].timeoutSeconds: Invalid value: 40: the timeout value must be between 1 and 30 seconds",
        "webhooks[0].clientConfig.url: Invalid value: \"http://127.0.0.1/\": 'https' is the only allowed URL scheme",
    ] {
        assert!(message.contains(part), "{part} not in {message}");
    }
    let good = configuration(
        MUTATING,
        "good",
        vec![json!({
            "name": "good.cairn.test", "clientConfig": {"service": {"namespace": "default", "name": "hook"}},
            "sideEffects": "None", "admissionReviewVersions": ["v1"]
        })],
    );
    let stored = s.post(MUTATING, &good).json();
    let hook = &stored["webhooks"][0];
    assert_eq!(
        (
            &hook["failurePolicy"],
            &hook["matchPolicy"],
            &hook["timeoutSeconds"],
            &hook["reinvocationPolicy"]
        ),
        (
            &json!("Fail"),
            &json!("Equivalent"),
            &json!(10),
            &json!("Never")
        )
    );
    assert_eq!(hook["clientConfig"]["service"]["port"], 443);
    assert_eq!(hook["namespaceSelector"], json!({}));
}

#[test]
fn kubectl_apply_shows_the_denial() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let hook = Hook::start(deny_unless_allowed_label);
    let config = configuration(
        VALIDATING,
        "deny",
        vec![hook.entry("deny.cairn.test", configmaps_rule(), json!({}))],
    );
    install(&s, VALIDATING, &config, denied);
    let manifest = configmap("from-kubectl", json!({})).to_string();
    let (ok, out) = kubectl(&s, &["apply", "-n", "default", "-f", "-"], Some(&manifest));
    assert!(!ok, "{out}");
    assert!(
        out.contains("admission webhook \"deny.cairn.test\" denied the request: no allowed label"),
        "{out}"
    );
}

#[test]
fn admission_flags_and_files_are_checked_at_start() {
    // The flag's value here is a file path: no plugin has that name.
    let unknown = start_refused("--disable-admission-plugins", "", &[]);
    assert!(
        unknown.starts_with("error: disable-admission-plugins plugin \"/")
            && unknown.ends_with("\" is unknown"),
        "{unknown}"
    );
    let line = start_refused(
        "--admission-control-config-file",
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: NoSuchPlugin\n",
        &[],
    );
    assert!(line.ends_with("plugins[0].name: Unsupported value: \"NoSuchPlugin\": not a registered admission plugin"), "{line}");
    let line = start_refused(
        "--admission-control-config-file",
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ValidatingAdmissionWebhook\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: WebhookAdmissionConfiguration\n    kubeConfigFile: relative.yaml\n",
        &[],
    );
    assert_eq!(
        line,
        "error: failed to initialize admission: couldn't init admission plugin \"ValidatingAdmissionWebhook\": kubeConfigFile: Invalid value: \"relative.yaml\": must be an absolute file path"
    );
    let line = start_refused(
        "--admission-control-config-file",
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n",
        &["--enable-admission-plugins", "Bogus"],
    );
    assert_eq!(
        line,
        "error: enable-admission-plugins plugin \"Bogus\" is unknown"
    );
}
