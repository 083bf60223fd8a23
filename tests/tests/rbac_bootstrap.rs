//! The default RBAC policy on the real binary: present at start and
//! reported by the `rbac/bootstrap-roles` hook, reconciled again at each
//! start (deleted objects and removed rules back, `autoupdate: "false"`
//! respected), ClusterRole aggregation following labelled roles as they
//! come and go, and what it grants over HTTPS: every user reaches
//! discovery, health, version and self-reviews, anonymous requests health
//! and version only, and `view`/`edit` bound in a namespace mean what they
//! say.

use cairn_tests::{Server, TlsClient, wait_until};
use serde_json::{Value, json};

const RBAC: &str = "/apis/rbac.authorization.svc.io/v1";

fn rules_of(s: &Server, role: &str) -> Vec<Value> {
    let r = s.get(&format!("{RBAC}/clusterroles/{role}"));
    assert_eq!(r.status, 200, "{role}: {}", r.text());
    r.json()["rules"].as_array().cloned().unwrap_or_default()
}

#[test]
fn a_labelled_cluster_role_extends_view_edit_and_admin_until_deleted() {
    let s = Server::start(&[]);
    let widgets = json!({"verbs": ["get", "list", "watch"], "apiGroups": ["example.com"], "resources": ["widgets"]});
    let part = json!({
        "metadata": {
            "name": "widget-viewer",
            "labels": {"rbac.authorization.svc.io/aggregate-to-view": "true"},
        },
        "rules": [widgets],
    });
    assert_eq!(s.post(&format!("{RBAC}/clusterroles"), &part).status, 201);
    for role in ["view", "edit", "admin"] {
        wait_until(&format!("{role} aggregates widget-viewer"), || {
            rules_of(&s, role).contains(&widgets)
        });
    }
    // Rules written into an aggregated role by hand are put right again.
    let mut view = s.get(&format!("{RBAC}/clusterroles/view")).json();
    view["rules"] = json!([]);
    assert_eq!(
        s.put(&format!("{RBAC}/clusterroles/view"), &view).status,
        200
    );
    wait_until("view is aggregated again", || {
        rules_of(&s, "view").contains(&widgets)
    });

    let deleted = s.delete(&format!("{RBAC}/clusterroles/widget-viewer"));
    assert_eq!(deleted.status, 200, "{}", deleted.text());
    for role in ["view", "edit", "admin"] {
        wait_until(&format!("{role} no longer has widgets"), || {
            !rules_of(&s, role).contains(&widgets)
        });
    }
    assert_eq!(
        rules_of(&s, "view"),
        rules_of(&s, "system:aggregate-to-view")
    );
}

#[test]
fn the_hook_is_reported_and_the_policy_is_reconciled_at_every_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let mut s = Server::start_on(&data, &[]);
    for endpoint in ["/readyz?verbose", "/healthz?verbose"] {
        let r = s.get(endpoint);
        assert!(
            r.text()
                .contains("[+]poststarthook/rbac/bootstrap-roles ok\n"),
            "{endpoint}: {}",
            r.text()
        );
    }
    assert_eq!(
        s.get("/readyz/poststarthook/rbac/bootstrap-roles").text(),
        "ok"
    );
    let masters = s
        .get(&format!("{RBAC}/clusterrolebindings/cluster-admin"))
        .json();
    assert_eq!(masters["subjects"][0]["name"], "system:masters");
    assert_eq!(
        masters["metadata"]["labels"]["kubernetes.io/bootstrapping"],
        "rbac-defaults"
    );

    let public = rules_of(&s, "system:public-info-viewer");
    assert_eq!(
        s.delete(&format!("{RBAC}/clusterroles/system:public-info-viewer"))
            .status,
        200
    );
    assert_eq!(
        s.delete(&format!("{RBAC}/clusterrolebindings/system:basic-user"))
            .status,
        200
    );
    // A rule taken from system:discovery, one of the user's own added.
    let own = json!({"verbs": ["get"], "nonResourceURLs": ["/custom"]});
    let mut discovery = s
        .get(&format!("{RBAC}/clusterroles/system:discovery"))
        .json();
    discovery["rules"] = json!([own]);
    let put = s.put(&format!("{RBAC}/clusterroles/system:discovery"), &discovery);
    assert_eq!(put.status, 200, "{}", put.text());
    // An owner opting out keeps their version.
    let mut delegator = s
        .get(&format!("{RBAC}/clusterroles/system:auth-delegator"))
        .json();
    delegator["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"] =
        json!("false");
    delegator["rules"] = json!([{"verbs": ["create"], "apiGroups": ["authentication.svc.io"], "resources": ["tokenreviews"]}]);
    let put = s.put(
        &format!("{RBAC}/clusterroles/system:auth-delegator"),
        &delegator,
    );
    assert_eq!(put.status, 200, "{}", put.text());

    assert_eq!(s.stop(), Some(0));
    let s = Server::start_on(&data, &[]);
    assert_eq!(rules_of(&s, "system:public-info-viewer"), public);
    let basic = s.get(&format!("{RBAC}/clusterrolebindings/system:basic-user"));
    assert_eq!(basic.status, 200);
    assert_eq!(basic.json()["subjects"][0]["name"], "system:authenticated");
    let discovery = rules_of(&s, "system:discovery");
    assert!(discovery.contains(&own), "{discovery:?}");
    let api = json!({"verbs": ["get"], "nonResourceURLs": ["/api"]});
    assert!(discovery.contains(&api), "{discovery:?}");
    assert_eq!(
        rules_of(&s, "system:auth-delegator"),
        delegator["rules"].as_array().cloned().expect("rules")
    );
}

