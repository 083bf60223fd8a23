//! Overload protection and time limits on the real binary: the in-flight
//! limits answer 429 with `Retry-After` past them (watches and
//! system:masters exempt, each class on its own), `?timeout=` and
//! `--request-timeout` answer 504, and watches end per `timeoutSeconds` or
//! `--min-request-timeout`; each counted on `/metrics` as kube counts it.
//!
//! A request's place is taken before it is authorized (kube's filter
//! order), so an authorization webhook that holds one user's review open
//! holds that request's place for as long as the test wants: no timing.

use std::path::Path;

use cairn_tests::authz_gate::Gate;
use cairn_tests::metrics_text::sum;
use cairn_tests::{Response, Server, TlsClient, WatchStream};
use serde_json::{Value, json};

const TOKENS: &str = "slow-token,slow,1,\"people\"\nalice-token,alice,2,\"people\"\n";

/// A secure server with the given in-flight limits (read-only, mutating),
/// authorizing through `gate` (answers are not cached).
fn start(dir: &Path, gate: &Gate, limits: (&str, &str)) -> Server {
    let tokens = dir.join("tokens.csv");
    std::fs::write(&tokens, TOKENS).expect("tokens");
    let config = json!({
        "apiVersion": "apiserver.config.k8s.io/v1",
        "kind": "AuthorizationConfiguration",
        "authorizers": [{
            "type": "Webhook", "name": "gate",
            "webhook": {
                "timeout": "30s", "authorizedTTL": "1ns", "unauthorizedTTL": "1ns",
                "cacheAuthorizedRequests": false, "cacheUnauthorizedRequests": false,
                "subjectAccessReviewVersion": "v1",
                "matchConditionSubjectAccessReviewVersion": "v1",
                "failurePolicy": "Deny",
                "connectionInfo": {"type": "KubeConfigFile", "kubeConfigFile": gate.kubeconfig(dir)}
            }
        }, {"type": "RBAC", "name": "rbac"}]
    });
    let file = dir.join("authz.json");
    std::fs::write(&file, config.to_string()).expect("config");
    Server::start_secure(&[
        "--token-auth-file",
        tokens.to_str().expect("path"),
        "--authorization-config",
        file.to_str().expect("path"),
        "--max-requests-inflight",
        limits.0,
        "--max-mutating-requests-inflight",
        limits.1,
    ])
}

fn call(
    server: &Server,
    client: &TlsClient,
    token: &str,
    method: &str,
    path: &str,
) -> (u16, Value, Option<String>) {
    let bearer = format!("Bearer {token}");
    let mut headers = vec![("Authorization", bearer.as_str())];
    let body = (method == "POST").then(|| {
        headers.push(("Content-Type", "application/json"));
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "cm-"}})
            .to_string()
            .into_bytes()
    });
    let r = server.https(client, method, path, &headers, body.as_deref());
    let retry_after = r.header("Retry-After").map(str::to_string);
    let json = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
    (r.status, json, retry_after)
}

const CONFIG_MAPS: &str = "/api/v1/namespaces/default/configmaps";

/// Holds one `method` request of `slow` on `CONFIG_MAPS` in the gate; the
/// returned thread ends with its status once the gate opens.
fn hold(server: &Server, gate: &Gate, method: &'static str) -> std::thread::JoinHandle<u16> {
    let client = server.tls_client(None);
    let port = server.https_port();
    let handle = std::thread::spawn(move || {
        let mut headers = vec![("Authorization", "Bearer slow-token")];
        let body = (method == "POST").then(|| {
            headers.push(("Content-Type", "application/json"));
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "held-"}})
                .to_string()
                .into_bytes()
        });
        client
            .request(port, method, CONFIG_MAPS, &headers, body.as_deref())
            .expect("held request")
            .status
    });
    gate.wait_held();
    handle
}

fn assert_too_many(answer: &(u16, Value, Option<String>)) {
    let (code, status, retry_after) = answer;
    assert_eq!(*code, 429, "{status}");
    assert_eq!(retry_after.as_deref(), Some("1"));
    assert_eq!(status["kind"], "Status");
    assert_eq!(status["reason"], "TooManyRequests");
    assert_eq!(
        status["message"],
        "Too many requests, please try again later."
    );
    assert_eq!(status["details"]["retryAfterSeconds"], 1);
}

#[test]
fn past_the_read_only_limit_requests_get_429_but_watches_masters_and_writes_pass() {
    let gate = Gate::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let server = start(dir.path(), &gate, ("1", "1"));
    let client = server.tls_client(None);
    let held = hold(&server, &gate, "GET");

    assert_too_many(&call(&server, &client, "alice-token", "GET", CONFIG_MAPS));
    let health = call(&server, &client, "alice-token", "GET", "/version");
    assert_eq!(health.0, 429, "non-resource reads count as read-only too");
    let watch = format!("{CONFIG_MAPS}?watch=1&timeoutSeconds=1");
    assert_eq!(call(&server, &client, "alice-token", "GET", &watch).0, 200);
    let admin = server.admin_client();
    let r = server.https(&admin, "GET", CONFIG_MAPS, &[], None);
    assert_eq!(r.status, 200, "system:masters is never refused");
    let created = call(&server, &client, "alice-token", "POST", CONFIG_MAPS);
    assert_eq!(created.0, 201, "the mutating class has its own limit");

    gate.release();
    assert_eq!(held.join().expect("held"), 200);
    assert_eq!(
        call(&server, &client, "alice-token", "GET", CONFIG_MAPS).0,
        200
    );
}

