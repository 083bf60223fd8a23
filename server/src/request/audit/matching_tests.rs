//! Policy loading and rule matching, as kube's policy checker decides.

use http::Method;

use super::*;
use crate::request::audit::policy::Stage;

fn policy(yaml: &str) -> Policy {
    Policy::parse(yaml.as_bytes(), "k8s.io").expect("valid policy")
}

fn refused(yaml: &str) -> String {
    Policy::parse(yaml.as_bytes(), "k8s.io").expect_err("invalid policy")
}

fn request(method: Method, path: &str) -> RequestInfo {
    RequestInfo::new(&method, path.to_string(), None, None)
}

fn jane() -> UserInfo {
    UserInfo::new("jane", &["devs", "system:authenticated"])
}

const HEADER: &str = "apiVersion: audit.k8s.io/v1\nkind: Policy\n";

#[test]
fn first_matching_rule_decides_and_no_match_is_none() {
    let p = policy(&format!(
        "{HEADER}rules:\n- level: None\n  users: [bob]\n- level: Metadata\n  verbs: [get]\n- level: RequestResponse\n"
    ));
    let bob = UserInfo::new("bob", &[]);
    let get = request(Method::GET, "/api/v1/namespaces/a/pods/p");
    let list = request(Method::GET, "/api/v1/pods");
    assert_eq!(p.evaluate(&bob, &get).level, Level::None);
    assert_eq!(p.evaluate(&jane(), &get).level, Level::Metadata);
    assert_eq!(p.evaluate(&jane(), &list).level, Level::RequestResponse);
    let only_bob = policy(&format!(
        "{HEADER}rules:\n- level: Metadata\n  users: [bob]\n"
    ));
    assert_eq!(only_bob.evaluate(&jane(), &get).level, Level::None);
}

#[test]
fn groups_verbs_and_namespaces() {
    let p = policy(&format!(
        "{HEADER}rules:\n- level: Request\n  userGroups: [devs]\n  verbs: [create]\n  namespaces: [team]\n- level: Metadata\n  namespaces: [\"\"]\n"
    ));
    let create = request(Method::POST, "/api/v1/namespaces/team/configmaps");
    let elsewhere = request(Method::POST, "/api/v1/namespaces/other/configmaps");
    let cluster = request(Method::GET, "/api/v1/nodes");
    assert_eq!(p.evaluate(&jane(), &create).level, Level::Request);
    assert_eq!(
        p.evaluate(&UserInfo::new("ops", &["ops"]), &create).level,
        Level::None
    );
    assert_eq!(p.evaluate(&jane(), &elsewhere).level, Level::None);
    assert_eq!(
        p.evaluate(&jane(), &cluster).level,
        Level::Metadata,
        "cluster scope is namespace \"\""
    );
    let health = request(Method::GET, "/healthz");
    assert_eq!(
        p.evaluate(&jane(), &health).level,
        Level::None,
        "namespaces only match resource requests"
    );
}