const TOKENS: &str = "alice-token,alice,alice-uid\n\
                      bob-token,bob,bob-uid\n\
                      carol-token,carol,carol-uid\n\
                      mon-token,prometheus,mon-uid,\"system:monitoring\"\n\
                      sched-token,system:kube-scheduler,sched-uid\n";

fn secure_with_tokens() -> (Server, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    let tokens = dir.path().join("tokens.csv");
    std::fs::write(&tokens, TOKENS).expect("token file");
    let s = Server::start_secure(&[
        "--api-domain",
        "svc.io",
        "--token-auth-file",
        tokens.to_str().expect("utf-8"),
    ]);
    (s, dir)
}

/// The status of a request as a token's user (anonymous without one).
fn status(
    s: &Server,
    client: &TlsClient,
    token: Option<&str>,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> u16 {
    let auth = token.map(|t| format!("Bearer {t}"));
    let mut headers = vec![("Content-Type", "application/json")];
    if let Some(auth) = &auth {
        headers.push(("Authorization", auth));
    }
    let bytes = body.map(|b| serde_json::to_vec(b).expect("json"));
    s.https(client, method, path, &headers, bytes.as_deref())
        .status
}

#[test]
fn everyone_reaches_discovery_and_health_and_anonymous_health_only() {
    let (s, _dir) = secure_with_tokens();
    let client = s.tls_client(None);
    let get = |token: Option<&str>, path: &str| status(&s, &client, token, "GET", path, None);
    for path in [
        "/version",
        "/healthz",
        "/livez",
        "/readyz",
        "/api",
        "/apis",
        "/api/v1",
        "/openapi/v2",
    ] {
        assert_eq!(get(Some("alice-token"), path), 200, "alice GET {path}");
    }
    for path in ["/version", "/healthz", "/livez", "/readyz"] {
        assert_eq!(get(None, path), 200, "anonymous GET {path}");
    }
    for path in ["/api", "/apis", "/api/v1/namespaces/default/pods"] {
        assert_eq!(get(None, path), 403, "anonymous GET {path}");
    }
    assert_eq!(
        get(Some("alice-token"), "/api/v1/namespaces/default/pods"),
        403
    );
    assert_eq!(
        get(
            Some("alice-token"),
            "/readyz/poststarthook/rbac/bootstrap-roles"
        ),
        403
    );
    assert_eq!(
        get(
            Some("mon-token"),
            "/readyz/poststarthook/rbac/bootstrap-roles"
        ),
        200
    );
    // Self-reviews are system:basic-user's (access reviews are served
    // elsewhere; SelfSubjectReview is here).
    let review = json!({"apiVersion": "authentication.svc.io/v1", "kind": "SelfSubjectReview"});
    let created = status(
        &s,
        &client,
        Some("alice-token"),
        "POST",
        "/apis/authentication.svc.io/v1/selfsubjectreviews",
        Some(&review),
    );
    assert_eq!(created, 201);
}

#[test]
fn view_and_edit_bound_in_a_namespace_grant_what_they_aggregate() {
    let (s, _dir) = secure_with_tokens();
    let admin = s.admin_client();
    let as_admin =
        |method: &str, path: &str, body: &Value| status(&s, &admin, None, method, path, Some(body));
    assert_eq!(
        as_admin(
            "POST",
            "/api/v1/namespaces",
            &json!({"metadata": {"name": "team"}})
        ),
        201
    );
    for (user, role) in [("bob", "view"), ("carol", "edit")] {
        let binding = json!({
            "metadata": {"name": format!("{user}-{role}")},
            "roleRef": {"apiGroup": "rbac.authorization.svc.io", "kind": "ClusterRole", "name": role},
            "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.svc.io", "name": user}],
        });
        assert_eq!(
            as_admin(
                "POST",
                &format!("{RBAC}/namespaces/team/rolebindings"),
                &binding
            ),
            201
        );
    }
    let client = s.tls_client(None);
    let config_map = json!({"metadata": {"name": "settings"}, "data": {"a": "1"}});
    let maps = "/api/v1/namespaces/team/configmaps";
    wait_until("carol may create config maps in team", || {
        status(
            &s,
            &client,
            Some("carol-token"),
            "POST",
            maps,
            Some(&config_map),
        ) == 201
    });
    wait_until("bob may list config maps in team", || {
        status(&s, &client, Some("bob-token"), "GET", maps, None) == 200
    });
    let other = json!({"metadata": {"name": "other"}});
    assert_eq!(
        status(&s, &client, Some("bob-token"), "POST", maps, Some(&other)),
        403
    );
    assert_eq!(
        status(
            &s,
            &client,
            Some("bob-token"),
            "GET",
            "/api/v1/namespaces/team/secrets",
            None
        ),
        403
    );
    assert_eq!(
        status(
            &s,
            &client,
            Some("carol-token"),
            "GET",
            "/api/v1/namespaces/team/secrets",
            None
        ),
        200
    );
    assert_eq!(
        status(
            &s,
            &client,
            Some("bob-token"),
            "GET",
            "/api/v1/namespaces/default/configmaps",
            None
        ),
        403
    );
    // Roles are admin's, not edit's.
    let role = json!({"metadata": {"name": "r"}, "rules": []});
    assert_eq!(
        status(
            &s,
            &client,
            Some("carol-token"),
            "POST",
            &format!("{RBAC}/namespaces/team/roles"),
            Some(&role)
        ),
        403
    );
}

