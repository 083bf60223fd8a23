//! RBAC enforced on the real binary's secure port, with static-token users
//! bound by the admin (system:masters through the admin kubeconfig):
//! a verb × role matrix over the bootstrap roles view/edit/admin/
//! cluster-admin, namespaced and cluster scope; subresources,
//! resourceNames and nonResourceURLs through roles of the test's own;
//! Kubernetes' 403 wording; dry-run needing the real permission; apply
//! needing create for new objects; escalation refused unless the writer
//! holds the permissions or may `escalate`/`bind`.

use cairn_tests::{Server, TlsClient, wait_until};
use serde_json::{Value, json};

const TOKENS: &str = "\
viewer-token,viewer,1\n\
editor-token,editor,2\n\
nsadmin-token,nsadmin,3\n\
root-token,root,4\n\
nobody-token,nobody,5\n\
grouped-token,grouped,6,\"readers\"\n\
patcher-token,patcher,7\n\
roler-token,roler,8\n\
binder-token,binder,9\n";

const NS: &str = "team";

struct Cluster {
    server: Server,
    client: TlsClient,
    _dir: tempfile::TempDir,
}

impl Cluster {
    fn start() -> Cluster {
        let dir = tempfile::tempdir().expect("tempdir");
        let tokens = dir.path().join("tokens.csv");
        std::fs::write(&tokens, TOKENS).expect("token file");
        let server = Server::start_secure(&["--token-auth-file", tokens.to_str().expect("utf-8")]);
        let client = TlsClient::new(&server.ca_pem(), None);
        let cluster = Cluster {
            server,
            client,
            _dir: dir,
        };
        cluster.admin(
            "POST",
            "/api/v1/namespaces",
            Some(&json!({"metadata": {"name": NS}})),
        );
        cluster.admin(
            "POST",
            "/api/v1/namespaces",
            Some(&json!({"metadata": {"name": "elsewhere"}})),
        );
        cluster
    }

    /// A request as `token`'s user: status and body.
    fn call(&self, token: &str, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
        self.call_as(token, method, path, "application/json", body)
    }

    fn call_as(
        &self,
        token: &str,
        method: &str,
        path: &str,
        content_type: &str,
        body: Option<&Value>,
    ) -> (u16, Value) {
        let auth = format!("Bearer {token}");
        let headers = [
            ("Authorization", auth.as_str()),
            ("Content-Type", content_type),
        ];
        let bytes = body.map(|b| serde_json::to_vec(b).expect("json"));
        let r = self
            .server
            .https(&self.client, method, path, &headers, bytes.as_deref());
        let value = serde_json::from_slice(&r.body).unwrap_or_else(|_| Value::String(r.text()));
        (r.status, value)
    }

    /// A request as system:admin (the admin kubeconfig's certificate).
    fn admin(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        let bytes = body.map(|b| serde_json::to_vec(b).expect("json"));
        let r = self.server.https(
            &self.server.admin_client(),
            method,
            path,
            &[("Content-Type", "application/json")],
            bytes.as_deref(),
        );
        assert!(
            r.status < 300,
            "{method} {path} as admin: {} {}",
            r.status,
            r.text()
        );
        r.json()
    }

    fn bind(
        &self,
        namespace: Option<&str>,
        name: &str,
        role_kind: &str,
        role: &str,
        subject: Value,
    ) {
        let binding = json!({
            "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": role},
            "subjects": [subject],
        });
        match namespace {
            Some(ns) => self.admin(
                "POST",
                &format!("/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings"),
                Some(&binding),
            ),
            None => self.admin(
                "POST",
                "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
                Some(&binding),
            ),
        };
    }

    fn cluster_role(&self, name: &str, rules: Value) {
        self.admin(
            "POST",
            "/apis/rbac.authorization.k8s.io/v1/clusterroles",
            Some(&json!({"metadata": {"name": name}, "rules": rules})),
        );
    }

    /// Waits until `token` may GET `path` (the caches have seen a binding).
    fn await_allowed(&self, token: &str, path: &str) {
        wait_until(&format!("{token} allowed to GET {path}"), || {
            self.call(token, "GET", path, None).0 != 403
        });
    }
}

