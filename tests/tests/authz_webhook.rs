//! `--authorization-config` on the real binary: a webhook served by the
//! test decides first for static-token users (allowed, denied with its
//! reason, no opinion leaving RBAC to decide), answers are cached, match
//! conditions keep requests away from it, and the file is re-read when it
//! changes. (Refusals at start: `authz_config.rs`.)

use std::io::{BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cairn_tests::{Server, TlsClient};
use serde_json::{Value, json};

/// A plain-HTTP webhook on loopback: `decide` maps a review's spec to its
/// status; every review is kept, with the `traceparent` it came with.
struct Hook {
    url: String,
    calls: Arc<AtomicUsize>,
    reviews: Arc<Mutex<Vec<Value>>>,
    traceparents: Arc<Mutex<Vec<Option<String>>>>,
}

impl Hook {
    fn start(decide: fn(&Value) -> Value) -> Hook {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!(
            "http://127.0.0.1:{}/authorize",
            listener.local_addr().expect("addr").port()
        );
        let calls = Arc::new(AtomicUsize::new(0));
        let reviews = Arc::new(Mutex::new(Vec::new()));
        let traceparents = Arc::new(Mutex::new(Vec::new()));
        let kept = (
            Arc::clone(&calls),
            Arc::clone(&reviews),
            Arc::clone(&traceparents),
        );
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = (
                    Arc::clone(&kept.0),
                    Arc::clone(&kept.1),
                    Arc::clone(&kept.2),
                );
                std::thread::spawn(move || serve(stream, decide, &kept.0, &kept.1, &kept.2));
            }
        });
        Hook {
            url,
            calls,
            reviews,
            traceparents,
        }
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    fn kubeconfig(&self, dir: &Path) -> String {
        let path = dir.join("hook.kubeconfig");
        let doc = json!({
            "apiVersion": "v1", "kind": "Config",
            "clusters": [{"name": "hook", "cluster": {"server": self.url}}],
            "contexts": [{"name": "hook", "context": {"cluster": "hook"}}],
            "current-context": "hook"
        });
        std::fs::write(&path, doc.to_string()).expect("write kubeconfig");
        path.display().to_string()
    }
}

/// Answers requests on one keep-alive connection until it closes.
fn serve(
    stream: std::net::TcpStream,
    decide: fn(&Value) -> Value,
    calls: &AtomicUsize,
    reviews: &Mutex<Vec<Value>>,
    traceparents: &Mutex<Vec<Option<String>>>,
) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut writer = stream;
    loop {
        let Some(seen) = cairn_tests::http_request::read_request(&mut reader) else {
            return;
        };
        let traceparent = seen
            .header_values("traceparent")
            .first()
            .map(|v| v.to_string());
        traceparents.lock().expect("lock").push(traceparent);
        let review: Value = serde_json::from_slice(&seen.body).unwrap_or(Value::Null);
        let status = decide(&review["spec"]);
        calls.fetch_add(1, Ordering::SeqCst);
        reviews.lock().expect("lock").push(review.clone());
        let answer = json!({"apiVersion": review["apiVersion"], "kind": "SubjectAccessReview", "status": status})
            .to_string();
        let response = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{answer}",
            answer.len()
        );
        if writer.write_all(response.as_bytes()).is_err() {
            return;
        }
    }
}

/// alice may do everything, bob nothing, anyone else is not its business.
fn alice_yes_bob_no(spec: &Value) -> Value {
    match spec["user"].as_str() {
        Some("alice") => json!({"allowed": true}),
        Some("bob") => json!({"allowed": false, "denied": true, "reason": "bob is on leave"}),
        _ => json!({"allowed": false, "reason": "not mine to say"}),
    }
}

const TOKENS: &str =
    "alice-token,alice,1,\"people\"\nbob-token,bob,2,\"people\"\ncarol-token,carol,3,\"people\"\n";

fn config(authorizers: Value) -> String {
    json!({
        "apiVersion": "apiserver.config.k8s.io/v1",
        "kind": "AuthorizationConfiguration",
        "authorizers": authorizers
    })
    .to_string()
}

