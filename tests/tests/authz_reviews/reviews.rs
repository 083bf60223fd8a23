//! The reviews as clients ask them: `kubectl auth can-i` and `--list`,
//! raw SubjectAccessReview and LocalSubjectAccessReview posts, the Python
//! client's `AuthorizationV1Api`, and can-i under the default policy alone.

use std::path::Path;
use std::process::Command;

use cairn_tests::{kubectl_present, python, wait_until};
use serde_json::{Value, json};

use super::{RBAC, bare, binding, start, user};

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
