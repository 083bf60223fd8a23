//! Deprecated API versions: every request to one, whatever its outcome,
//! carries a `Warning: 299 - "…"` header with kube-apiserver's text —
//! built-in (`authentication.k8s.io/v1beta1` SelfSubjectReview) and
//! CustomResourceDefinition versions (`deprecated`, `deprecationWarning`) —
//! and requests to undeprecated versions carry none.

use cairn_tests::clients::{kubectl, kubectl_present};
use cairn_tests::{Response, Server, wait_until};
use serde_json::{Value, json};

const SSR_BETA: &str = "authentication.k8s.io/v1beta1 SelfSubjectReview is deprecated in v1.30+, unavailable in v1.33+; use authentication.k8s.io/v1 SelfSubjectReview";

fn warnings(r: &Response) -> Vec<String> {
    r.header_all("warning")
        .into_iter()
        .map(str::to_string)
        .collect()
}

fn warned(text: &str) -> String {
    format!("299 - \"{text}\"")
}

fn self_review(s: &Server, version: &str) -> Response {
    let body = json!({"apiVersion": format!("authentication.k8s.io/{version}"), "kind": "SelfSubjectReview"});
    s.post(
        &format!("/apis/authentication.k8s.io/{version}/selfsubjectreviews"),
        &body,
    )
}

#[test]
fn built_in_deprecated_version_warns_on_every_request() {
    let s = Server::start(&[
        "--api-domain",
        "k8s.io",
        "--runtime-config",
        "authentication.k8s.io/v1beta1=true",
    ]);
    let r = self_review(&s, "v1beta1");
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(warnings(&r), [warned(SSR_BETA)]);
    // Refused requests to it are warned too.
    let r = s.get("/apis/authentication.k8s.io/v1beta1/selfsubjectreviews");
    assert!(r.status >= 400);
    assert_eq!(warnings(&r), [warned(SSR_BETA)]);
    let r = self_review(&s, "v1");
    assert_eq!(r.status, 201);
    assert!(warnings(&r).is_empty(), "{:?}", warnings(&r));
}

#[test]
fn built_in_warning_names_the_configured_domain() {
    let s = Server::start(&[
        "--api-domain",
        "svc.io",
        "--runtime-config",
        "authentication.svc.io/v1beta1",
    ]);
    let body = json!({"apiVersion": "authentication.svc.io/v1beta1", "kind": "SelfSubjectReview"});
    let r = s.post(
        "/apis/authentication.svc.io/v1beta1/selfsubjectreviews",
        &body,
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(
        warnings(&r),
        [warned(&SSR_BETA.replace("k8s.io", "svc.io"))]
    );
}

fn gadget_crd() -> Value {
    let schema = json!({"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}});
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
            "versions": [
                {"name": "v1alpha1", "served": true, "storage": false, "deprecated": true, "schema": schema},
                {"name": "v1beta1", "served": true, "storage": false, "deprecated": true,
                 "deprecationWarning": "example.com/v1beta1 Gadget goes away in 2027", "schema": schema},
                {"name": "v1", "served": true, "storage": true, "schema": schema},
                {"name": "v2", "served": false, "storage": false, "schema": schema}
            ]}
    })
}

#[test]
fn crd_deprecated_versions_warn_with_their_own_or_the_default_text() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let r = s.post(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        &gadget_crd(),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let path = |v: &str| format!("/apis/example.com/{v}/namespaces/default/gadgets");
    wait_until("gadgets to be served", || s.get(&path("v1")).status == 200);
    let alpha = warned("example.com/v1alpha1 Gadget is deprecated; use example.com/v1 Gadget");
    let created = s.post(
        &path("v1alpha1"),
        &json!({"apiVersion": "example.com/v1alpha1", "kind": "Gadget", "metadata": {"name": "g"}}),
    );
    assert_eq!(created.status, 201, "{}", created.text());
    for r in [
        created,
        s.get(&path("v1alpha1")),
        s.get(&format!("{}/g", path("v1alpha1"))),
    ] {
        assert_eq!(warnings(&r), std::slice::from_ref(&alpha));
    }
    assert_eq!(
        warnings(&s.get(&format!("{}/missing", path("v1beta1")))),
        [warned("example.com/v1beta1 Gadget goes away in 2027")]
    );
    // The deprecation comes first, then what the request itself drew.
    let unknown = s.post(
        &format!("{}?fieldValidation=Warn", path("v1alpha1")),
        &json!({"apiVersion": "example.com/v1alpha1", "kind": "Gadget", "metadata": {"name": "g2", "bogus": 1}}),
    );
    assert_eq!(unknown.status, 201, "{}", unknown.text());
    let all = warnings(&unknown);
    assert_eq!(all.len(), 2, "{all:?}");
    assert!(all[0].contains("Gadget is deprecated"), "{all:?}");
    assert!(all[1].contains("metadata.bogus"), "{all:?}");
    let v1 = s.get(&format!("{}/g", path("v1")));
    assert_eq!(v1.status, 200);
    assert!(warnings(&v1).is_empty(), "{:?}", warnings(&v1));
}

#[test]
fn kubectl_shows_the_warning_of_a_deprecated_crd_version() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let r = s.post(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        &gadget_crd(),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    wait_until("gadgets to be served", || {
        s.get("/apis/example.com/v1alpha1/namespaces/default/gadgets")
            .status
            == 200
    });
    let (ok, out) = kubectl(&s, &["get", "gadgets.v1alpha1.example.com", "-A"], None);
    assert!(ok, "{out}");
    assert!(
        out.contains(
            "Warning: example.com/v1alpha1 Gadget is deprecated; use example.com/v1 Gadget"
        ),
        "{out}"
    );
}
