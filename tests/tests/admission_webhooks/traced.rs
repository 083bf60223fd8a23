//! A traced write that calls a validating webhook: the webhook receives a
//! W3C `traceparent` naming the call's client span, which sits under the
//! `Call validating webhook` span, under the request's span.

use cairn_tests::Server;
use cairn_tests::otlp_collector::Collector;
use serde_json::json;

use super::hook::Hook;
use super::{CONFIGMAPS, VALIDATING, configmap, configmaps_rule, configuration, install};

fn allow(_: &serde_json::Value) -> serde_json::Value {
    json!({"allowed": true})
}

#[test]
fn webhook_calls_are_spans_of_the_request_and_carry_its_trace() {
    let collector = Collector::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("tracing.yaml");
    std::fs::write(
        &config,
        format!(
            "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\nendpoint: {}\nsamplingRatePerMillion: 1000000\n",
            collector.endpoint()
        ),
    )
    .expect("write");
    let s = Server::start(&[
        "--api-domain",
        "k8s.io",
        "--tracing-config-file",
        config.to_str().expect("utf-8"),
    ]);
    let hook = Hook::start(allow);
    let webhook = hook.entry("allow.traced.test", configmaps_rule(), json!({}));
    let traced = configuration(VALIDATING, "traced", vec![webhook]);
    install(&s, VALIDATING, &traced, |s, probe| {
        let _ = s.post(CONFIGMAPS, &configmap(&format!("warm-{probe}"), json!({})));
        !hook.received().is_empty()
    });
    let r = s.post(CONFIGMAPS, &configmap("traced", json!({})));
    assert_eq!(r.status, 201, "{}", r.text());
    let call = hook
        .received()
        .into_iter()
        .find(|c| c.review["request"]["name"] == "traced")
        .expect("the webhook saw the write");
    let traceparent = call.traceparent.expect("a traceparent header");
    let parts: Vec<&str> = traceparent.split('-').collect();
    assert_eq!(parts.len(), 4, "{traceparent}");
    assert_eq!((parts[0], parts[3]), ("00", "01"), "sampled, version 00");
    let (trace_id, client_span_id) = (parts[1].to_string(), parts[2].to_string());

    let spans = collector.wait_for("the write's request span", |spans| {
        spans
            .iter()
            .any(|s| s.trace_id == trace_id && s.parent_span_id.is_empty())
    });
    let of_trace: Vec<_> = spans.iter().filter(|s| s.trace_id == trace_id).collect();
    let by_id = |id: &str| {
        of_trace
            .iter()
            .find(|s| s.span_id == id)
            .unwrap_or_else(|| panic!("span {id} of {of_trace:#?}"))
    };
    let client = by_id(&client_span_id);
    assert_eq!(client.name, "HTTP POST");
    assert_eq!(client.kind, 3, "a client span");
    assert_eq!(client.attribute("http.status_code"), Some("200"));
    let call_span = by_id(&client.parent_span_id);
    assert_eq!(call_span.name, "Call validating webhook");
    assert_eq!(call_span.attribute("webhook"), Some("allow.traced.test"));
    assert_eq!(call_span.attribute("configuration"), Some("traced"));
    assert_eq!(call_span.attribute("operation"), Some("CREATE"));
    assert_eq!(
        call_span.attribute("resource"),
        Some("/v1, Resource=configmaps")
    );
    assert_eq!(
        call_span.attribute("UID"),
        call.review["request"]["uid"].as_str()
    );
    let request = by_id(&call_span.parent_span_id);
    assert_eq!(
        request.name,
        "POST /api/v1/namespaces/{:namespace}/configmaps"
    );
    assert!(request.parent_span_id.is_empty(), "the request is the root");
}
