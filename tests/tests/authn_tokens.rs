//! Static bearer tokens (`--token-auth-file`) and anonymous requests on the
//! real binary over TLS: kubectl with `--token` and `kubectl auth whoami`,
//! the Python client with a bearer token, TokenReview and SelfSubjectReview
//! over HTTPS, unknown tokens refused with a 401 that changes nothing,
//! `--anonymous-auth` on and off, and a bad token file stopping the start.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cairn_tests::{Server, TlsClient, binary, kubectl_present, python};
use serde_json::{Value, json};

const TOKENS: &str = "alice-token,alice,1001,\"devs\"\nbob-token,bob,1002\n";

/// A secure server whose token file is `TOKENS`, with `extra` flags; the
/// directory holding the token file and the cluster CA's PEM file.
fn start(extra: &[&str]) -> (Server, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    let tokens = dir.path().join("tokens.csv");
    std::fs::write(&tokens, TOKENS).expect("token file");
    let mut args = vec!["--token-auth-file", tokens.to_str().expect("utf-8 path")];
    args.extend_from_slice(extra);
    let s = Server::start_secure(&args);
    std::fs::write(ca_file(&dir), s.ca_pem()).expect("ca file");
    // alice may edit (and list namespaces); both may review tokens, as
    // kube's system:auth-delegator lets an authenticating proxy do.
    s.grant(
        &json!({"kind": "User", "name": "alice"}),
        "edit",
        ("create", "configmaps"),
    );
    s.grant(
        &json!({"kind": "User", "name": "alice"}),
        "view",
        ("list", "namespaces"),
    );
    for reviewer in ["alice", "bob"] {
        s.grant(
            &json!({"kind": "User", "name": reviewer}),
            "system:auth-delegator",
            ("create", "tokenreviews.authentication.k8s.io"),
        );
    }
    (s, dir)
}

fn ca_file(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("ca.crt")
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// A request over HTTPS, trusting the cluster CA, with a bearer token.
fn call(
    s: &Server,
    token: Option<&str>,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> (u16, Value) {
    let client = TlsClient::new(&s.ca_pem(), None);
    let auth = token.map(bearer);
    let mut headers = vec![("Content-Type", "application/json")];
    if let Some(a) = auth.as_deref() {
        headers.push(("Authorization", a));
    }
    let bytes = body.map(|b| serde_json::to_vec(b).expect("json"));
    let r = s.https(&client, method, path, &headers, bytes.as_deref());
    let value = serde_json::from_slice(&r.body).unwrap_or_else(|_| Value::String(r.text()));
    (r.status, value)
}

/// kubectl against the HTTPS port with the cluster CA and a token.
fn kubectl(s: &Server, ca: &Path, token: &str, args: &[&str]) -> (bool, String) {
    let mut kubectl = cairn_tests::clients::kubectl_command(s);
    let out = kubectl
        .arg("--server")
        .arg(s.https_url())
        .arg("--certificate-authority")
        .arg(ca)
        .arg("--token")
        .arg(token)
        .args(args)
        .env("KUBECONFIG", "/dev/null")
        .output()
        .expect("kubectl");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

const CONFIG_MAPS: &str = "/api/v1/namespaces/default/configmaps";

fn exists(s: &Server, name: &str) -> bool {
    let path = format!("{CONFIG_MAPS}/{name}");
    s.https(&s.admin_client(), "GET", &path, &[], None).status == 200
}

#[test]
fn kubectl_with_a_static_token_and_auth_whoami() {
    if !kubectl_present() {
        return;
    }
    let (s, dir) = start(&[]);
    let ca = ca_file(&dir);
    let (ok, out) = kubectl(&s, &ca, "alice-token", &["get", "ns", "-o", "name"]);
    assert!(ok && out.contains("namespace/default"), "{out}");
    let (ok, out) = kubectl(
        &s,
        &ca,
        "alice-token",
        &["create", "configmap", "by-alice", "--from-literal=k=v"],
    );
    assert!(ok, "{out}");
    assert!(exists(&s, "by-alice"));
    let (ok, out) = kubectl(&s, &ca, "alice-token", &["auth", "whoami", "-o", "json"]);
    assert!(ok, "{out}");
    let me: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(
        (&me["apiVersion"], &me["kind"], &me["status"]["userInfo"]),
        (
            &json!("authentication.k8s.io/v1"),
            &json!("SelfSubjectReview"),
            &json!({"username": "alice", "uid": "1001", "groups": ["devs", "system:authenticated"]})
        )
    );
    let (ok, out) = kubectl(&s, &ca, "bob-token", &["auth", "whoami"]);
    assert!(
        ok && out.contains("bob") && out.contains("[system:authenticated]"),
        "{out}"
    );

    let (ok, out) = kubectl(
        &s,
        &ca,
        "forged-token",
        &["create", "configmap", "by-forger"],
    );
    assert!(!ok && out.contains("Unauthorized"), "{out}");
    assert!(
        !out.contains("forged-token"),
        "the token is not echoed: {out}"
    );
    assert!(
        !exists(&s, "by-forger"),
        "a refused request changes nothing"
    );
    assert!(
        !s.log_text().contains("forged-token"),
        "tokens never reach the log"
    );
}

#[test]
fn token_reviews_and_refusals_over_https() {
    let (s, _dir) = start(&[]);
    let review = |token: &str| json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": token}});
    let path = "/apis/authentication.k8s.io/v1/tokenreviews";
    let (code, good) = call(
        &s,
        Some("bob-token"),
        "POST",
        path,
        Some(&review("alice-token")),
    );
    assert_eq!(code, 201, "{good}");
    assert_eq!(
        good["status"],
        json!({
            "authenticated": true,
            "user": {"username": "alice", "uid": "1001", "groups": ["devs", "system:authenticated"]},
            // No audiences asked: the API audiences (the issuer's by default).
            "audiences": ["https://kubernetes.default.svc.cluster.local"],
        })
    );
    let (code, bad) = call(&s, Some("bob-token"), "POST", path, Some(&review("nope")));
    assert_eq!(
        (code, &bad["status"]["error"]),
        (201, &json!("invalid bearer token"))
    );
    let (code, empty) = call(&s, Some("bob-token"), "POST", path, Some(&review("")));
    assert_eq!(
        (code, &empty["message"]),
        (
            400,
            &json!("token is required for TokenReview in authentication")
        )
    );
    // Reading reviews is refused: first by RBAC (bob may only create
    // them), then, for who may do anything, as a method the kind lacks.
    assert_eq!(call(&s, Some("bob-token"), "GET", path, None).0, 403);
    assert_eq!(
        s.https(&s.admin_client(), "GET", path, &[], None).status,
        405
    );

    // Malformed and unknown tokens: 401, Kubernetes' bare Status, and no write.
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "refused"}});
    for token in ["nope", "alice-token2", "ALICE-TOKEN", "nope extra"] {
        let (code, status) = call(&s, Some(token), "POST", CONFIG_MAPS, Some(&cm));
        assert_eq!(
            (code, &status["reason"], &status["message"]),
            (401, &json!("Unauthorized"), &json!("Unauthorized")),
            "{token:?}"
        );
    }
    assert!(!exists(&s, "refused"));
}