fn webhook_entry(kubeconfig: &str) -> Value {
    json!({
        "type": "Webhook",
        "name": "people-hook",
        "webhook": {
            "timeout": "3s",
            "authorizedTTL": "5m",
            "unauthorizedTTL": "5m",
            "subjectAccessReviewVersion": "v1",
            "matchConditionSubjectAccessReviewVersion": "v1",
            "failurePolicy": "NoOpinion",
            "connectionInfo": {"type": "KubeConfigFile", "kubeConfigFile": kubeconfig},
            "matchConditions": [{"expression": "has(request.resourceAttributes)"}]
        }
    })
}

fn start(dir: &Path, authorizers: Value) -> Server {
    start_with(dir, authorizers, &[])
}

fn start_with(dir: &Path, authorizers: Value, extra: &[&str]) -> Server {
    let tokens = dir.join("tokens.csv");
    std::fs::write(&tokens, TOKENS).expect("tokens");
    let file = dir.join("authz.json");
    std::fs::write(&file, config(authorizers)).expect("config");
    let mut args = vec![
        "--token-auth-file",
        tokens.to_str().expect("path"),
        "--authorization-config",
        file.to_str().expect("path"),
    ];
    args.extend_from_slice(extra);
    Server::start_secure(&args)
}

fn status_as(server: &Server, client: &TlsClient, token: &str, path: &str) -> (u16, String) {
    let bearer = format!("Bearer {token}");
    let r = server.https(client, "GET", path, &[("Authorization", &bearer)], None);
    (r.status, String::from_utf8_lossy(&r.body).into_owned())
}

#[test]
fn the_webhook_decides_first_and_rbac_after_it() {
    let hook = Hook::start(alice_yes_bob_no);
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = hook.kubeconfig(dir.path());
    let server = start(
        dir.path(),
        json!([webhook_entry(&kubeconfig), {"type": "RBAC", "name": "rbac"}]),
    );
    let client = server.tls_client(None);
    let pods = "/api/v1/namespaces/default/pods";

    assert_eq!(status_as(&server, &client, "alice-token", pods).0, 200);
    let review = hook.reviews.lock().expect("lock")[0].clone();
    assert_eq!(review["apiVersion"], "authorization.k8s.io/v1");
    assert_eq!(
        review["spec"]["resourceAttributes"],
        json!({"namespace": "default", "verb": "list", "version": "v1", "resource": "pods"})
    );
    assert_eq!(review["spec"]["uid"], "1");

    let (code, body) = status_as(&server, &client, "bob-token", pods);
    assert_eq!(code, 403);
    assert!(body.contains("bob is on leave"), "{body}");

    // No opinion from the webhook: RBAC decides, and grants nothing yet.
    assert_eq!(status_as(&server, &client, "carol-token", pods).0, 403);
    let admin = server.admin_client();
    let rbac = "/apis/rbac.authorization.k8s.io/v1/namespaces/default";
    let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "pod-reader"},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]}]});
    let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "carol-reads"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "pod-reader"},
        "subjects": [{"kind": "User", "name": "carol", "apiGroup": "rbac.authorization.k8s.io"}]});
    for (path, body) in [
        (format!("{rbac}/roles"), role),
        (format!("{rbac}/rolebindings"), binding),
    ] {
        let bytes = body.to_string();
        let r = server.https(
            &admin,
            "POST",
            &path,
            &[("Content-Type", "application/json")],
            Some(bytes.as_bytes()),
        );
        assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while status_as(&server, &client, "carol-token", pods).0 != 200 {
        assert!(Instant::now() < deadline, "RBAC never allowed carol");
        std::thread::sleep(Duration::from_millis(100));
    }

    // Cached answers: asking again calls nobody.
    let before = hook.calls();
    assert_eq!(status_as(&server, &client, "alice-token", pods).0, 200);
    assert_eq!(status_as(&server, &client, "bob-token", pods).0, 403);
    assert_eq!(hook.calls(), before);

    // The match condition keeps non-resource requests away from the webhook.
    status_as(&server, &client, "alice-token", "/version");
    assert_eq!(hook.calls(), before);
}

