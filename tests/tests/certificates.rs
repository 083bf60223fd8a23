//! certificates.k8s.io/v1 CertificateSigningRequests the Kubernetes way:
//! created with kubectl, validated (422s), system:masters subjects refused
//! (403), approved with `kubectl certificate approve`, signed by the cluster
//! CA, and the issued certificate used with kubectl; denial leaves no
//! certificate, usages the signer refuses fail the request, and approving
//! needs `approve` on the signer.

use std::fs;
use std::path::Path;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use cairn_tests::clients::{kubectl_present, kubectl_with_kubeconfig};
use cairn_tests::{Server, wait_until};
use rcgen::KeyPair;
use serde_json::{Value, json};

const SIGNER: &str = "kubernetes.io/kube-apiserver-client";

/// A key and a PEM request for `cn` in organisation `org`.
fn request(cn: &str, org: Option<&str>) -> (KeyPair, String) {
    cairn_tests::tls::make::request(cn, org, &[])
}

fn csr(name: &str, pem: &str, usages: &[&str]) -> Value {
    json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
        "metadata": {"name": name},
        "spec": {"request": STANDARD.encode(pem), "signerName": SIGNER, "usages": usages,
            "expirationSeconds": 86400}})
}

fn admin(s: &Server, args: &[&str], stdin: Option<&str>) -> (bool, String) {
    kubectl_with_kubeconfig(&s.admin_kubeconfig(), args, stdin)
}

fn get(s: &Server, name: &str) -> Value {
    let (ok, out) = admin(s, &["get", "csr", name, "-o", "json"], None);
    assert!(ok, "{out}");
    serde_json::from_str(&out).expect("json")
}

/// A kubeconfig for the holder of `cert_pem` and `key`.
fn user_kubeconfig(s: &Server, dir: &Path, cert_pem: &str, key: &KeyPair) -> std::path::PathBuf {
    let path = dir.join("user.kubeconfig");
    let config = json!({"apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": s.https_url(),
            "certificate-authority-data": STANDARD.encode(s.ca_pem())}}],
        "users": [{"name": "u", "user": {"client-certificate-data": STANDARD.encode(cert_pem),
            "client-key-data": STANDARD.encode(key.serialize_pem())}}],
        "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "x"});
    fs::write(&path, config.to_string()).expect("write kubeconfig");
    path
}

#[test]
fn a_user_certificate_is_issued_the_kubernetes_way() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start_secure(&["--api-domain", "k8s.io"]);
    // Both organisations become groups: the signer keeps the request's
    // subject whole.
    let (key, pem) = cairn_tests::tls::make::request_in("alice", &["developers", "testers"], &[]);
    let body = csr("alice", &pem, &["client auth", "digital signature"]).to_string();
    let (ok, out) = admin(&s, &["create", "-f", "-"], Some(&body));
    assert!(ok, "{out}");
    let created = get(&s, "alice");
    assert_eq!(created["spec"]["username"], "system:admin", "{created}");
    let (ok, table) = admin(&s, &["get", "csr", "alice"], None);
    assert!(ok, "{table}");
    assert!(
        table.contains("SIGNERNAME") && table.contains("REQUESTEDDURATION"),
        "{table}"
    );
    assert!(
        table.contains(SIGNER) && table.contains("24h") && table.contains("Pending"),
        "{table}"
    );

    let (ok, out) = admin(&s, &["certificate", "approve", "alice"], None);
    assert!(ok, "{out}");
    let mut issued = Value::Null;
    wait_until("the certificate is issued", || {
        issued = get(&s, "alice");
        issued["status"]["certificate"].is_string()
    });
    let cert_pem = String::from_utf8(
        STANDARD
            .decode(issued["status"]["certificate"].as_str().expect("cert"))
            .expect("base64"),
    )
    .expect("utf8");
    assert!(
        cert_pem.starts_with("-----BEGIN CERTIFICATE-----"),
        "{cert_pem}"
    );
    let (_, table) = admin(&s, &["get", "csr", "alice"], None);
    assert!(table.contains("Approved,Issued"), "{table}");

    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = user_kubeconfig(&s, dir.path(), &cert_pem, &key);
    let (ok, whoami) = kubectl_with_kubeconfig(&kubeconfig, &["auth", "whoami"], None);
    assert!(ok, "{whoami}");
    assert!(
        whoami.contains("alice") && whoami.contains("developers") && whoami.contains("testers"),
        "{whoami}"
    );
    let (ok, out) = kubectl_with_kubeconfig(&kubeconfig, &["get", "pods"], None);
    assert!(!ok && out.contains("Forbidden"), "{out}");

    // A user without `approve` on the signer may not approve requests.
    let (_, other) = request("bob", None);
    let body = csr("bob", &other, &["client auth"]).to_string();
    assert!(admin(&s, &["create", "-f", "-"], Some(&body)).0);
    let rules = r#"{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
        "metadata":{"name":"csr-editor"},"rules":[{"apiGroups":["certificates.k8s.io"],
        "resources":["certificatesigningrequests","certificatesigningrequests/approval"],
        "verbs":["get","list","update"]}]}"#;
    assert!(admin(&s, &["create", "-f", "-"], Some(rules)).0);
    let (ok, out) = admin(
        &s,
        &[
            "create",
            "clusterrolebinding",
            "alice-csr",
            "--clusterrole=csr-editor",
            "--user=alice",
        ],
        None,
    );
    assert!(ok, "{out}");
    let (ok, out) = kubectl_with_kubeconfig(&kubeconfig, &["certificate", "approve", "bob"], None);
    assert!(
        !ok && out.contains("user not permitted to approve requests with signerName"),
        "{out}"
    );
    // Deny: no certificate ever.
    let (ok, out) = admin(&s, &["certificate", "deny", "bob"], None);
    assert!(ok, "{out}");
    let denied = get(&s, "bob");
    assert!(denied["status"]["certificate"].is_null(), "{denied}");
    let (_, table) = admin(&s, &["get", "csr", "bob"], None);
    assert!(table.contains("Denied"), "{table}");
}