#[test]
fn anonymous_requests_follow_the_flag() {
    let (on, _dir) = start(&[]);
    // Anonymous callers are someone (they may read health), but not
    // authenticated users.
    assert_eq!(call(&on, None, "GET", "/healthz", None).0, 200);
    assert_eq!(call(&on, None, "GET", CONFIG_MAPS, None).0, 403);
    let (off, _dir) = start(&["--anonymous-auth=false"]);
    let (code, status) = call(&off, None, "GET", "/healthz", None);
    assert_eq!((code, &status["reason"]), (401, &json!("Unauthorized")));
    assert_eq!(
        call(&off, Some("bob-token"), "GET", "/healthz", None).0,
        200
    );
}

#[test]
fn the_python_client_with_a_bearer_token() {
    let Some(py) = python() else {
        eprintln!("SKIPPED: the Python `kubernetes` client is not installed");
        return;
    };
    let (s, dir) = start(&[]);
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("python/bearer_token.py");
    let out = Command::new(py)
        .arg(script)
        .arg(s.https_url())
        .arg(ca_file(&dir))
        .arg("alice-token")
        .output()
        .expect("run python");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("all checks passed"),
        "python client checks failed:\n{stdout}\n{}\nserver log:\n{}",
        String::from_utf8_lossy(&out.stderr),
        s.log_text()
    );
}

/// The start-up error of a server given `tokens` as its token file.
fn start_up_error(tokens: &str) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("tokens.csv");
    std::fs::write(&file, tokens).expect("token file");
    let mut child = Command::new(binary())
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .args([
            "--secure-port",
            "0",
            "--insecure-port",
            "0",
            "--token-auth-file",
        ])
        .arg(&file)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start cairn-apiserver");
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the server started with a bad token file");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("output");
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).replace(&file.display().to_string(), "FILE")
}

#[test]
fn a_bad_token_file_stops_the_start_with_one_line() {
    let short = start_up_error("ok-token,alice,1\nsecret-short,bob\n");
    assert!(
        short.contains("token file 'FILE' must have at least 3 columns (token, user name, user uid), found 2 (record 2, line 2)"),
        "{short}"
    );
    let quoted = start_up_error("se\"cret,alice,1\n");
    assert!(
        quoted.contains(
            "token file 'FILE': parse error on line 1, column 3: bare \" in non-quoted-field"
        ),
        "{quoted}"
    );
    for text in [short, quoted] {
        assert!(
            !text.contains("secret") && !text.contains("se\"cret"),
            "{text}"
        );
    }
}