#[test]
fn past_the_mutating_limit_writes_get_429_and_reads_pass() {
    let gate = Gate::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let server = start(dir.path(), &gate, ("1", "1"));
    let client = server.tls_client(None);
    let held = hold(&server, &gate, "POST");

    assert_too_many(&call(&server, &client, "alice-token", "POST", CONFIG_MAPS));
    assert_eq!(
        call(&server, &client, "alice-token", "GET", CONFIG_MAPS).0,
        200
    );

    gate.release();
    assert_eq!(held.join().expect("held"), 201);
    assert_eq!(
        call(&server, &client, "alice-token", "POST", CONFIG_MAPS).0,
        201
    );

    // As kube counts it: the refusal among the requests (code 429) and the
    // terminations, the limit's fill through time, and the webhook's
    // decisions under its type and name.
    let page = scrape(&server);
    let refused = [
        ("verb", "POST"),
        ("resource", "configmaps"),
        ("scope", "resource"),
        ("code", "429"),
    ];
    assert_eq!(
        sum(&page, "apiserver_request_total", &refused),
        1.0,
        "{page}"
    );
    assert_eq!(
        sum(&page, "apiserver_request_terminations_total", &refused),
        1.0
    );
    assert_eq!(
        sum(
            &page,
            "apiserver_dropped_requests_total",
            &[("request_kind", "mutating")]
        ),
        1.0
    );
    let mutating = [("phase", "executing"), ("request_kind", "mutating")];
    let name = "apiserver_flowcontrol_read_vs_write_current_requests";
    let at = |le: &str| {
        let mut labels = mutating.to_vec();
        labels.push(("le", le));
        sum(&page, &format!("{name}_bucket"), &labels)
    };
    assert!(
        at("1") > at("0.99"),
        "time spent at the limit (one of one executing): {page}"
    );
    assert!(at("0") > 0.0, "time spent idle");
    assert_eq!(at("+Inf"), sum(&page, &format!("{name}_count"), &mutating));
    let gate_decisions = [
        ("type", "Webhook"),
        ("name", "gate"),
        ("decision", "allowed"),
    ];
    assert!(
        sum(
            &page,
            "apiserver_authorization_decisions_total",
            &gate_decisions
        ) >= 3.0
    );
    assert!(
        sum(
            &page,
            "authorization_attempts_total",
            &[("result", "allowed")]
        ) >= 3.0
    );
}

/// `/metrics` as the admin sees it.
fn scrape(server: &Server) -> String {
    let r = server.https(&server.admin_client(), "GET", "/metrics", &[], None);
    assert_eq!(r.status, 200);
    r.text()
}

#[test]
fn zero_means_unlimited() {
    let gate = Gate::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let server = start(dir.path(), &gate, ("0", "1"));
    let client = server.tls_client(None);
    let held = hold(&server, &gate, "GET");
    for _ in 0..3 {
        assert_eq!(
            call(&server, &client, "alice-token", "GET", CONFIG_MAPS).0,
            200
        );
    }
    gate.release();
    assert_eq!(held.join().expect("held"), 200);
}

fn status_of(r: &Response) -> Value {
    serde_json::from_slice(&r.body).expect("a JSON Status")
}

#[test]
fn a_request_past_its_timeout_gets_504_and_a_bad_timeout_400() {
    let server = Server::start(&[]);
    let r = server.get(&format!("{CONFIG_MAPS}?timeout=1ns"));
    assert_eq!(r.status, 504, "{}", r.text());
    let status = status_of(&r);
    assert_eq!(status["reason"], "Timeout");
    assert_eq!(
        status["message"],
        "Timeout: request did not complete within the allotted timeout"
    );
    assert_eq!(
        server.get(&format!("{CONFIG_MAPS}?timeout=30s")).status,
        200
    );
    let r = server.get(&format!("{CONFIG_MAPS}?timeout=soon"));
    assert_eq!(r.status, 400);
    assert_eq!(
        status_of(&r)["message"],
        "invalid timeout specified in the request URL - time: invalid duration \"soon\""
    );
    // Cut short in self-defense: a termination, and no served request.
    let page = server.get("/metrics").text();
    let cut = [
        ("verb", "LIST"),
        ("resource", "configmaps"),
        ("code", "504"),
    ];
    assert_eq!(
        sum(&page, "apiserver_request_terminations_total", &cut),
        1.0,
        "{page}"
    );
    assert_eq!(sum(&page, "apiserver_request_total", &cut), 0.0);
}

#[test]
fn request_timeout_bounds_every_request_but_watches() {
    let server = Server::start_secure(&["--request-timeout", "1ns"]);
    let admin = server.admin_client();
    let r = server.https(&admin, "GET", CONFIG_MAPS, &[], None);
    assert_eq!(r.status, 504);
    let watch = format!("{CONFIG_MAPS}?watch=1&timeoutSeconds=1");
    assert_eq!(server.https(&admin, "GET", &watch, &[], None).status, 200);
}

#[test]
fn watches_end_at_timeout_seconds_or_after_the_minimum_request_timeout() {
    let server = Server::start(&["--min-request-timeout", "1"]);
    for path in [
        format!("{CONFIG_MAPS}?watch=1&timeoutSeconds=1"),
        format!("{CONFIG_MAPS}?watch=1"),
    ] {
        let mut watch = WatchStream::open(server.port, &path).expect("watch");
        assert_eq!(watch.status, 200);
        while watch.next_event().is_some() {}
        assert!(watch.ended(), "{path}: the server ended the watch");
    }
}