fn user(name: &str) -> Value {
    json!({"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": name})
}

fn config_map(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}})
}

const CMS: &str = "/api/v1/namespaces/team/configmaps";

/// Whether each verb is allowed to `token` on config maps in `team`
/// (any answer but 403 counts as allowed: a 404 or 409 came after
/// authorization).
fn config_map_verbs(c: &Cluster, token: &str) -> Vec<(&'static str, bool)> {
    let name = format!("cm-{token}");
    c.admin("POST", CMS, Some(&config_map(&name)));
    let one = format!("{CMS}/{name}");
    let merge = json!({"data": {"k": "w"}});
    let verbs: Vec<(&str, u16)> = vec![
        ("get", c.call(token, "GET", &one, None).0),
        ("list", c.call(token, "GET", CMS, None).0),
        (
            "watch",
            c.call(
                token,
                "GET",
                &format!("{CMS}?watch=true&timeoutSeconds=1"),
                None,
            )
            .0,
        ),
        (
            "create",
            c.call(
                token,
                "POST",
                CMS,
                Some(&config_map(&format!("{name}-new"))),
            )
            .0,
        ),
        ("update", {
            let mut current = c.admin("GET", &one, None);
            current["data"]["k"] = json!("u");
            c.call(token, "PUT", &one, Some(&current)).0
        }),
        (
            "patch",
            c.call_as(
                token,
                "PATCH",
                &one,
                "application/merge-patch+json",
                Some(&merge),
            )
            .0,
        ),
        ("delete", c.call(token, "DELETE", &one, None).0),
        (
            "deletecollection",
            c.call(
                token,
                "DELETE",
                &format!("{CMS}?labelSelector=none%3Dnone"),
                None,
            )
            .0,
        ),
    ];
    let _ = c.call("root-token", "DELETE", &one, None);
    verbs
        .into_iter()
        .map(|(verb, status)| (verb, status != 403))
        .collect()
}

#[test]
fn the_bootstrap_roles_grant_kubernetes_verbs_in_their_scope() {
    let c = Cluster::start();
    c.bind(Some(NS), "viewers", "ClusterRole", "view", user("viewer"));
    c.bind(Some(NS), "editors", "ClusterRole", "edit", user("editor"));
    c.bind(Some(NS), "admins", "ClusterRole", "admin", user("nsadmin"));
    c.bind(None, "roots", "ClusterRole", "cluster-admin", user("root"));
    for token in [
        "viewer-token",
        "editor-token",
        "nsadmin-token",
        "root-token",
    ] {
        c.await_allowed(token, CMS);
    }
    let read_only: Vec<(&str, bool)> = [
        "get",
        "list",
        "watch",
        "create",
        "update",
        "patch",
        "delete",
        "deletecollection",
    ]
    .into_iter()
    .map(|v| (v, matches!(v, "get" | "list" | "watch")))
    .collect();
    let everything: Vec<(&str, bool)> = read_only.iter().map(|(v, _)| (*v, true)).collect();
    let nothing: Vec<(&str, bool)> = read_only.iter().map(|(v, _)| (*v, false)).collect();
    assert_eq!(config_map_verbs(&c, "viewer-token"), read_only);
    assert_eq!(config_map_verbs(&c, "editor-token"), everything);
    assert_eq!(config_map_verbs(&c, "nsadmin-token"), everything);
    assert_eq!(config_map_verbs(&c, "root-token"), everything);
    assert_eq!(config_map_verbs(&c, "nobody-token"), nothing);

    // view does not read secrets; edit does.
    let secrets = "/api/v1/namespaces/team/secrets";
    assert_eq!(c.call("viewer-token", "GET", secrets, None).0, 403);
    assert_eq!(c.call("editor-token", "GET", secrets, None).0, 200);
    // Role bindings reach their namespace only; cluster scope needs a cluster binding.
    for token in ["viewer-token", "editor-token", "nsadmin-token"] {
        assert_eq!(
            c.call(
                token,
                "GET",
                "/api/v1/namespaces/elsewhere/configmaps",
                None
            )
            .0,
            403,
            "{token}"
        );
        assert_eq!(
            c.call(token, "GET", "/api/v1/configmaps", None).0,
            403,
            "{token}"
        );
        assert_eq!(
            c.call(token, "GET", "/api/v1/namespaces", None).0,
            403,
            "{token}"
        );
    }
    assert_eq!(
        c.call("root-token", "GET", "/api/v1/configmaps", None).0,
        200
    );
    assert_eq!(
        c.call("root-token", "GET", "/api/v1/namespaces", None).0,
        200
    );
    // Only admin manages roles and bindings in the namespace.
    let role_bindings = "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings";
    assert_eq!(c.call("editor-token", "GET", role_bindings, None).0, 403);
    assert_eq!(c.call("nsadmin-token", "GET", role_bindings, None).0, 200);
    // Every authenticated user reaches discovery and health; nobody else may list.
    for path in [
        "/api",
        "/apis",
        "/version",
        "/healthz",
        "/readyz",
        "/livez",
        "/openapi/v2",
    ] {
        assert_eq!(c.call("nobody-token", "GET", path, None).0, 200, "{path}");
    }
}

