//! Access reviews and impersonation on the real binary's secure port with
//! RBAC: `kubectl auth can-i` (yes/no and exit codes, `--list`), `kubectl
//! --as`/`--as-group`, raw SubjectAccessReview and LocalSubjectAccessReview
//! posts, and the Python client's `AuthorizationV1Api`. This file holds the
//! cluster the tests share: token users, and the grants the admin
//! (system:masters) gives them, so the tests hold with or without the
//! bootstrap policy (one test relies on it: `reviews`).

mod impersonation;
mod reviews;

use std::path::PathBuf;

use cairn_tests::{Server, TlsClient, wait_until};
use serde_json::{Value, json};

/// alice (in devs) reads pods in `team`; carol may impersonate; bob has
/// nothing beyond the basics; dave views `team` (in the default-policy
/// test).
const TOKENS: &str = "alice-token,alice,1001,\"devs\"\nbob-token,bob,1002\ncarol-token,carol,1003\ndave-token,dave,1004\n";
pub(crate) const RBAC: &str = "rbac.authorization.k8s.io";

pub(crate) struct Cluster {
    pub(crate) server: Server,
    dir: tempfile::TempDir,
}

impl Cluster {
    pub(crate) fn ca(&self) -> PathBuf {
        self.dir.path().join("ca.crt")
    }

    /// A request over HTTPS as the admin (`None`) or a token's user.
    pub(crate) fn call(
        &self,
        token: Option<&str>,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> (u16, Value) {
        self.call_with(token, method, path, &[], body)
    }

    pub(crate) fn call_with(
        &self,
        token: Option<&str>,
        method: &str,
        path: &str,
        extra_headers: &[(&str, &str)],
        body: Option<&Value>,
    ) -> (u16, Value) {
        let s = &self.server;
        let client = match token {
            None => s.admin_client(),
            Some(_) => TlsClient::new(&s.ca_pem(), None),
        };
        let auth = token.map(|t| format!("Bearer {t}"));
        let mut headers = vec![("Content-Type", "application/json")];
        headers.extend(auth.as_deref().map(|a| ("Authorization", a)));
        headers.extend_from_slice(extra_headers);
        let bytes = body.map(|b| serde_json::to_vec(b).expect("json"));
        let r = s.https(&client, method, path, &headers, bytes.as_deref());
        let value = serde_json::from_slice(&r.body).unwrap_or_else(|_| Value::String(r.text()));
        (r.status, value)
    }

    pub(crate) fn admin_create(&self, path: &str, body: &Value) {
        let (code, answer) = self.call(None, "POST", path, Some(body));
        assert_eq!(code, 201, "POST {path}: {answer}");
    }

    /// kubectl on the HTTPS port with a token.
    pub(crate) fn kubectl(&self, token: &str, args: &[&str]) -> (i32, String, String) {
        let mut kubectl = cairn_tests::clients::kubectl_command(&self.server);
        let out = kubectl
            .arg("--server")
            .arg(self.server.https_url())
            .arg("--certificate-authority")
            .arg(self.ca())
            .arg("--token")
            .arg(token)
            .args(args)
            .env("KUBECONFIG", "/dev/null")
            .output()
            .expect("kubectl");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

pub(crate) fn cluster_role(name: &str, rules: Value) -> Value {
    json!({"apiVersion": format!("{RBAC}/v1"), "kind": "ClusterRole", "metadata": {"name": name}, "rules": rules})
}

pub(crate) fn binding(kind: &str, name: &str, role: &str, subject: Value) -> Value {
    json!({
        "apiVersion": format!("{RBAC}/v1"), "kind": kind, "metadata": {"name": name},
        "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": role},
        "subjects": [subject]
    })
}

pub(crate) fn user(name: &str) -> Value {
    json!({"kind": "User", "apiGroup": RBAC, "name": name})
}

/// A secure server with `TOKENS` and the namespace `team`, nothing granted
/// beyond the default policy.
pub(crate) fn bare() -> Cluster {
    let dir = tempfile::tempdir().expect("tempdir");
    let tokens = dir.path().join("tokens.csv");
    std::fs::write(&tokens, TOKENS).expect("token file");
    let server = Server::start_secure(&["--token-auth-file", tokens.to_str().expect("utf-8 path")]);
    std::fs::write(dir.path().join("ca.crt"), server.ca_pem()).expect("ca file");
    let c = Cluster { server, dir };
    c.admin_create("/api/v1/namespaces", &json!({"metadata": {"name": "team"}}));
    c
}

/// `bare` with the grants the tests rely on; returns once RBAC's caches
/// show them.
pub(crate) fn start() -> Cluster {
    let c = bare();
    c.admin_create(
        &format!("/apis/{RBAC}/v1/clusterroles"),
        &cluster_role(
            "test-basics",
            json!([
                {"verbs": ["create"], "apiGroups": ["authorization.k8s.io"], "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]},
                {"verbs": ["create"], "apiGroups": ["authentication.k8s.io"], "resources": ["selfsubjectreviews"]},
                {"verbs": ["get"], "nonResourceURLs": ["/api", "/api/*", "/apis", "/apis/*", "/version", "/openapi/*"]}
            ]),
        ),
    );
    c.admin_create(
        &format!("/apis/{RBAC}/v1/clusterrolebindings"),
        &binding(
            "ClusterRoleBinding",
            "test-basics",
            "test-basics",
            json!({"kind": "Group", "apiGroup": RBAC, "name": "system:authenticated"}),
        ),
    );
    c.admin_create(
        &format!("/apis/{RBAC}/v1/clusterroles"),
        &cluster_role(
            "pod-reader",
            json!([{"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["pods"]}]),
        ),
    );
    c.admin_create(
        &format!("/apis/{RBAC}/v1/namespaces/team/rolebindings"),
        &binding(
            "RoleBinding",
            "alice-reads-pods",
            "pod-reader",
            user("alice"),
        ),
    );
    c.admin_create(
        &format!("/apis/{RBAC}/v1/clusterroles"),
        &cluster_role(
            "impersonator",
            json!([{"verbs": ["impersonate"], "apiGroups": [""], "resources": ["users", "groups"]}]),
        ),
    );
    c.admin_create(
        &format!("/apis/{RBAC}/v1/clusterrolebindings"),
        &binding(
            "ClusterRoleBinding",
            "carol-impersonates",
            "impersonator",
            user("carol"),
        ),
    );
    wait_until("the grants reach RBAC's caches", || {
        let pods = c
            .call(
                Some("alice-token"),
                "GET",
                "/api/v1/namespaces/team/pods",
                None,
            )
            .0;
        let impersonated = c
            .call_with(
                Some("carol-token"),
                "GET",
                "/api/v1/namespaces/team/pods",
                &[("Impersonate-User", "alice")],
                None,
            )
            .0;
        pods == 200 && impersonated == 200
    });
    c
}
