//! Access reviews and impersonation on the real binary's secure port with
//! RBAC: `kubectl auth can-i` (yes/no and exit codes, `--list`), `kubectl
//! --as`/`--as-group`, raw SubjectAccessReview and LocalSubjectAccessReview
//! posts, and the Python client's `AuthorizationV1Api`. Every permission a
//! token user needs is granted by the admin (system:masters) here, so the
//! tests hold with or without the bootstrap policy.

use std::path::{Path, PathBuf};
use std::process::Command;

use cairn_tests::{Server, TlsClient, kubectl_present, python, wait_until};
use serde_json::{Value, json};

/// alice (in devs) reads pods in `team`; carol may impersonate; bob has
/// nothing beyond the basics; dave views `team` (in the default-policy
/// test).
const TOKENS: &str = "alice-token,alice,1001,\"devs\"\nbob-token,bob,1002\ncarol-token,carol,1003\ndave-token,dave,1004\n";
const RBAC: &str = "rbac.authorization.k8s.io";

struct Cluster {
    server: Server,
    dir: tempfile::TempDir,
}

impl Cluster {
    fn ca(&self) -> PathBuf {
        self.dir.path().join("ca.crt")
    }

    /// A request over HTTPS as the admin (`None`) or a token's user.
    fn call(
        &self,
        token: Option<&str>,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> (u16, Value) {
        self.call_with(token, method, path, &[], body)
    }

    fn call_with(
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

    fn admin_create(&self, path: &str, body: &Value) {
        let (code, answer) = self.call(None, "POST", path, Some(body));
        assert_eq!(code, 201, "POST {path}: {answer}");
    }

    /// kubectl on the HTTPS port with a token.
    fn kubectl(&self, token: &str, args: &[&str]) -> (i32, String, String) {
        let out = Command::new("kubectl")
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

fn cluster_role(name: &str, rules: Value) -> Value {
    json!({"apiVersion": format!("{RBAC}/v1"), "kind": "ClusterRole", "metadata": {"name": name}, "rules": rules})
}

fn binding(kind: &str, name: &str, role: &str, subject: Value) -> Value {
    json!({
        "apiVersion": format!("{RBAC}/v1"), "kind": kind, "metadata": {"name": name},
        "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": role},
        "subjects": [subject]
    })
}

fn user(name: &str) -> Value {
    json!({"kind": "User", "apiGroup": RBAC, "name": name})
}

/// A secure server with `TOKENS` and the namespace `team`, nothing granted
/// beyond the default policy.
fn bare() -> Cluster {
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
fn start() -> Cluster {
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

#[test]
fn kubectl_auth_can_i_answers_yes_and_no_with_exit_codes() {
    if !kubectl_present() {
        return;
    }
    let c = start();
    let (code, out, err) = c.kubectl(
        "alice-token",
        &["auth", "can-i", "get", "pods", "-n", "team"],
    );
    assert_eq!((code, out.trim()), (0, "yes"), "{err}");
    let (code, out, err) = c.kubectl(
        "alice-token",
        &["auth", "can-i", "delete", "pods", "-n", "team"],
    );
    assert_eq!((code, out.trim()), (1, "no"), "{err}");
    let (code, out, _) = c.kubectl(
        "alice-token",
        &["auth", "can-i", "list", "pods", "-n", "default"],
    );
    assert_eq!((code, out.trim()), (1, "no"));
    let (code, out, _) = c.kubectl("bob-token", &["auth", "can-i", "get", "pods", "-n", "team"]);
    assert_eq!((code, out.trim()), (1, "no"));
    let (code, out, _) = c.kubectl("alice-token", &["auth", "can-i", "get", "/version"]);
    assert_eq!(
        (code, out.trim()),
        (0, "yes"),
        "non-resource URLs are asked as paths"
    );
    let (code, out, _) = c.kubectl("alice-token", &["auth", "can-i", "delete", "/version"]);
    assert_eq!((code, out.trim()), (1, "no"));

    let (code, out, err) = c.kubectl("alice-token", &["auth", "can-i", "--list", "-n", "team"]);
    assert_eq!(code, 0, "{out}{err}");
    let pods = out
        .lines()
        .find(|l| l.starts_with("pods "))
        .unwrap_or_else(|| panic!("no pods line in:\n{out}"));
    assert!(pods.ends_with("[get list watch]"), "{pods}");
    assert!(
        out.lines().any(
            |l| l.starts_with("selfsubjectaccessreviews.authorization.k8s.io")
                && l.ends_with("[create]")
        ),
        "{out}"
    );
    assert!(out.contains("[/version]"), "{out}");
    let (_, elsewhere, _) = c.kubectl("alice-token", &["auth", "can-i", "--list", "-n", "default"]);
    assert!(
        !elsewhere.lines().any(|l| l.starts_with("pods ")),
        "{elsewhere}"
    );
}

#[test]
fn kubectl_as_impersonates_when_allowed() {
    if !kubectl_present() {
        return;
    }
    let c = start();
    let (code, out, err) = c.kubectl(
        "carol-token",
        &["get", "pods", "-n", "team", "--as", "alice"],
    );
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = c.kubectl(
        "carol-token",
        &["get", "pods", "-n", "default", "--as", "alice"],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains(r#"pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default""#),
        "{err}"
    );
    let (code, out, _) = c.kubectl(
        "carol-token",
        &[
            "auth", "can-i", "get", "pods", "-n", "team", "--as", "alice",
        ],
    );
    assert_eq!((code, out.trim()), (0, "yes"));
    let (code, out, err) = c.kubectl(
        "carol-token",
        &[
            "auth",
            "whoami",
            "-o",
            "json",
            "--as",
            "alice",
            "--as-group",
            "devs",
            "--as-group",
            "ops",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let me: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(
        me["status"]["userInfo"],
        json!({"username": "alice", "groups": ["devs", "ops", "system:authenticated"]})
    );
    let (code, _, err) = c.kubectl("bob-token", &["get", "pods", "-n", "team", "--as", "alice"]);
    assert_eq!(code, 1);
    assert!(
        err.contains(r#"users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope"#),
        "{err}"
    );
}

#[test]
fn impersonation_headers_over_https() {
    let c = start();
    let sa = c.call_with(
        Some("carol-token"),
        "GET",
        "/api/v1/namespaces/team/pods",
        &[("Impersonate-User", "system:serviceaccount:team:builder")],
        None,
    );
    assert_eq!(sa.0, 403);
    assert_eq!(
        sa.1["message"],
        json!(
            r#"serviceaccounts "builder" is forbidden: User "carol" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "team""#
        )
    );
    let uid = c.call_with(
        Some("carol-token"),
        "GET",
        "/api/v1/namespaces/team/pods",
        &[("Impersonate-User", "alice"), ("Impersonate-Uid", "1001")],
        None,
    );
    assert_eq!(uid.0, 403);
    assert_eq!(
        uid.1["message"],
        json!(
            r#"uids.authentication.k8s.io "1001" is forbidden: User "carol" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope"#
        )
    );
    let lonely = c.call_with(
        Some("carol-token"),
        "GET",
        "/api/v1/namespaces/team/pods",
        &[("Impersonate-Group", "devs")],
        None,
    );
    assert_eq!(
        lonely,
        (
            500,
            json!(
                "Internal Server Error: \"/api/v1/namespaces/team/pods\": requested [{Group  devs    }] without impersonating a user\n"
            )
        )
    );
    let (code, me) = c.call_with(
        None,
        "POST",
        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        &[
            ("Impersonate-User", "system:serviceaccount:team:builder"),
            ("Impersonate-Extra-Example.com%2FTeam", "blue"),
        ],
        Some(&json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})),
    );
    assert_eq!(code, 201, "{me}");
    assert_eq!(
        me["status"]["userInfo"],
        json!({
            "username": "system:serviceaccount:team:builder",
            "groups": ["system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"],
            "extra": {"example.com/team": ["blue"]}
        })
    );
}

const SARS: &str = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

fn sar(spec: Value) -> Value {
    json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": spec})
}

#[test]
fn raw_subject_access_reviews() {
    let c = start();
    let alice_pods = json!({"user": "alice", "resourceAttributes": {"namespace": "team", "verb": "get", "resource": "pods"}});
    let (code, answer) = c.call(None, "POST", SARS, Some(&sar(alice_pods.clone())));
    assert_eq!(code, 201, "{answer}");
    assert_eq!(answer["kind"], json!("SubjectAccessReview"));
    assert_eq!(answer["apiVersion"], json!("authorization.k8s.io/v1"));
    assert_eq!(answer["spec"], alice_pods);
    assert_eq!(answer["status"]["allowed"], json!(true));
    let (_, answer) = c.call(
        None,
        "POST",
        SARS,
        Some(&sar(json!({"user": "alice", "resourceAttributes": {"namespace": "team", "verb": "*", "resource": "pods"}}))),
    );
    assert_eq!(
        answer["status"]["allowed"],
        json!(false),
        "`*` is asked as is"
    );
    let (_, answer) = c.call(
        None,
        "POST",
        SARS,
        Some(&sar(json!({"user": "someone", "groups": ["system:masters"], "nonResourceAttributes": {"path": "/anything", "verb": "delete"}}))),
    );
    assert_eq!(
        answer["status"]["allowed"],
        json!(true),
        "groups are the spec's"
    );
    let (code, refused) = c.call(Some("alice-token"), "POST", SARS, Some(&sar(alice_pods)));
    assert_eq!(
        code, 403,
        "creating a SubjectAccessReview is itself authorized"
    );
    assert_eq!(
        refused["message"],
        json!(
            r#"subjectaccessreviews.authorization.k8s.io is forbidden: User "alice" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope"#
        )
    );
    let (code, invalid) = c.call(
        None,
        "POST",
        SARS,
        Some(&sar(json!({"resourceAttributes": {"verb": "get"}}))),
    );
    assert_eq!(code, 422);
    assert_eq!(
        invalid["message"],
        json!(
            r#".authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified"#
        )
    );
    assert_eq!(invalid["reason"], json!("Invalid"));

    let local = "/apis/authorization.k8s.io/v1/namespaces/team/localsubjectaccessreviews";
    let review = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "LocalSubjectAccessReview",
        "spec": {"user": "alice", "resourceAttributes": {"namespace": "team", "verb": "list", "resource": "pods"}}});
    let (code, answer) = c.call(None, "POST", local, Some(&review));
    assert_eq!(code, 201, "{answer}");
    assert_eq!(answer["metadata"]["namespace"], json!("team"));
    assert_eq!(answer["status"]["allowed"], json!(true));
    let mut elsewhere = review.clone();
    elsewhere["spec"]["resourceAttributes"]["namespace"] = json!("default");
    let (code, invalid) = c.call(None, "POST", local, Some(&elsewhere));
    assert_eq!(code, 422);
    assert_eq!(
        invalid["message"],
        json!(
            r#".authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "default": must match metadata.namespace"#
        )
    );
    let mut other_meta = review;
    other_meta["metadata"] = json!({"namespace": "default"});
    let (code, invalid) = c.call(None, "POST", local, Some(&other_meta));
    assert_eq!(code, 400, "{invalid}");
    let (code, _) = c.call(None, "GET", SARS, None);
    assert_eq!(code, 405, "create only");
}

#[test]
fn the_python_clients_authorization_api() {
    let Some(py) = python() else {
        eprintln!("SKIPPED: the Python `kubernetes` client is not installed");
        return;
    };
    let c = start();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/access_reviews.py");
    let out = Command::new(py)
        .arg(script)
        .arg(c.server.https_url())
        .arg(c.ca())
        .arg(c.server.admin_kubeconfig())
        .output()
        .expect("run python");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("all checks passed"),
        "python client checks failed:\n{stdout}\n{}\nserver log:\n{}",
        String::from_utf8_lossy(&out.stderr),
        c.server.log_text()
    );
}

#[test]
fn the_default_policy_answers_can_i_for_everyone() {
    if !kubectl_present() {
        return;
    }
    let c = bare();
    c.admin_create(
        &format!("/apis/{RBAC}/v1/namespaces/team/rolebindings"),
        &binding("RoleBinding", "dave-views", "view", user("dave")),
    );
    wait_until("dave's binding reaches RBAC's caches", || {
        c.call(
            Some("dave-token"),
            "GET",
            "/api/v1/namespaces/team/configmaps",
            None,
        )
        .0 == 200
    });
    let can_i = |token: &str, args: &[&str]| {
        let mut all = vec!["auth", "can-i"];
        all.extend_from_slice(args);
        let (code, out, err) = c.kubectl(token, &all);
        assert!(
            !err.contains("Forbidden"),
            "every authenticated user may ask: {err}"
        );
        (code, out.trim().to_string())
    };
    let yes = (0, "yes".to_string());
    let no = (1, "no".to_string());
    assert_eq!(
        can_i(
            "bob-token",
            &["create", "selfsubjectaccessreviews.authorization.k8s.io"]
        ),
        yes
    );
    assert_eq!(can_i("bob-token", &["get", "pods", "-n", "team"]), no);
    assert_eq!(
        can_i("dave-token", &["list", "configmaps", "-n", "team"]),
        yes
    );
    assert_eq!(can_i("dave-token", &["watch", "pods", "-n", "team"]), yes);
    assert_eq!(
        can_i("dave-token", &["create", "configmaps", "-n", "team"]),
        no
    );
    assert_eq!(
        can_i("dave-token", &["get", "secrets", "-n", "team"]),
        no,
        "view reads no secrets"
    );
    assert_eq!(can_i("dave-token", &["get", "pods", "-n", "default"]), no);
    assert_eq!(
        can_i("dave-token", &["get", "/healthz"]),
        yes,
        "health is public"
    );

    let (code, list, err) = c.kubectl("bob-token", &["auth", "can-i", "--list"]);
    assert_eq!(code, 0, "{list}{err}");
    for line in [
        "selfsubjectaccessreviews.authorization.k8s.io",
        "selfsubjectrulesreviews.authorization.k8s.io",
    ] {
        assert!(
            list.lines()
                .any(|l| l.starts_with(line) && l.ends_with("[create]")),
            "{line} in:\n{list}"
        );
    }
    let (code, list, _) = c.kubectl("dave-token", &["auth", "can-i", "--list", "-n", "team"]);
    assert_eq!(code, 0);
    assert!(
        list.lines()
            .any(|l| l.starts_with("configmaps ") && l.ends_with("[get list watch]")),
        "{list}"
    );

    let (code, answer) = c.call(
        None,
        "POST",
        SARS,
        Some(&sar(json!({"user": "dave", "resourceAttributes": {"namespace": "team", "verb": "list", "group": "apps", "resource": "deployments"}}))),
    );
    assert_eq!(
        (code, &answer["status"]["allowed"]),
        (201, &json!(true)),
        "{answer}"
    );
}
