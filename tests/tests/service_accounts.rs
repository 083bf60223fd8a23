//! Service accounts against the real binary over TLS: the `default`
//! ServiceAccount appears by itself, `kubectl create token` mints tokens
//! (audience, duration, bound Pod) that kubectl then uses, a Pod-bound
//! token is refused once the Pod is gone, the issuer's discovery documents
//! are served as kube-apiserver serves them, and a bad key file stops the
//! start with one line naming the flag and the file.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use cairn_tests::{
    Server, kubectl_admin, kubectl_as_bearer, kubectl_present, kubectl_with_kubeconfig, wait_until,
};
use serde_json::Value;

const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

/// The `default` service account of `default`, as an RBAC subject.
fn default_account() -> Value {
    serde_json::json!({"kind": "ServiceAccount", "namespace": "default", "name": "default"})
}

fn admin(s: &Server, args: &[&str], stdin: Option<&str>) -> String {
    kubectl_admin(s, args, stdin)
}

/// kubectl as the bearer of `token` (no client certificate).
fn as_token(s: &Server, token: &str, args: &[&str]) -> (bool, String) {
    kubectl_as_bearer(s, &s.data_dir.join("pki/ca.crt"), token, args)
}

/// The token with one signature character changed (not the last, whose
/// low bits a decoder may ignore).
fn forge(token: &str) -> String {
    let at = token.len() - 10;
    let swapped = if &token[at..=at] == "A" { "B" } else { "A" };
    format!("{}{swapped}{}", &token[..at], &token[at + 1..])
}

fn claims(token: &str) -> Value {
    let payload = token.trim().split('.').nth(1).expect("a JWT");
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("base64url")).expect("JSON")
}

fn default_account_exists(s: &Server) -> bool {
    kubectl_with_kubeconfig(
        &s.admin_kubeconfig(),
        &["get", "serviceaccount", "default"],
        None,
    )
    .0
}

#[test]
fn kubectl_create_token_mints_tokens_kubectl_can_use() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start_secure(&[]);
    wait_until("the default service account", || default_account_exists(&s));
    s.grant(&default_account(), "edit", ("list", "pods"));

    let token = admin(&s, &["create", "token", "default"], None);
    let token = token.trim();
    let c = claims(token);
    assert_eq!(c["iss"], ISSUER);
    assert_eq!(c["sub"], "system:serviceaccount:default:default");
    assert_eq!(c["aud"], serde_json::json!([ISSUER]));
    assert_eq!(
        c["exp"].as_i64().unwrap() - c["iat"].as_i64().unwrap(),
        3600
    );
    let (ok, out) = as_token(&s, token, &["get", "configmaps", "-o", "name"]);
    assert!(ok, "the token authenticates: {out}");

    let forged = forge(token);
    let (ok, out) = as_token(&s, &forged, &["get", "configmaps"]);
    assert!(!ok && out.contains("Unauthorized"), "{out}");

    let other = admin(
        &s,
        &[
            "create",
            "token",
            "default",
            "--audience",
            "vault",
            "--duration",
            "20m",
        ],
        None,
    );
    let c = claims(&other);
    assert_eq!(c["aud"], serde_json::json!(["vault"]));
    assert_eq!(
        c["exp"].as_i64().unwrap() - c["iat"].as_i64().unwrap(),
        1200
    );
    let (ok, out) = as_token(&s, other.trim(), &["get", "configmaps"]);
    assert!(
        !ok && out.contains("Unauthorized"),
        "another audience's token: {out}"
    );

    let (ok, out) =
        kubectl_with_kubeconfig(&s.admin_kubeconfig(), &["create", "token", "nobody"], None);
    assert!(
        !ok && out.contains("serviceaccounts \"nobody\" not found"),
        "{out}"
    );
}

