//! Impersonation as clients use it: `kubectl --as`/`--as-group` allowed
//! and refused, and the raw headers — service accounts, uids, extras, and a
//! group without a user.

use cairn_tests::kubectl_present;
use serde_json::{Value, json};

use super::start;

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

/// kubectl's first request with nothing cached is aggregated discovery:
/// refused impersonation answers it with kube's JSON Status. (kubectl
/// itself then prints `Forbidden: unknown`, as against kube-apiserver:
/// client-go's discovery reads no Status from an error.)
#[test]
fn refused_impersonation_answers_discovery_with_a_json_status() {
    let c = start();
    let client = cairn_tests::tls::TlsClient::new(&c.server.ca_pem(), None);
    let aggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
    for path in ["/api?timeout=32s", "/apis?timeout=32s"] {
        let headers = [
            ("Authorization", "Bearer bob-token"),
            ("Impersonate-User", "alice"),
            ("Accept", aggregated),
        ];
        let r = c.server.https(&client, "GET", path, &headers, None);
        assert_eq!(r.status, 403, "{}", r.text());
        assert!(
            r.headers
                .iter()
                .any(|(k, v)| k == "content-type" && v == "application/json"),
            "{:?}",
            r.headers
        );
        assert_eq!(
            r.json()["message"],
            r#"users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope"#
        );
    }
}
