//! A list's `timeoutSeconds` bounds it: an authorization webhook holds
//! one user's reviews, so the list's work outlasts its time without any
//! timing in the test.

use std::path::Path;

use cairn_tests::Server;
use cairn_tests::authz_gate::Gate;
use serde_json::json;

use crate::CONFIGMAPS;

/// A secure server authorizing through `gate` (never cached), with users
/// `slow` and `alice`.
fn gated_server(dir: &Path, gate: &Gate) -> Server {
    let tokens = dir.join("tokens.csv");
    std::fs::write(&tokens, "slow-token,slow,1\nalice-token,alice,2\n").expect("tokens");
    let kubeconfig = gate.kubeconfig(dir);
    // The webhook's own timeout is far beyond the lists' timeoutSeconds: a
    // list not bounded by it would end 403 (failure policy), not 504.
    let config = json!({
        "apiVersion": "apiserver.config.k8s.io/v1",
        "kind": "AuthorizationConfiguration",
        "authorizers": [{
            "type": "Webhook", "name": "gate",
            "webhook": {
                "timeout": "30s", "authorizedTTL": "1ns", "unauthorizedTTL": "1ns",
                "cacheAuthorizedRequests": false, "cacheUnauthorizedRequests": false,
                "subjectAccessReviewVersion": "v1",
                "matchConditionSubjectAccessReviewVersion": "v1",
                "failurePolicy": "Deny",
                "connectionInfo": {"type": "KubeConfigFile",
                                   "kubeConfigFile": kubeconfig}
            }
        }]
    });
    let file = dir.join("authz.json");
    std::fs::write(&file, config.to_string()).expect("config");
    Server::start_secure(&[
        "--token-auth-file",
        tokens.to_str().expect("path"),
        "--authorization-config",
        file.to_str().expect("path"),
    ])
}

#[test]
fn a_list_is_bounded_by_its_timeout_seconds() {
    let gate = Gate::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let server = gated_server(dir.path(), &gate);
    let client = server.tls_client(None);
    let list = |token: &str, query: &str| {
        let bearer = format!("Bearer {token}");
        server.https(
            &client,
            "GET",
            &format!("{CONFIGMAPS}?{query}"),
            &[("Authorization", bearer.as_str())],
            None,
        )
    };
    assert_eq!(list("alice-token", "timeoutSeconds=1").status, 200);

    // The review of `slow` is held: the list's own time runs out first.
    let r = list("slow-token", "timeoutSeconds=1");
    assert_eq!(r.status, 504, "{}", r.text());
    let status = r.json();
    assert_eq!(status["kind"], "Status");
    assert_eq!(status["reason"], "Timeout");
    assert_eq!(status["code"], 504);
    assert_eq!(
        status["message"],
        "Timeout: request did not complete within the allotted timeout"
    );

    gate.release();
    assert_eq!(list("slow-token", "timeoutSeconds=30").status, 200);
    assert_eq!(list("slow-token", "timeoutSeconds=0").status, 200);
}