#[test]
fn denials_use_kubernetes_wording() {
    let c = Cluster::start();
    let (status, body) = c.call(
        "nobody-token",
        "GET",
        "/api/v1/namespaces/team/pods/web",
        None,
    );
    assert_eq!(status, 403);
    assert_eq!(body["reason"], "Forbidden");
    assert_eq!(
        body["message"],
        r#"pods "web" is forbidden: User "nobody" cannot get resource "pods" in API group "" in the namespace "team""#
    );
    assert_eq!(body["details"]["name"], "web");
    let (_, body) = c.call(
        "nobody-token",
        "GET",
        "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        None,
    );
    assert_eq!(
        body["message"],
        r#"clusterroles.rbac.authorization.k8s.io is forbidden: User "nobody" cannot list resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope"#
    );
    let (status, body) = c.call("nobody-token", "GET", "/custom/thing", None);
    assert_eq!(status, 403);
    assert_eq!(
        body["message"],
        r#"forbidden: User "nobody" cannot get path "/custom/thing""#
    );
    // A binding to a role that does not exist is named in the reason.
    c.bind(Some(NS), "dangling", "Role", "missing", user("nobody"));
    wait_until("the dangling binding is seen", || {
        let (_, body) = c.call("nobody-token", "GET", "/api/v1/namespaces/team/pods", None);
        body["message"].as_str().unwrap_or("").contains("RBAC")
    });
    let (_, body) = c.call("nobody-token", "GET", "/api/v1/namespaces/team/pods", None);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .ends_with(r#": RBAC: role.rbac.authorization.k8s.io "missing" not found"#),
        "{body}"
    );
}

