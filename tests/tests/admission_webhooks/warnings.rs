//! Webhooks' `warnings` reach the client as `Warning: 299` headers, from
//! mutating and validating webhooks alike, once each; their
//! `auditAnnotations` reach the request's audit event as `<webhook>/<key>`.

use cairn_tests::{Server, wait_until};
use serde_json::{Value, json};

use super::hook::Hook;
use super::{CONFIGMAPS, MUTATING, VALIDATING, configmap, configmaps_rule, configuration, install};

fn mutating_warns(_: &Value) -> Value {
    let text = "mutating \"says\" hello";
    json!({"allowed": true, "warnings": [text, text],
        "auditAnnotations": {"reason": "checked", "Not A Key!": "dropped"}})
}

fn validating_warns(_: &Value) -> Value {
    json!({"allowed": true, "warnings": ["validating says hello"]})
}

/// In effect once a probe ConfigMap is created and `hook` was asked.
fn reviewed(hook: &Hook) -> impl Fn(&Server, usize) -> bool + '_ {
    let seen = hook.reviews().len();
    move |s, probe| {
        s.post(CONFIGMAPS, &configmap(&format!("probe-{probe}"), json!({})))
            .status
            == 201
            && hook.reviews().len() > seen
    }
}

#[test]
fn webhook_warnings_come_back_as_warning_headers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let policy = dir.path().join("policy.yaml");
    std::fs::write(
        &policy,
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n",
    )
    .expect("policy");
    let log = dir.path().join("audit.log");
    let s = Server::start(&[
        "--api-domain",
        "k8s.io",
        "--audit-policy-file",
        policy.to_str().expect("path"),
        "--audit-log-path",
        log.to_str().expect("path"),
    ]);
    let mutating = Hook::start(mutating_warns);
    let validating = Hook::start(validating_warns);
    let config = configuration(
        MUTATING,
        "warn-m",
        vec![mutating.entry("m.cairn.test", configmaps_rule(), json!({}))],
    );
    install(&s, MUTATING, &config, reviewed(&mutating));
    let config = configuration(
        VALIDATING,
        "warn-v",
        vec![validating.entry("v.cairn.test", configmaps_rule(), json!({}))],
    );
    install(&s, VALIDATING, &config, reviewed(&validating));

    let r = s.post(CONFIGMAPS, &configmap("warned", json!({})));
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(
        r.header_all("warning"),
        [
            "299 - \"mutating \\\"says\\\" hello\"",
            "299 - \"validating says hello\""
        ],
        "each webhook's warning once, in the order the phases ran"
    );
    let audit_id = r.header("audit-id").expect("Audit-Id").to_string();
    let mut annotations = Value::Null;
    wait_until("the create's audit event", || {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let event = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|e| e["auditID"] == audit_id.as_str() && e["stage"] == "ResponseComplete");
        annotations = event.map_or(Value::Null, |e| e["annotations"].clone());
        !annotations.is_null()
    });
    assert_eq!(
        annotations["m.cairn.test/reason"], "checked",
        "{annotations}"
    );
    assert!(
        annotations.get("m.cairn.test/Not A Key!").is_none(),
        "{annotations}"
    );
    // A write no webhook looks at carries none.
    let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "quiet"}});
    let r = s.post("/api/v1/namespaces/default/secrets", &secret);
    assert_eq!(r.status, 201);
    assert!(r.header_all("warning").is_empty(), "{:?}", r.headers);
}
