//! `--authorization-config` on the real binary: a webhook served by the
//! test decides first for static-token users (allowed, denied with its
//! reason, no opinion leaving RBAC to decide), answers are cached, match
//! conditions keep requests away from it, the file is re-read when it
//! changes, and every rule group of AuthorizationConfiguration stops the
//! start with one line naming the field.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cairn_tests::{Server, TlsClient};
use serde_json::{Value, json};

/// A plain-HTTP webhook on loopback: `decide` maps a review's spec to its
/// status; every review is kept.
struct Hook {
    url: String,
    calls: Arc<AtomicUsize>,
    reviews: Arc<Mutex<Vec<Value>>>,
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
        let (c, r) = (Arc::clone(&calls), Arc::clone(&reviews));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (c, r) = (Arc::clone(&c), Arc::clone(&r));
                std::thread::spawn(move || serve(stream, decide, &c, &r));
            }
        });
        Hook {
            url,
            calls,
            reviews,
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
) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut writer = stream;
    loop {
        let mut length = 0usize;
        let mut line = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let review: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
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
    let tokens = dir.join("tokens.csv");
    std::fs::write(&tokens, TOKENS).expect("tokens");
    let file = dir.join("authz.json");
    std::fs::write(&file, config(authorizers)).expect("config");
    Server::start_secure(&[
        "--token-auth-file",
        tokens.to_str().expect("path"),
        "--authorization-config",
        file.to_str().expect("path"),
    ])
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

/// Starts the binary with `text` as the configuration (and `extra` flags);
/// asserts it exits non-zero with one line on stderr, and returns it.
fn refusal(text: &str, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("authz.yaml");
    std::fs::write(&path, text).expect("write");
    let out = Command::new(cairn_tests::binary())
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .args(["--secure-port", "0", "--insecure-port", "0"])
        .arg("--authorization-config")
        .arg(&path)
        .args(extra)
        .output()
        .expect("run cairn-apiserver");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(!out.status.success(), "started with {text}");
    assert_eq!(lines.len(), 1, "one line, got: {stderr}");
    assert!(!dir.path().join("data").exists(), "nothing written");
    lines[0].to_owned()
}

fn refused(authorizers: Value, line: &str) {
    let got = refusal(&config(authorizers), &[]);
    assert!(got.ends_with(line), "got: {got}\nwanted: {line}");
}

/// A valid webhook entry (its kubeconfig in `dir`) with `key` set (`null` removes it).
fn hook_with(dir: &Path, key: &str, value: Value) -> Value {
    let kubeconfig = dir.join("k.kubeconfig");
    std::fs::write(
        &kubeconfig,
        "clusters: [{name: k, cluster: {server: 'http://127.0.0.1:9'}}]\n",
    )
    .expect("write");
    let mut entry = webhook_entry(kubeconfig.to_str().expect("path"));
    let webhook = entry["webhook"].as_object_mut().expect("webhook");
    if value.is_null() {
        webhook.remove(key);
    } else {
        webhook.insert(key.into(), value);
    }
    entry
}

#[test]
fn authorizers_types_and_names_are_checked_at_start() {
    refused(
        json!([]),
        "authorizers: Required value: at least one authorization mode must be defined",
    );
    refused(
        json!([{"type": "Node", "name": "node"}]),
        "authorizers[0].type: Unsupported value: \"Node\": supported values: \"AlwaysAllow\", \"AlwaysDeny\", \"RBAC\", \"Webhook\"",
    );
    refused(
        json!([{"type": "RBAC", "name": "a"}, {"type": "RBAC", "name": "b"}]),
        "authorizers[1].type: Duplicate value: \"RBAC\"",
    );
    refused(
        json!([{"type": "RBAC"}]),
        "authorizers[0].name: Required value",
    );
    refused(
        json!([{"type": "AlwaysAllow", "name": "a"}, {"type": "AlwaysDeny", "name": "a"}]),
        "authorizers[1].name: Duplicate value: \"a\"",
    );
    assert!(
        refusal(
            &config(json!([{"type": "RBAC", "name": "Not_A_Label"}])),
            &[]
        )
        .contains(
            "authorizers[0].name: Invalid value: \"Not_A_Label\": authorizer name is invalid"
        )
    );
}

#[test]
fn webhook_presence_is_checked_at_start() {
    refused(
        json!([{"type": "Webhook", "name": "w"}]),
        "authorizers[0].webhook: Required value: required when type=Webhook",
    );
    refused(
        json!([{"type": "RBAC", "name": "r", "webhook": {}}]),
        "authorizers[0].webhook: Invalid value: \"non-null\": may only be specified when type=Webhook",
    );
}

#[test]
fn webhook_durations_versions_and_policy_are_checked_at_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    refused(
        json!([hook_with(d, "timeout", Value::Null)]),
        "authorizers[0].timeout: Required value",
    );
    refused(
        json!([hook_with(d, "timeout", json!("45s"))]),
        "authorizers[0].timeout: Invalid value: \"45s\": must be > 0s and <= 30s",
    );
    refused(
        json!([hook_with(d, "authorizedTTL", json!("-1s"))]),
        "authorizers[0].authorizedTTL: Invalid value: \"-1s\": must be > 0s",
    );
    refused(
        json!([hook_with(d, "subjectAccessReviewVersion", json!("v2"))]),
        "authorizers[0].subjectAccessReviewVersion: Unsupported value: \"v2\": supported values: \"v1\", \"v1beta1\"",
    );
    refused(
        json!([hook_with(
            d,
            "matchConditionSubjectAccessReviewVersion",
            Value::Null
        )]),
        "authorizers[0].matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified",
    );
    refused(
        json!([hook_with(d, "failurePolicy", json!("Maybe"))]),
        "authorizers[0].failurePolicy: Unsupported value: \"Maybe\": supported values: \"NoOpinion\", \"Deny\"",
    );
}

