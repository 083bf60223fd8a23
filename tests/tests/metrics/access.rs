//! Who may read `/metrics` on the secure port: kube's bootstrap policy
//! grants `get` on it to the system:monitoring group only.

use cairn_tests::Server;

use crate::parsed::{Page, python};

const TOKENS: &str = "watcher-token,prom,2001,\"system:monitoring\"\nbob-token,bob,2002\n";

fn get(s: &Server, token: Option<&str>, path: &str) -> cairn_tests::Response {
    let bearer = token.map(|t| format!("Bearer {t}"));
    let headers: Vec<(&str, &str)> = bearer
        .iter()
        .map(|b| ("Authorization", b.as_str()))
        .collect();
    s.https(&s.tls_client(None), "GET", path, &headers, None)
}

#[test]
fn monitoring_may_scrape_anonymous_and_ordinary_users_may_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tokens = dir.path().join("tokens.csv");
    std::fs::write(&tokens, TOKENS).expect("token file");
    let s = Server::start_secure(&["--token-auth-file", tokens.to_str().expect("utf-8")]);

    let anonymous = get(&s, None, "/metrics");
    assert_eq!(anonymous.status, 403, "{}", anonymous.text());
    let status = anonymous.json();
    assert_eq!(status["reason"], "Forbidden");
    assert_eq!(
        status["message"],
        "forbidden: User \"system:anonymous\" cannot get path \"/metrics\""
    );
    assert_eq!(get(&s, Some("bob-token"), "/metrics").status, 403);
    assert_eq!(
        get(
            &s,
            Some("bob-token"),
            "/api/v1/namespaces/default/configmaps"
        )
        .status,
        403
    );
    assert_eq!(get(&s, Some("wrong-token"), "/metrics").status, 401);

    let scraped = get(&s, Some("watcher-token"), "/metrics");
    assert_eq!(scraped.status, 200, "{}", scraped.text());
    let Some(py) = python() else { return };
    let page = Page::parse(&py, &scraped.text(), false);
    assert!(page.value("authentication_attempts_total", &[("result", "failure")]) >= 1.0);
    assert!(page.value("authentication_attempts_total", &[("result", "success")]) >= 4.0);
    assert!(
        page.value(
            "authenticated_user_requests_total",
            &[("username", "other")]
        ) >= 4.0
    );
    // Authorization verdicts: RBAC had no opinion on the refused requests
    // and allowed the scrape (RBAC's own decision, under its name).
    assert!(page.value("authorization_attempts_total", &[("result", "no-opinion")]) >= 3.0);
    assert!(page.value("authorization_attempts_total", &[("result", "allowed")]) >= 1.0);
    let rbac_allowed = [("type", "RBAC"), ("name", "rbac"), ("decision", "allowed")];
    assert!(page.value("apiserver_authorization_decisions_total", &rbac_allowed) >= 1.0);
    assert_eq!(
        page.value(
            "apiserver_authorization_decisions_total",
            &[("decision", "denied")]
        ),
        0.0,
        "no opinion is no decision"
    );
    assert_eq!(page.describe("authorization_attempts").0, "counter");
    // Refused by authorization before any handler: not a served request.
    let refused = [("resource", "configmaps"), ("code", "403")];
    assert_eq!(page.value("apiserver_request_total", &refused), 0.0);
}
