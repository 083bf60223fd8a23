//! Rules by user, group, verb, namespace and URL on the secure port;
//! 401, 403 and 404 answers with their status and the authorizer's
//! decision; impersonation; bearer tokens never written.

use cairn_tests::{Server, TlsClient, wait_until};
use serde_json::json;

use super::*;

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
