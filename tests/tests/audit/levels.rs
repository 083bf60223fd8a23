//! What each level records, omitted stages and managed fields, the
//! `Audit-Id` header, and a watch's stages.

use cairn_tests::Server;
use serde_json::json;

use super::*;

const LEVELS: &str = "rules:
- level: None
  nonResourceURLs: [\"/readyz*\", \"/healthz*\", \"/livez*\"]
- level: RequestResponse
  resources:
  - group: \"\"
    resources: [configmaps]
- level: Request
  resources:
  - group: \"\"
    resources: [secrets]
- level: Metadata
";

#[test]
fn levels_record_what_they_promise() {
    let files = Files::new(LEVELS);
    let s = files.start(&[]);
    let log = files.log();

    let r = s.post(
        "/api/v1/namespaces/default/configmaps",
        &configmap("full", "v"),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let uid = r.json()["metadata"]["uid"].clone();
    let events = events_of(&log, &audit_id(&r), "ResponseComplete");
    assert_eq!(stages(&events), ["RequestReceived", "ResponseComplete"]);
    let received = stage(&events, "RequestReceived");
    assert!(received.get("requestObject").is_none() && received.get("responseStatus").is_none());
    let done = stage(&events, "ResponseComplete");
    assert_eq!(done["kind"], "Event");
    assert_eq!(done["apiVersion"], "audit.k8s.io/v1");
    assert_eq!(done["level"], "RequestResponse");
    assert_eq!(done["verb"], "create");
    assert_eq!(done["requestURI"], "/api/v1/namespaces/default/configmaps");
    assert_eq!(done["user"]["username"], "system:admin");
    assert!(
        done["user"]["groups"]
            .as_array()
            .is_some_and(|g| g.contains(&json!("system:masters")))
    );
    assert_eq!(done["sourceIPs"], json!(["127.0.0.1"]));
    assert_eq!(
        done["objectRef"],
        json!({"resource": "configmaps", "namespace": "default", "name": "full", "apiVersion": "v1"})
    );
    assert_eq!(done["responseStatus"], json!({"metadata": {}, "code": 201}));
    assert_eq!(done["requestObject"]["metadata"]["name"], "full");
    assert_eq!(done["responseObject"]["metadata"]["uid"], uid);
    assert!(
        is_micro_timestamp(&done["requestReceivedTimestamp"]),
        "{done}"
    );
    assert!(is_micro_timestamp(&done["stageTimestamp"]), "{done}");
    assert_eq!(
        done["annotations"]["authorization.k8s.io/decision"],
        "allow"
    );
    assert_eq!(done["annotations"]["authorization.k8s.io/reason"], "");

    let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"p": "x"}});
    let r = s.post("/api/v1/namespaces/default/secrets", &secret);
    assert_eq!(r.status, 201, "{}", r.text());
    let events = events_of(&log, &audit_id(&r), "ResponseComplete");
    let done = stage(&events, "ResponseComplete");
    assert_eq!(done["level"], "Request");
    assert_eq!(done["requestObject"]["stringData"]["p"], "x");
    assert!(done.get("responseObject").is_none(), "{done}");

    let r = s.get("/api/v1/namespaces/default/configmaps/full");
    let events = events_of(&log, &audit_id(&r), "ResponseComplete");
    let done = stage(&events, "ResponseComplete");
    assert_eq!(done["responseObject"]["data"]["k"], "v");
    assert_eq!(done["verb"], "get");

    let r = s.get("/api/v1/namespaces");
    let events = events_of(&log, &audit_id(&r), "ResponseComplete");
    let done = stage(&events, "ResponseComplete");
    assert_eq!(done["level"], "Metadata");
    assert_eq!(done["verb"], "list");
    assert!(done.get("requestObject").is_none() && done.get("responseObject").is_none());
    assert_eq!(
        done["objectRef"],
        json!({"resource": "namespaces", "apiVersion": "v1"})
    );

    let r = s.get("/version");
    let done = events_of(&log, &audit_id(&r), "ResponseComplete");
    assert!(
        done[0].get("objectRef").is_none(),
        "non-resource requests have no objectRef"
    );

    let ready = s.get("/readyz");
    let before = read_events(&log);
    assert!(
        !before
            .iter()
            .any(|e| e["auditID"] == audit_id(&ready).as_str()),
        "level None writes nothing"
    );
    let patch = s.patch(
        "/api/v1/namespaces/default/configmaps/full",
        "application/merge-patch+json",
        "{\n  \"data\": {\"k\": \"w\"}\n}",
    );
    let done = events_of(&log, &audit_id(&patch), "ResponseComplete");
    let done = stage(&done, "ResponseComplete");
    assert_eq!(done["verb"], "patch");
    assert_eq!(
        done["requestObject"],
        json!({"data": {"k": "w"}}),
        "the patch as sent, on one line"
    );
}

#[test]
fn audit_id_header_is_echoed_or_made_and_stages_can_be_omitted() {
    let files = Files::new("omitStages: [RequestReceived]\nrules:\n- level: Metadata\n");
    let s = files.start(&[]);
    let r = s.request(
        "GET",
        "/api/v1/namespaces/default",
        &[("Audit-ID", "given-id-1")],
        None,
    );
    assert_eq!(r.header("Audit-Id"), Some("given-id-1"));
    let events = events_of(&files.log(), "given-id-1", "ResponseComplete");
    assert_eq!(
        stages(&events),
        ["ResponseComplete"],
        "RequestReceived omitted"
    );

    let made = audit_id(&s.get("/version"));
    assert_eq!(made.len(), 36, "a UUID: {made}");
    assert_ne!(made, audit_id(&s.get("/version")));

    // Without audit flags every answer still carries an Audit-Id.
    let plain = Server::start(&[]);
    let r = plain.get("/api/v1/namespaces/missing");
    assert_eq!(r.status, 404);
    assert_eq!(r.header("Audit-Id").map(str::len), Some(36));
}

#[test]
fn a_watch_starts_then_completes() {
    let files = Files::new("rules:\n- level: Metadata\n  omitStages: [RequestReceived]\n");
    let s = files.start(&[]);
    let mut w = s.watch("/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1");
    assert_eq!(w.status, 200);
    let id = w
        .headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("audit-id"))
        .map(|(_, v)| v.clone())
        .expect("Audit-Id on the watch");
    let started = events_of(&files.log(), &id, "ResponseStarted");
    assert_eq!(
        stage(&started, "ResponseStarted")["responseStatus"]["code"],
        200
    );
    while w.next_event().is_some() {}
    let events = events_of(&files.log(), &id, "ResponseComplete");
    assert_eq!(stages(&events), ["ResponseStarted", "ResponseComplete"]);
    assert_eq!(stage(&events, "ResponseComplete")["verb"], "watch");
}

#[test]
fn managed_fields_are_left_out_when_the_policy_says_so() {
    let files = Files::new(
        "omitManagedFields: true\nrules:\n- level: RequestResponse\n  verbs: [create]\n",
    );
    let s = files.start(&[]);
    let r = s.post(
        "/api/v1/namespaces/default/configmaps",
        &configmap("managed", "v"),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert!(
        r.json()["metadata"]["managedFields"].is_array(),
        "the answer has them"
    );
    let events = events_of(&files.log(), &audit_id(&r), "ResponseComplete");
    let done = stage(&events, "ResponseComplete");
    assert_eq!(done["responseObject"]["metadata"]["name"], "managed");
    assert!(
        done["responseObject"]["metadata"]
            .get("managedFields")
            .is_none(),
        "{done}"
    );
}