#[test]
fn the_scheduler_user_may_schedule_pods_and_nothing_more() {
    let (s, _dir) = secure_with_tokens();
    let client = s.tls_client(None);
    let admin = s.admin_client();
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
    let created = s.https(
        &admin,
        "POST",
        "/api/v1/namespaces/default/pods",
        &[("Content-Type", "application/json")],
        Some(pod.to_string().as_bytes()),
    );
    assert_eq!(created.status, 201, "{}", created.text());
    let as_scheduler = |method: &str, path: &str, body: Option<&Value>| {
        status(&s, &client, Some("sched-token"), method, path, body)
    };
    for path in [
        "/api/v1/nodes",
        "/api/v1/pods",
        "/api/v1/namespaces",
        "/apis/storage.svc.io/v1/csinodes",
        "/apis/policy/v1/poddisruptionbudgets",
        "/apis/apps/v1/replicasets",
    ] {
        assert_eq!(as_scheduler("GET", path, None), 200, "scheduler GET {path}");
    }
    let binding = json!({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p"},
        "target": {"apiVersion": "v1", "kind": "Node", "name": "n1"}});
    assert_eq!(
        as_scheduler(
            "POST",
            "/api/v1/namespaces/default/pods/p/binding",
            Some(&binding)
        ),
        201
    );
    let lease = json!({"apiVersion": "coordination.svc.io/v1", "kind": "Lease",
        "metadata": {"name": "kube-scheduler", "namespace": "kube-system"}});
    assert_eq!(
        as_scheduler(
            "POST",
            "/apis/coordination.svc.io/v1/namespaces/kube-system/leases",
            Some(&lease)
        ),
        201
    );
    // Nothing beyond scheduling: no secrets, no other writes.
    assert_eq!(
        as_scheduler("GET", "/api/v1/namespaces/default/secrets", None),
        403
    );
    let config_map = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}});
    assert_eq!(
        as_scheduler(
            "POST",
            "/api/v1/namespaces/default/configmaps",
            Some(&config_map)
        ),
        403
    );
}
