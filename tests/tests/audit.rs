//! Audit logging on the real binary: policy levels (None, Metadata,
//! Request, RequestResponse) record the right fields, omitStages, rules by
//! user, group, verb, resource, namespace and non-resource URL, the
//! `Audit-Id` header (echoing an incoming `Audit-ID`), a watch's
//! ResponseStarted, 401/403/404 answers with their responseStatus and the
//! authorizer's decision annotations, the legacy format, rotation by size
//! with maxbackup, and bad policies or flags refused with one line.

use std::path::{Path, PathBuf};

use cairn_tests::{Server, TlsClient, start_refused, wait_until};
use serde_json::{Value, json};

const HEADER: &str = "apiVersion: audit.k8s.io/v1\nkind: Policy\n";

/// A policy file and the log path beside it, in a fresh directory.
struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn new(rules: &str) -> Files {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("policy.yaml"), format!("{HEADER}{rules}")).expect("policy");
        Files { dir }
    }

    fn policy(&self) -> String {
        self.dir.path().join("policy.yaml").display().to_string()
    }

    fn log(&self) -> PathBuf {
        self.dir.path().join("logs/audit.log")
    }

    fn flags(&self) -> Vec<String> {
        vec![
            "--api-domain".into(),
            "k8s.io".into(),
            "--audit-policy-file".into(),
            self.policy(),
            "--audit-log-path".into(),
            self.log().display().to_string(),
        ]
    }

    /// A plain-HTTP server (system:admin) auditing with this policy.
    fn start(&self, extra: &[&str]) -> Server {
        let mut flags = self.flags();
        flags.extend(extra.iter().map(|s| (*s).to_string()));
        let args: Vec<&str> = flags.iter().map(String::as_str).collect();
        Server::start(&args)
    }
}

fn read_events(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
        .collect()
}

/// The events of one request, once its `last` stage is written.
fn events_of(log: &Path, audit_id: &str, last: &str) -> Vec<Value> {
    let mut found = Vec::new();
    wait_until(&format!("{last} of {audit_id}"), || {
        found = read_events(log)
            .into_iter()
            .filter(|e| e["auditID"] == audit_id)
            .collect();
        found.iter().any(|e| e["stage"] == last)
    });
    found
}

fn stage<'a>(events: &'a [Value], name: &str) -> &'a Value {
    events
        .iter()
        .find(|e| e["stage"] == name)
        .unwrap_or_else(|| panic!("no {name} in {events:#?}"))
}

fn stages(events: &[Value]) -> Vec<&str> {
    events
        .iter()
        .map(|e| e["stage"].as_str().unwrap_or_default())
        .collect()
}

fn audit_id(r: &cairn_tests::Response) -> String {
    r.header("Audit-Id").expect("Audit-Id header").to_string()
}

fn configmap(name: &str, data: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": data}})
}

fn is_micro_timestamp(v: &Value) -> bool {
    // 2026-11-26T09:01:50.123456Z
    v.as_str()
        .is_some_and(|s| s.len() == 27 && s.ends_with('Z') && s.as_bytes()[19] == b'.')
}

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

const TOKENS: &str =
    "alice-token,alice,1001,\"devs\"\nbob-token,bob,1002\ncarol-token,carol,1003\n";

/// A secure server with `TOKENS`, auditing with `rules`; alice may edit.
fn secure(files: &Files) -> Server {
    let tokens = files.dir.path().join("tokens.csv");
    std::fs::write(&tokens, TOKENS).expect("tokens");
    let mut flags = files.flags();
    flags.extend(["--token-auth-file".into(), tokens.display().to_string()]);
    let args: Vec<&str> = flags.iter().map(String::as_str).collect();
    let s = Server::start_secure(&args);
    s.grant(
        &json!({"kind": "User", "name": "alice"}),
        "edit",
        ("create", "configmaps"),
    );
    s
}

fn call(s: &Server, token: Option<&str>, method: &str, path: &str) -> cairn_tests::Response {
    let client = TlsClient::new(&s.ca_pem(), None);
    let auth = token.map(|t| format!("Bearer {t}"));
    let mut headers = vec![("Content-Type", "application/json")];
    if let Some(a) = auth.as_deref() {
        headers.push(("Authorization", a));
    }
    let body = (method == "POST").then(|| serde_json::to_vec(&configmap("c1", "v")).expect("json"));
    s.https(&client, method, path, &headers, body.as_deref())
}