#[test]
fn resources_subresources_wildcards_and_names() {
    let p = policy(&format!(
        "{HEADER}rules:
- level: RequestResponse
  resources:
  - group: \"\"
    resources: [pods/log]
- level: Request
  resources:
  - group: apps
    resources: [\"deployments/*\"]
- level: Metadata
  resources:
  - group: \"\"
    resources: [\"*/status\"]
- level: None
  resources:
  - group: \"\"
    resources: [configmaps]
    resourceNames: [secret-cm]
- level: Request
  resources:
  - group: \"\"
    resources: [\"*\"]
"
    ));
    let eval = |path: &str| p.evaluate(&jane(), &request(Method::GET, path)).level;
    assert_eq!(
        eval("/api/v1/namespaces/a/pods/p/log"),
        Level::RequestResponse
    );
    assert_eq!(
        eval("/apis/apps/v1/namespaces/a/deployments/d/scale"),
        Level::Request
    );
    assert_eq!(
        eval("/apis/apps/v1/namespaces/a/deployments/d"),
        Level::Request,
        "resource/* matches the resource too"
    );
    assert_eq!(
        eval("/apis/apps/v1/namespaces/a/replicasets/r"),
        Level::None,
        "other group resources"
    );
    assert_eq!(eval("/api/v1/namespaces/a/pods/p/status"), Level::Metadata);
    assert_eq!(
        eval("/api/v1/namespaces/a/configmaps/secret-cm"),
        Level::None
    );
    assert_eq!(
        eval("/api/v1/namespaces/a/configmaps/other"),
        Level::Request
    );
    assert_eq!(
        eval("/api/v1/namespaces/a/pods/p"),
        Level::Request,
        "* matches any core resource"
    );
    assert_eq!(eval("/version"), Level::None);
}

#[test]
fn non_resource_urls_exact_and_prefix() {
    let p = policy(&format!(
        "{HEADER}rules:\n- level: Metadata\n  nonResourceURLs: [/version, \"/healthz*\"]\n"
    ));
    let eval = |path: &str| p.evaluate(&jane(), &request(Method::GET, path)).level;
    assert_eq!(eval("/version"), Level::Metadata);
    assert_eq!(eval("/healthz/etcd"), Level::Metadata);
    assert_eq!(eval("/versions"), Level::None);
    assert_eq!(
        eval("/api/v1/pods"),
        Level::None,
        "resource requests never match URLs"
    );
    let all = policy(&format!(
        "{HEADER}rules:\n- level: Request\n  nonResourceURLs: [\"*\"]\n"
    ));
    assert_eq!(
        all.evaluate(&jane(), &request(Method::GET, "/openapi/v2"))
            .level,
        Level::Request
    );
}

#[test]
fn omit_stages_unite_and_managed_fields_fall_back_to_the_policy() {
    let p = policy(&format!(
        "{HEADER}omitStages: [RequestReceived]\nomitManagedFields: true\nrules:\n- level: Metadata\n  verbs: [get]\n  omitStages: [ResponseStarted]\n  omitManagedFields: false\n- level: Request\n"
    ));
    let get = p.evaluate(
        &jane(),
        &request(Method::GET, "/api/v1/namespaces/a/pods/p"),
    );
    assert!(get.omit_stages.contains(Stage::RequestReceived));
    assert!(get.omit_stages.contains(Stage::ResponseStarted));
    assert!(!get.omit_stages.contains(Stage::ResponseComplete));
    assert!(!get.omit_managed_fields);
    let list = p.evaluate(&jane(), &request(Method::GET, "/api/v1/pods"));
    assert!(!list.omit_stages.contains(Stage::ResponseStarted));
    assert!(list.omit_managed_fields);
}

#[test]
fn json_policies_are_read_too() {
    let p = Policy::parse(
        br#"{"apiVersion":"audit.k8s.io/v1","kind":"Policy","rules":[{"level":"Metadata"}]}"#,
        "k8s.io",
    )
    .expect("json policy");
    assert_eq!(p.rules.len(), 1);
}

#[test]
fn invalid_policies_name_the_field() {
    let e = refused(&format!("{HEADER}rules:\n- level: Loud\n"));
    assert!(
        e.starts_with("rules[0].level: Unsupported value: \"Loud\""),
        "{e}"
    );
    let e = refused(&format!("{HEADER}rules:\n- verbs: [get]\n"));
    assert_eq!(e, "rules[0].level: Required value");
    let e = refused(&format!(
        "{HEADER}rules:\n- level: None\n- level: Metadata\n  omitStages: [Sometimes]\n"
    ));
    assert!(
        e.starts_with("rules[1].omitStages[0]: Invalid value: \"Sometimes\""),
        "{e}"
    );
    let e = refused(&format!(
        "{HEADER}omitStages: [Never]\nrules:\n- level: None\n"
    ));
    assert!(e.starts_with("omitStages[0]: Invalid value"), "{e}");
    let e = refused(&format!(
        "{HEADER}rules:\n- level: Metadata\n  nonResourceURLs: [healthz]\n"
    ));
    assert!(
        e.contains("rules[0].nonResourceURLs[0]") && e.contains("must begin with a '/'"),
        "{e}"
    );
    let e = refused(&format!(
        "{HEADER}rules:\n- level: Metadata\n  nonResourceURLs: [\"/a*/b\"]\n"
    ));
    assert!(e.contains("must be the final character"), "{e}");
    let e = refused(&format!(
        "{HEADER}rules:\n- level: Metadata\n  nonResourceURLs: [/x]\n  namespaces: [a]\n"
    ));
    assert!(
        e.contains("rules cannot apply to both regular resources and non-resource URLs"),
        "{e}"
    );
    let e = refused(&format!(
        "{HEADER}rules:\n- level: Metadata\n  resources:\n  - group: Apps\n"
    ));
    assert!(
        e.starts_with("rules[0].resources[0].group: Invalid value: \"Apps\""),
        "{e}"
    );
    let e = refused(&format!(
        "{HEADER}rules:\n- level: Metadata\n  resources:\n  - resourceNames: [x]\n"
    ));
    assert!(
        e.contains("using resourceNames requires at least one resource"),
        "{e}"
    );
    let e = refused("apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: []\n");
    assert!(e.starts_with("failed decoding:"), "{e}");
    let e = refused("not: [valid");
    assert!(e.starts_with("failed decoding:"), "{e}");
}

#[test]
fn the_api_domain_names_the_group() {
    let svc = Policy::parse(
        b"apiVersion: audit.svc.io/v1\nkind: Policy\nrules:\n- level: None\n",
        "svc.io",
    );
    assert!(svc.is_ok());
    assert!(Policy::parse(HEADER.as_bytes(), "svc.io").is_err());
}