#[test]
fn a_pod_bound_token_is_refused_once_the_pod_is_gone() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start_secure(&[]);
    wait_until("the default service account", || default_account_exists(&s));
    s.grant(&default_account(), "view", ("list", "pods"));
    let pod = r#"{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
                  "spec": {"containers": [{"name": "web", "image": "nginx"}]}}"#;
    admin(&s, &["create", "-f", "-"], Some(pod));
    let token = admin(
        &s,
        &[
            "create",
            "token",
            "default",
            "--bound-object-kind",
            "Pod",
            "--bound-object-name",
            "web",
        ],
        None,
    );
    let c = claims(&token);
    assert_eq!(c["kubernetes.io"]["pod"]["name"], "web");
    let (ok, out) = as_token(&s, token.trim(), &["get", "pods", "-o", "name"]);
    assert!(ok && out.contains("pod/web"), "{out}");

    // The pod is not scheduled, so nothing waits on a kubelet: removed at once.
    admin(
        &s,
        &["delete", "pod", "web", "--grace-period=0", "--force"],
        None,
    );
    wait_until("the pod's token to be refused", || {
        let (ok, out) = as_token(&s, token.trim(), &["get", "configmaps"]);
        !ok && out.contains("Unauthorized")
    });
    let (ok, out) = kubectl_with_kubeconfig(
        &s.admin_kubeconfig(),
        &[
            "create",
            "token",
            "default",
            "--bound-object-kind",
            "Pod",
            "--bound-object-name",
            "web",
        ],
        None,
    );
    assert!(!ok && out.contains("pods \"web\" not found"), "{out}");
}

#[test]
fn the_issuer_discovery_documents_are_served_as_kube_apiserver_serves_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data_dir = dir.path().join("data");
    let mut s = Server::start_secure_on(&data_dir, &[]);
    let admin = s.admin_client();
    let config = s.https(
        &admin,
        "GET",
        "/.well-known/openid-configuration",
        &[],
        None,
    );
    assert_eq!(config.status, 200);
    assert_eq!(config.header("content-type"), Some("application/json"));
    assert_eq!(config.header("cache-control"), Some("public, max-age=3600"));
    let doc = config.json();
    assert_eq!(doc["issuer"], ISSUER);
    assert_eq!(
        doc["response_types_supported"],
        serde_json::json!(["id_token"])
    );
    assert_eq!(
        doc["subject_types_supported"],
        serde_json::json!(["public"])
    );
    assert_eq!(
        doc["id_token_signing_alg_values_supported"],
        serde_json::json!(["ES256"])
    );
    assert_eq!(
        doc["jwks_uri"],
        format!("https://127.0.0.1:{}/openid/v1/jwks", s.https_port())
    );

    let jwks = s.https(&admin, "GET", "/openid/v1/jwks", &[], None);
    assert_eq!(jwks.status, 200);
    assert_eq!(
        jwks.header("content-type"),
        Some("application/jwk-set+json")
    );
    assert_eq!(jwks.header("cache-control"), Some("public, max-age=3600"));
    let keys = jwks.json()["keys"].as_array().cloned().expect("keys");
    assert_eq!(keys.len(), 1);
    let key = &keys[0];
    assert_eq!(
        (
            key["use"].as_str(),
            key["kty"].as_str(),
            key["crv"].as_str()
        ),
        (Some("sig"), Some("EC"), Some("P-256"))
    );

    // The generated key is kept: a restart serves the same key id.
    s.stop();
    let again = Server::start_secure_on(&data_dir, &[]);
    let jwks = again
        .https(&again.admin_client(), "GET", "/openid/v1/jwks", &[], None)
        .json();
    assert_eq!(jwks["keys"][0]["kid"], key["kid"]);
}

#[test]
fn a_bad_key_file_stops_the_start_naming_flag_and_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("sa.key");
    std::fs::write(
        &bad,
        "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----\n",
    )
    .expect("write");
    for (flag, file) in [
        ("--service-account-signing-key-file", bad.clone()),
        ("--service-account-key-file", dir.path().join("missing.pem")),
    ] {
        let out = std::process::Command::new(cairn_tests::binary())
            .arg("--data-dir")
            .arg(dir.path().join("data"))
            .args(["--secure-port", &cairn_tests::free_port().to_string()])
            .arg(flag)
            .arg(&file)
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
        assert!(!out.status.success(), "{flag}: {stderr}");
        assert_eq!(errors.len(), 1, "{flag}: {stderr}");
        assert!(
            errors[0].contains(flag) && errors[0].contains(&file.display().to_string()),
            "{stderr}"
        );
        assert!(!stderr.contains("c2VjcmV0"), "no key material in the log");
    }
}