#[test]
fn rules_match_users_groups_verbs_namespaces_and_urls() {
    let files = Files::new(
        "rules:
- level: None
  users: [bob]
- level: RequestResponse
  userGroups: [devs]
  verbs: [get]
  namespaces: [team]
- level: Request
  userGroups: [devs]
  verbs: [create]
- level: Metadata
  nonResourceURLs: [\"/version\"]
- level: Metadata
  userGroups: [system:unauthenticated]
- level: Metadata
  users: [carol]
  resources:
  - group: \"\"
    resources: [\"configmaps\"]
",
    );
    let s = secure(&files);
    let log = files.log();
    let level = |r: &cairn_tests::Response| {
        let events = events_of(&log, &audit_id(r), "ResponseComplete");
        stage(&events, "ResponseComplete")["level"].clone()
    };
    let team = serde_json::to_vec(
        &json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}),
    )
    .expect("json");
    let json_body = [("Content-Type", "application/json")];
    let made = s.https(
        &s.admin_client(),
        "POST",
        "/api/v1/namespaces",
        &json_body,
        Some(&team),
    );
    assert_eq!(made.status, 201, "{}", made.text());
    assert_eq!(
        call(
            &s,
            Some("alice-token"),
            "POST",
            "/api/v1/namespaces/default/configmaps"
        )
        .status,
        201
    );
    let create = call(
        &s,
        Some("alice-token"),
        "POST",
        "/api/v1/namespaces/team/configmaps",
    );
    assert_eq!(create.status, 201, "{}", create.text());
    assert_eq!(level(&create), "Request");
    let get = call(
        &s,
        Some("alice-token"),
        "GET",
        "/api/v1/namespaces/team/configmaps/c1",
    );
    assert_eq!(get.status, 200);
    assert_eq!(level(&get), "RequestResponse");
    let other_ns = call(
        &s,
        Some("alice-token"),
        "GET",
        "/api/v1/namespaces/default/configmaps/c1",
    );
    let version = call(&s, Some("alice-token"), "GET", "/version");
    assert_eq!(level(&version), "Metadata");
    let carol = call(
        &s,
        Some("carol-token"),
        "GET",
        "/api/v1/namespaces/default/configmaps",
    );
    assert_eq!(level(&carol), "Metadata");
    let carol_pods = call(
        &s,
        Some("carol-token"),
        "GET",
        "/api/v1/namespaces/default/pods",
    );
    let bob = call(&s, Some("bob-token"), "GET", "/version");
    // Everything after this marker is written once the earlier requests are.
    let marker = call(&s, Some("alice-token"), "GET", "/version");
    events_of(&log, &audit_id(&marker), "ResponseComplete");
    let written: Vec<String> = read_events(&log)
        .iter()
        .map(|e| e["auditID"].as_str().unwrap_or_default().to_string())
        .collect();
    for unmatched in [&other_ns, &carol_pods, &bob] {
        assert!(
            !written.contains(&audit_id(unmatched)),
            "no rule matches: nothing written"
        );
    }
}

