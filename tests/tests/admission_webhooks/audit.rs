//! kube's audit annotations of mutating webhook calls: each call is
//! annotated with its round and the webhook's place among the plugin's
//! webhooks (`mutation.webhook.admission.k8s.io/round_1_index_0`: whether
//! it changed the object), and the patch it answered is kept at level
//! Request and above only.

use cairn_tests::Server;
use cairn_tests::audit_log::completed_event;
use serde_json::json;

use super::hook::Hook;
use super::{
    CONFIGMAPS, MUTATING, configmap, configuration, first_then_reinvoked as first, install, second,
};

const POLICY: &str = "apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
  namespaces: [quiet]
- level: Request
  resources:
  - group: \"\"
    resources: [configmaps]
- level: None
";

fn mutation(configuration: &str, webhook: &str, mutated: bool) -> String {
    format!(r#"{{"configuration":"{configuration}","webhook":"{webhook}","mutated":{mutated}}}"#)
}

#[test]
fn mutating_calls_are_annotated_per_round_and_index() {
    let dir = tempfile::tempdir().expect("tempdir");
    let policy = dir.path().join("policy.yaml");
    std::fs::write(&policy, POLICY).expect("policy");
    let log = dir.path().join("audit.log");
    let (policy, log_flag) = (policy.display().to_string(), log.display().to_string());
    let s = Server::start(&[
        "--api-domain",
        "k8s.io",
        "--audit-policy-file",
        &policy,
        "--audit-log-path",
        &log_flag,
    ]);
    let (a, b) = (Hook::start(first), Hook::start(second));
    let rule = json!([{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}]);
    let chain = json!({"objectSelector": {"matchLabels": {"chain": "on"}}});
    let mut reinvoked = chain.clone();
    reinvoked["reinvocationPolicy"] = json!("IfNeeded");
    let first_config = configuration(
        MUTATING,
        "a-first",
        vec![a.entry("first.cairn.test", rule.clone(), reinvoked)],
    );
    assert_eq!(s.post(MUTATING, &first_config).status, 201);
    let second_config = configuration(
        MUTATING,
        "b-second",
        vec![b.entry("second.cairn.test", rule, chain)],
    );
    install(&s, MUTATING, &second_config, |s, n| {
        let r = s.post(
            CONFIGMAPS,
            &configmap(&format!("probe-{n}"), json!({"chain": "on"})),
        );
        r.json()["metadata"]["labels"]["reinvoked"] == "yes"
    });

    let r = s.post(CONFIGMAPS, &configmap("chained", json!({"chain": "on"})));
    assert_eq!(r.status, 201, "{}", r.text());
    let event = completed_event(&log, &r);
    assert_eq!(event["level"], "Request");
    let notes = &event["annotations"];
    let key = |kind: &str, round: u8, index: u8| {
        format!("{kind}.webhook.admission.k8s.io/round_{round}_index_{index}")
    };
    assert_eq!(
        notes[key("mutation", 0, 0)],
        mutation("a-first", "first.cairn.test", true),
        "{notes}"
    );
    assert_eq!(
        notes[key("mutation", 0, 1)],
        mutation("b-second", "second.cairn.test", true)
    );
    assert_eq!(
        notes[key("mutation", 1, 0)],
        mutation("a-first", "first.cairn.test", true)
    );
    assert_eq!(
        notes[key("patch", 1, 0)],
        r#"{"configuration":"a-first","webhook":"first.cairn.test","patch":[{"op":"add","path":"/metadata/labels/reinvoked","value":"yes"}],"patchType":"JSONPatch"}"#
    );
    assert!(
        notes.get(key("mutation", 1, 1)).is_none(),
        "b-second is never reinvoked: {notes}"
    );

    // At level Metadata the calls are annotated, their patches are not.
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "quiet"}});
    assert_eq!(s.post("/api/v1/namespaces", &ns).status, 201);
    let r = s.post(
        "/api/v1/namespaces/quiet/configmaps",
        &configmap("hushed", json!({"chain": "on"})),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let event = completed_event(&log, &r);
    assert_eq!(event["level"], "Metadata");
    let notes = event["annotations"].as_object().expect("annotations");
    assert_eq!(
        notes[&key("mutation", 0, 1)],
        mutation("b-second", "second.cairn.test", true)
    );
    assert!(notes.keys().all(|k| !k.starts_with("patch.")), "{notes:?}");
}
