//! A request to a deprecated version: the `Warning` header, the audit
//! annotations kube-apiserver writes (`<domain>/deprecated`,
//! `<domain>/removed-release`), and the `apiserver_requested_deprecated_apis`
//! gauge with its labels; the audit log's own counters on `/metrics`.

use serde_json::json;

use super::{Files, audit_id, events_of, stage};

#[test]
fn a_deprecated_request_is_warned_annotated_and_counted() {
    let files = Files::new("rules:\n- level: Metadata\n");
    let s = files.start(&["--runtime-config", "authentication.k8s.io/v1beta1=true"]);
    let review =
        json!({"apiVersion": "authentication.k8s.io/v1beta1", "kind": "SelfSubjectReview"});
    let r = s.post(
        "/apis/authentication.k8s.io/v1beta1/selfsubjectreviews",
        &review,
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert!(
        r.header("warning")
            .is_some_and(|w| w.contains("v1beta1 SelfSubjectReview is deprecated")),
        "{:?}",
        r.headers
    );
    let events = events_of(&files.log(), &audit_id(&r), "ResponseComplete");
    let annotations = &stage(&events, "ResponseComplete")["annotations"];
    assert_eq!(annotations["k8s.io/deprecated"], "true", "{annotations}");
    assert_eq!(
        annotations["k8s.io/removed-release"], "1.33",
        "{annotations}"
    );

    // An undeprecated request carries neither annotation.
    let plain = s.post(
        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        &json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}),
    );
    assert_eq!(plain.status, 201);
    let events = events_of(&files.log(), &audit_id(&plain), "ResponseComplete");
    let annotations = &stage(&events, "ResponseComplete")["annotations"];
    assert!(
        annotations.get("k8s.io/deprecated").is_none(),
        "{annotations}"
    );

    let page = s.get("/metrics").text();
    let gauge = page
        .lines()
        .find(|l| l.starts_with("apiserver_requested_deprecated_apis{"))
        .unwrap_or_else(|| panic!("no deprecated API gauge in:\n{page}"));
    for label in [
        r#"group="authentication.k8s.io""#,
        r#"version="v1beta1""#,
        r#"resource="selfsubjectreviews""#,
        r#"subresource="""#,
        r#"removed_release="1.33""#,
    ] {
        assert!(gauge.contains(label), "{label} in {gauge}");
    }
    assert!(gauge.ends_with(" 1"), "{gauge}");
    assert!(
        !page.contains(
            r#"apiserver_requested_deprecated_apis{group="authentication.k8s.io",version="v1""#
        ),
        "only deprecated versions are recorded"
    );
    let audited: f64 = page
        .lines()
        .find_map(|l| l.strip_prefix("apiserver_audit_event_total "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no audit event counter in:\n{page}"));
    assert!(audited >= 4.0, "{audited} audit events");
    assert!(
        page.contains(r#"apiserver_audit_error_total{plugin="log"} 0"#),
        "no audit errors"
    );
    assert!(
        page.contains(r#"apiserver_dropped_requests_total{request_kind="mutating"} 0"#),
        "the in-flight limits' refusals are counted"
    );
}