#[test]
fn refusals_carry_their_status_and_the_decision() {
    let files = Files::new("rules:\n- level: Metadata\n");
    let s = secure(&files);
    let log = files.log();

    let forbidden = call(
        &s,
        Some("bob-token"),
        "GET",
        "/api/v1/namespaces/default/pods",
    );
    assert_eq!(forbidden.status, 403);
    let events = events_of(&log, &audit_id(&forbidden), "ResponseComplete");
    let done = stage(&events, "ResponseComplete");
    assert_eq!(done["user"]["username"], "bob");
    assert_eq!(done["responseStatus"]["code"], 403);
    assert_eq!(done["responseStatus"]["status"], "Failure");
    assert_eq!(done["responseStatus"]["reason"], "Forbidden");
    assert_eq!(done["responseStatus"]["metadata"], json!({}));
    assert!(
        done["responseStatus"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("cannot list resource \"pods\""))
    );
    assert_eq!(
        done["annotations"]["authorization.k8s.io/decision"],
        "forbid"
    );

    let missing = call(
        &s,
        Some("alice-token"),
        "GET",
        "/api/v1/namespaces/default/configmaps/nope",
    );
    assert_eq!(missing.status, 404);
    let events = events_of(&log, &audit_id(&missing), "ResponseComplete");
    let done = stage(&events, "ResponseComplete");
    assert_eq!(done["responseStatus"]["reason"], "NotFound");
    assert_eq!(done["responseStatus"]["code"], 404);
    assert_eq!(done["responseStatus"]["details"]["name"], "nope");
    assert_eq!(done["objectRef"]["name"], "nope");
    assert_eq!(
        done["annotations"]["authorization.k8s.io/decision"],
        "allow"
    );

    let unknown = call(&s, Some("wrong-token"), "GET", "/api/v1/namespaces");
    assert_eq!(unknown.status, 401);
    let events = events_of(&log, &audit_id(&unknown), "ResponseStarted");
    assert_eq!(
        stages(&events),
        ["ResponseStarted"],
        "a refused authentication is one event"
    );
    assert_eq!(events[0]["responseStatus"]["code"], 401);
    assert_eq!(events[0]["user"], json!({}));
    let text = std::fs::read_to_string(&log).expect("log");
    assert!(
        !text.contains("wrong-token") && !text.contains("alice-token"),
        "no credentials in the log"
    );

    let impersonating = s.https(
        &s.admin_client(),
        "GET",
        "/api/v1/namespaces/default/configmaps",
        &[("Impersonate-User", "alice")],
        None,
    );
    assert_eq!(impersonating.status, 200);
    let events = events_of(&log, &audit_id(&impersonating), "ResponseComplete");
    let done = stage(&events, "ResponseComplete");
    assert_eq!(done["impersonatedUser"]["username"], "alice");
    assert_ne!(done["user"]["username"], "alice");
}

#[test]
fn legacy_format_is_one_text_line_per_event() {
    let files = Files::new("rules:\n- level: Metadata\n");
    let s = files.start(&["--audit-log-format", "legacy"]);
    let r = s.request(
        "GET",
        "/api/v1/namespaces/default",
        &[("User-Agent", "audit-test")],
        None,
    );
    let id = audit_id(&r);
    let mut line = String::new();
    wait_until("the legacy ResponseComplete line", || {
        let text = std::fs::read_to_string(files.log()).unwrap_or_default();
        line = text
            .lines()
            .find(|l| l.contains(&format!("id=\"{id}\" stage=\"ResponseComplete\"")))
            .unwrap_or_default()
            .to_string();
        !line.is_empty()
    });
    let rest = line.split_once(" AUDIT: ").expect("legacy line").1;
    assert_eq!(
        rest,
        format!(
            "id=\"{id}\" stage=\"ResponseComplete\" ip=\"127.0.0.1\" method=\"get\" user=\"system:admin\" groups=\"\\\"system:masters\\\",\\\"system:authenticated\\\"\" as=\"<self>\" asgroups=\"<lookup>\" user-agent=\"audit-test\" namespace=\"default\" uri=\"/api/v1/namespaces/default\" response=\"200\""
        )
    );
}