#[test]
fn the_signer_fails_requests_breaking_its_usage_rules() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start_secure(&["--api-domain", "k8s.io"]);
    let (_, pem) = request("carol", None);
    let body = csr("carol", &pem, &["server auth", "client auth"]).to_string();
    assert!(admin(&s, &["create", "-f", "-"], Some(&body)).0);
    let (ok, out) = admin(&s, &["certificate", "approve", "carol"], None);
    assert!(ok, "{out}");
    let mut failed = Value::Null;
    wait_until("the request fails", || {
        failed = get(&s, "carol");
        failed["status"]["conditions"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c["type"] == "Failed"))
    });
    let condition = failed["status"]["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == "Failed"))
        .expect("failed");
    assert_eq!(condition["reason"], "SignerValidationFailure");
    assert!(failed["status"]["certificate"].is_null());
}

#[test]
fn invalid_requests_and_masters_subjects_are_refused() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start_secure(&["--api-domain", "k8s.io"]);
    let (_, pem) = request("dave", None);
    let mut missing = csr("dave", &pem, &[]);
    missing["spec"]
        .as_object_mut()
        .expect("spec")
        .remove("signerName");
    let (ok, out) = admin(&s, &["create", "-f", "-"], Some(&missing.to_string()));
    assert!(
        !ok && out.contains("spec.signerName: Required value"),
        "{out}"
    );
    let no_usages = csr("dave", &pem, &[]).to_string();
    let (ok, out) = admin(&s, &["create", "-f", "-"], Some(&no_usages));
    assert!(!ok && out.contains("spec.usages: Required value"), "{out}");
    let mut bad_pem = csr("dave", "not a request", &["client auth"]);
    bad_pem["spec"]["request"] = json!(STANDARD.encode("not a request"));
    let (ok, out) = admin(&s, &["create", "-f", "-"], Some(&bad_pem.to_string()));
    assert!(!ok && out.contains("spec.request: Invalid value"), "{out}");

    let (_, root) = request("mallory", Some("system:masters"));
    let body = csr("mallory", &root, &["client auth"]).to_string();
    let (ok, out) = admin(&s, &["create", "-f", "-"], Some(&body));
    assert!(
        !ok && out.contains("use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed"),
        "{out}"
    );

    // Status rules: Approved and Denied together; a non-PEM certificate.
    let body = csr("dave", &pem, &["client auth"]).to_string();
    assert!(admin(&s, &["create", "-f", "-"], Some(&body)).0);
    let mut both = get(&s, "dave");
    both["status"]["conditions"] = json!([
        {"type": "Approved", "status": "True"}, {"type": "Denied", "status": "True"}]);
    let (ok, out) = admin(
        &s,
        &["replace", "--subresource", "approval", "-f", "-"],
        Some(&both.to_string()),
    );
    assert!(!ok && out.contains("mutually exclusive"), "{out}");
    let mut junk = get(&s, "dave");
    junk["status"]["certificate"] = json!(STANDARD.encode("junk"));
    let (ok, out) = admin(
        &s,
        &["replace", "--subresource", "status", "-f", "-"],
        Some(&junk.to_string()),
    );
    assert!(
        !ok && out.contains("status.certificate: Invalid value"),
        "{out}"
    );
}