#[test]
fn subresources_names_paths_and_groups_are_matched_as_kubernetes_does() {
    let c = Cluster::start();
    c.cluster_role(
        "narrow",
        json!([
            {"verbs": ["get"], "apiGroups": [""], "resources": ["namespaces/status"]},
            {"verbs": ["get", "update"], "apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["chosen"]},
            {"verbs": ["get"], "nonResourceURLs": ["/custom/*", "/exact"]},
        ]),
    );
    c.cluster_role(
        "readers",
        json!([{"verbs": ["list"], "apiGroups": [""], "resources": ["pods"]}]),
    );
    c.bind(None, "narrow", "ClusterRole", "narrow", user("nobody"));
    c.bind(
        None,
        "readers",
        "ClusterRole",
        "readers",
        json!({"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "readers"}),
    );
    c.await_allowed("nobody-token", "/exact");
    c.await_allowed("grouped-token", "/api/v1/pods");

    assert_eq!(
        c.call(
            "nobody-token",
            "GET",
            "/api/v1/namespaces/team/status",
            None
        )
        .0,
        200
    );
    assert_eq!(
        c.call("nobody-token", "GET", "/api/v1/namespaces/team", None)
            .0,
        403,
        "the subresource only"
    );
    c.admin("POST", CMS, Some(&config_map("chosen")));
    c.admin("POST", CMS, Some(&config_map("other")));
    assert_eq!(
        c.call("nobody-token", "GET", &format!("{CMS}/chosen"), None)
            .0,
        200
    );
    assert_eq!(
        c.call("nobody-token", "GET", &format!("{CMS}/other"), None)
            .0,
        403
    );
    assert_eq!(
        c.call("nobody-token", "GET", CMS, None).0,
        403,
        "a list names no object"
    );
    assert_eq!(
        c.call(
            "nobody-token",
            "GET",
            &format!("{CMS}?fieldSelector=metadata.name%3Dchosen"),
            None
        )
        .0,
        403,
        "get does not grant list even pinned to the name"
    );
    // Allowed paths answer 404 here (nothing serves them); refused ones 403.
    assert_eq!(c.call("nobody-token", "GET", "/custom/a/b", None).0, 404);
    assert_eq!(c.call("nobody-token", "GET", "/exact", None).0, 404);
    assert_eq!(c.call("nobody-token", "GET", "/exact/more", None).0, 403);
    assert_eq!(
        c.call("nobody-token", "POST", "/custom/a", None).0,
        403,
        "verbs of paths are methods"
    );
    // Groups reach their members; others in no group get nothing.
    assert_eq!(c.call("grouped-token", "GET", "/api/v1/pods", None).0, 200);
    assert_eq!(c.call("viewer-token", "GET", "/api/v1/pods", None).0, 403);
    assert_eq!(
        c.call("grouped-token", "GET", "/apis/apps/v1/deployments", None)
            .0,
        403,
        "another API group"
    );
}

#[test]
fn dry_run_and_apply_need_the_real_permissions() {
    let c = Cluster::start();
    c.cluster_role(
        "patch-only",
        json!([{"verbs": ["get", "patch"], "apiGroups": [""], "resources": ["configmaps"]}]),
    );
    c.bind(
        Some(NS),
        "patcher",
        "ClusterRole",
        "patch-only",
        user("patcher"),
    );
    c.await_allowed("patcher-token", &format!("{CMS}/x"));
    // A dry-run create needs create.
    let (status, _) = c.call(
        "patcher-token",
        "POST",
        &format!("{CMS}?dryRun=All"),
        Some(&config_map("dry")),
    );
    assert_eq!(status, 403);
    // Apply of a missing object needs create; of an existing one, patch.
    let apply = |name: &str| {
        c.call_as(
            "patcher-token",
            "PATCH",
            &format!("{CMS}/{name}?fieldManager=test"),
            "application/apply-patch+yaml",
            Some(&config_map(name)),
        )
    };
    let (status, body) = apply("fresh");
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["reason"], "Forbidden");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains(r#"cannot create resource "configmaps""#),
        "{body}"
    );
    assert_eq!(
        c.call("root-token", "GET", &format!("{CMS}/fresh"), None).0,
        403,
        "root has no binding here"
    );
    let (status, _) = c.call("patcher-token", "GET", &format!("{CMS}/fresh"), None);
    assert_eq!(status, 404, "nothing was created");
    c.admin("POST", CMS, Some(&config_map("existing")));
    let (status, body) = apply("existing");
    assert_eq!(status, 200, "{body}");
}

#[test]
fn escalation_is_refused_unless_held_or_granted_escalate_and_bind() {
    let c = Cluster::start();
    let roles = "/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles";
    let bindings = "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings";
    c.cluster_role(
        "role-writer",
        json!([
            {"verbs": ["create", "update", "get"], "apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles", "rolebindings"]},
            {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["configmaps"]},
        ]),
    );
    c.bind(
        Some(NS),
        "roler",
        "ClusterRole",
        "role-writer",
        user("roler"),
    );
    c.bind(
        Some(NS),
        "binder",
        "ClusterRole",
        "role-writer",
        user("binder"),
    );
    c.await_allowed("roler-token", &format!("{roles}/none"));
    c.await_allowed("binder-token", &format!("{roles}/none"));

    let held = json!({"metadata": {"name": "held"}, "rules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["configmaps"]}]});
    assert_eq!(
        c.call("roler-token", "POST", roles, Some(&held)).0,
        201,
        "a role within what the writer holds"
    );
    let more = json!({"metadata": {"name": "more"}, "rules": [{"verbs": ["get", "delete"], "apiGroups": [""], "resources": ["configmaps", "secrets"]}]});
    let (status, body) = c.call("roler-token", "POST", roles, Some(&more));
    assert_eq!(status, 403, "{body}");
    let message = body["message"].as_str().unwrap();
    assert!(
        message.starts_with(r#"roles.rbac.authorization.k8s.io "more" is forbidden: user "roler" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:"#),
        "{message}"
    );
    assert!(
        message.contains(r#"{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}"#),
        "{message}"
    );
    assert!(
        message.contains(r#"{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}"#),
        "{message}"
    );

    // Binding a role whose permissions the writer lacks is refused …
    let to_admin = json!({"metadata": {"name": "self-admin"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "admin"},
        "subjects": [user("roler")]});
    assert_eq!(
        c.call("roler-token", "POST", bindings, Some(&to_admin)).0,
        403
    );
    // … binding one within them is not.
    let to_held = json!({"metadata": {"name": "held"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "held"},
        "subjects": [user("nobody")]});
    assert_eq!(
        c.call("roler-token", "POST", bindings, Some(&to_held)).0,
        201
    );

    // `escalate` on roles and `bind` on the admin ClusterRole lift the checks.
    c.cluster_role("escalator", json!([
        {"verbs": ["escalate"], "apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles"]},
        {"verbs": ["bind"], "apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles"], "resourceNames": ["admin"]},
    ]));
    c.bind(
        Some(NS),
        "binder-escalates",
        "ClusterRole",
        "escalator",
        user("binder"),
    );
    wait_until("binder may escalate", || {
        c.call("binder-token", "POST", roles, Some(&more)).0 == 201
    });
    assert_eq!(
        c.call("binder-token", "POST", bindings, Some(&to_admin)).0,
        201
    );
    // That binding made roler an admin of the namespace: it now holds what
    // "more" grants.
    let more2 = json!({"metadata": {"name": "more2"}, "rules": more["rules"]});
    wait_until("roler holds admin's permissions", || {
        c.call("roler-token", "POST", roles, Some(&more2)).0 == 201
    });
}

#[test]
fn a_binding_is_in_force_once_its_write_is_acknowledged() {
    let c = Cluster::start();
    // No waiting between the acknowledged write and the request it
    // permits: the write is acknowledged only once RBAC decides with it.
    for i in 0..20 {
        let ns = format!("fresh-{i}");
        c.admin(
            "POST",
            "/api/v1/namespaces",
            Some(&json!({"metadata": {"name": ns}})),
        );
        let path = format!("/api/v1/namespaces/{ns}/configmaps");
        assert_eq!(c.call("nobody-token", "GET", &path, None).0, 403, "{ns}");
        c.bind(Some(&ns), "reader", "ClusterRole", "view", user("nobody"));
        assert_eq!(c.call("nobody-token", "GET", &path, None).0, 200, "{ns}");
        c.admin(
            "DELETE",
            &format!("/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings/reader"),
            None,
        );
        assert_eq!(
            c.call("nobody-token", "GET", &path, None).0,
            403,
            "{ns}: revoked at once"
        );
    }
}