#[test]
fn the_log_rotates_by_size_and_keeps_maxbackup_files() {
    let files = Files::new("rules:\n- level: Request\n  verbs: [create]\n");
    let mut s = files.start(&["--audit-log-maxsize", "1", "--audit-log-maxbackup", "2"]);
    let big = "x".repeat(200 * 1024);
    for i in 0..20 {
        let r = s.post(
            "/api/v1/namespaces/default/configmaps",
            &configmap(&format!("big-{i}"), &big),
        );
        assert_eq!(r.status, 201, "{}", r.text());
    }
    assert_eq!(s.stop(), Some(0));
    let dir = files.log().parent().expect("dir").to_path_buf();
    let mut backups: Vec<String> = std::fs::read_dir(&dir)
        .expect("log dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n != "audit.log")
        .collect();
    backups.sort();
    assert_eq!(backups.len(), 2, "maxbackup 2: {backups:?}");
    for name in &backups {
        // audit-2026-11-26T09-01-50.123.log
        let stamp = name
            .strip_prefix("audit-")
            .and_then(|n| n.strip_suffix(".log"))
            .expect(name);
        assert_eq!(stamp.len(), 23, "{name}");
        assert_eq!(&stamp[10..11], "T", "{name}");
        assert!(std::fs::metadata(dir.join(name)).expect("backup").len() <= 1024 * 1024);
    }
    let current = read_events(&files.log());
    assert!(!current.is_empty(), "the live log has the latest events");
    let names: Vec<&str> = current
        .iter()
        .filter_map(|e| e["objectRef"]["name"].as_str())
        .collect();
    assert!(names.contains(&"big-19"), "{names:?}");
}

#[test]
fn bad_policies_and_flags_stop_the_start_with_one_line() {
    let log = ["--audit-log-path", "/nonexistent-dir-for-test/audit.log"];
    let line = start_refused(
        "--audit-policy-file",
        &format!("{HEADER}rules:\n- level: Loud\n"),
        &log,
    );
    assert!(
        line.contains("rules[0].level") && line.contains("Loud"),
        "{line}"
    );
    let line = start_refused("--audit-policy-file", &format!("{HEADER}rules: []\n"), &log);
    assert!(line.contains("0 rules"), "{line}");
    let line = start_refused(
        "--audit-policy-file",
        &format!("{HEADER}rules:\n- level: None\n  omitStages: [Later]\n"),
        &log,
    );
    assert!(line.contains("rules[0].omitStages[0]"), "{line}");
    let line = start_refused(
        "--audit-policy-file",
        "apiVersion: v1\nkind: ConfigMap\n",
        &log,
    );
    assert!(line.contains("audit policy"), "{line}");
    let valid = format!("{HEADER}rules:\n- level: None\n");
    let line = start_refused(
        "--audit-policy-file",
        &valid,
        &[
            "--audit-log-path",
            "/tmp/x.log",
            "--audit-log-format",
            "xml",
        ],
    );
    assert!(line.contains("--audit-log-format"), "{line}");
    let line = start_refused(
        "--audit-policy-file",
        &valid,
        &[
            "--audit-log-path",
            "/tmp/x.log",
            "--audit-log-maxbackup",
            "-1",
        ],
    );
    assert!(line.contains("--audit-log-maxbackup"), "{line}");
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

#[test]
fn bearer_tokens_stay_out_of_the_log() {
    let files = Files::new("rules:\n- level: RequestResponse\n  verbs: [create]\n");
    let s = files.start(&[]);
    let review = json!({
        "apiVersion": "authentication.k8s.io/v1",
        "kind": "TokenReview",
        "spec": {"token": "very-secret-token-value"},
    });
    let r = s.post("/apis/authentication.k8s.io/v1/tokenreviews", &review);
    assert_eq!(r.status, 201, "{}", r.text());
    let events = events_of(&files.log(), &audit_id(&r), "ResponseComplete");
    let done = stage(&events, "ResponseComplete");
    assert_eq!(done["requestObject"]["kind"], "TokenReview");
    assert!(
        done["requestObject"]["spec"].get("token").is_none(),
        "{done}"
    );

    wait_until("the default service account", || {
        s.get("/api/v1/namespaces/default/serviceaccounts/default")
            .status
            == 200
    });
    let request =
        json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}});
    let r = s.post(
        "/api/v1/namespaces/default/serviceaccounts/default/token",
        &request,
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let token = r.json()["status"]["token"]
        .as_str()
        .expect("issued token")
        .to_string();
    let events = events_of(&files.log(), &audit_id(&r), "ResponseComplete");
    let done = stage(&events, "ResponseComplete");
    assert_eq!(done["objectRef"]["subresource"], "token");
    assert_eq!(done["requestObject"]["kind"], "TokenRequest");
    assert!(
        done["responseObject"]["status"]["expirationTimestamp"].is_string(),
        "{done}"
    );
    let text = std::fs::read_to_string(files.log()).expect("log");
    assert!(!text.contains(&token) && !text.contains("very-secret-token-value"));
}