#[test]
fn a_changed_file_replaces_the_chain() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = start(
        dir.path(),
        json!([{"type": "AlwaysAllow", "name": "everyone"}]),
    );
    let client = server.tls_client(None);
    let pods = "/api/v1/namespaces/default/pods";
    assert_eq!(status_as(&server, &client, "carol-token", pods).0, 200);

    let file = dir.path().join("authz.json");
    std::fs::write(
        &file,
        config(json!([{"type": "AlwaysDeny", "name": "nobody"}])),
    )
    .expect("write");
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let (code, body) = status_as(&server, &client, "carol-token", pods);
        if code == 403 {
            assert!(body.contains("Everything is forbidden."), "{body}");
            break;
        }
        assert!(Instant::now() < deadline, "the new file never took effect");
        std::thread::sleep(Duration::from_millis(200));
    }

    std::fs::write(&file, config(json!([{"type": "Node", "name": "node"}]))).expect("write");
    let deadline = Instant::now() + Duration::from_secs(15);
    while !server
        .log_text()
        .contains("authorization configuration not reloaded")
    {
        assert!(
            Instant::now() < deadline,
            "the invalid file was not reported"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(status_as(&server, &client, "carol-token", pods).0, 403);
    // The privileged group stays in front whatever the file says.
    let r = server.https(&server.admin_client(), "GET", pods, &[], None);
    assert_eq!(r.status, 200);
}

#[test]
fn mode_webhook_uses_the_legacy_flags() {
    let hook = Hook::start(alice_yes_bob_no);
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = hook.kubeconfig(dir.path());
    let tokens = dir.path().join("tokens.csv");
    std::fs::write(&tokens, TOKENS).expect("tokens");
    let server = Server::start_secure(&[
        "--token-auth-file",
        tokens.to_str().expect("path"),
        "--authorization-mode",
        "Webhook,RBAC",
        "--authorization-webhook-config-file",
        &kubeconfig,
        "--authorization-webhook-cache-authorized-ttl",
        "0s",
    ]);
    let client = server.tls_client(None);
    let pods = "/api/v1/namespaces/default/pods";
    assert_eq!(status_as(&server, &client, "alice-token", pods).0, 200);
    assert_eq!(status_as(&server, &client, "alice-token", pods).0, 200);
    assert_eq!(hook.calls(), 2, "a 0s authorized TTL caches nothing");
    let review = hook.reviews.lock().expect("lock")[0].clone();
    assert_eq!(review["apiVersion"], "authorization.k8s.io/v1beta1");
    assert_eq!(
        review["spec"]["group"],
        json!(["people", "system:authenticated"])
    );
    assert_eq!(status_as(&server, &client, "bob-token", pods).0, 403);
}

#[test]
fn a_traced_request_carries_its_trace_to_the_webhook() {
    let collector = cairn_tests::otlp_collector::Collector::start();
    let hook = Hook::start(alice_yes_bob_no);
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = hook.kubeconfig(dir.path());
    let tracing = dir.path().join("tracing.yaml");
    let text = format!(
        "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\nendpoint: {}\nsamplingRatePerMillion: 1000000\n",
        collector.endpoint()
    );
    std::fs::write(&tracing, text).expect("tracing config");
    let server = start_with(
        dir.path(),
        json!([webhook_entry(&kubeconfig), {"type": "RBAC", "name": "rbac"}]),
        &["--tracing-config-file", tracing.to_str().expect("path")],
    );
    let client = server.tls_client(None);
    let path = "/api/v1/namespaces/default/configmaps";
    assert_eq!(status_as(&server, &client, "alice-token", path).0, 200);
    let traceparent = hook
        .traceparents
        .lock()
        .expect("lock")
        .last()
        .cloned()
        .flatten()
        .expect("the review carried a traceparent");
    let parts: Vec<&str> = traceparent.split('-').collect();
    let (trace_id, client_span) = (parts[1].to_string(), parts[2].to_string());
    let spans = collector.wait_for("the request's spans", |spans| {
        spans.iter().any(|s| s.trace_id == trace_id && s.kind == 2)
    });
    let call = spans
        .iter()
        .find(|s| s.span_id == client_span)
        .expect("the call's client span");
    assert_eq!(call.name, "HTTP POST");
    let request = spans
        .iter()
        .find(|s| s.trace_id == trace_id && s.kind == 2)
        .expect("the request's span");
    assert_eq!(
        call.parent_span_id, request.span_id,
        "the call is under the request"
    );
    assert_eq!(
        request.name,
        "GET /api/v1/namespaces/{:namespace}/configmaps"
    );
    assert_eq!(request.attribute("http.scheme"), Some("https"));
}