#[test]
fn webhook_connections_are_checked_at_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    refused(
        json!([hook_with(d, "connectionInfo", json!({"type": "Pigeon"}))]),
        "authorizers[0].connectionInfo.type: Unsupported value: \"Pigeon\": supported values: \"InClusterConfig\", \"KubeConfigFile\"",
    );
    refused(
        json!([hook_with(
            d,
            "connectionInfo",
            json!({"type": "KubeConfigFile", "kubeConfigFile": "/nonexistent/k"})
        )]),
        "authorizers[0].connectionInfo.kubeConfigFile: Invalid value: \"/nonexistent/k\": error loading file: stat /nonexistent/k: no such file or directory",
    );
    refused(
        json!([hook_with(
            d,
            "connectionInfo",
            json!({"type": "KubeConfigFile"})
        )]),
        "authorizers[0].connectionInfo.kubeConfigFile: Required value",
    );
}

#[test]
fn match_conditions_are_checked_at_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let many: Vec<Value> = (0..65)
        .map(|i| json!({"expression": format!("request.uid == '{i}'")}))
        .collect();
    refused(
        json!([hook_with(d, "matchConditions", json!(many))]),
        "authorizers[0].matchConditions: Too many: 65: must have at most 64 items",
    );
    refused(
        json!([hook_with(
            d,
            "matchConditions",
            json!([{"expression": "true"}, {"expression": "true"}])
        )]),
        "authorizers[0].matchConditions[1].expression: Duplicate value: \"true\"",
    );
    assert!(
        refusal(&config(json!([hook_with(d, "matchConditions", json!([{"expression": "request.user =="}]))])), &[])
            .contains("authorizers[0].matchConditions[0].expression: Invalid value: \"request.user ==\": compilation failed")
    );
}

#[test]
fn the_file_and_the_mode_flag_are_exclusive_and_the_kind_is_checked() {
    let valid = config(json!([{"type": "RBAC", "name": "rbac"}]));
    assert!(refusal(&valid, &["--authorization-mode", "RBAC"]).contains("cannot both be set"));
    let wrong_kind = valid.replace("AuthorizationConfiguration", "AuthenticationConfiguration");
    assert!(
        refusal(&wrong_kind, &[]).contains("no kind \"AuthenticationConfiguration\" is registered")
    );
}
