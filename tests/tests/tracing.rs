//! `--tracing-config-file` on the real binary, exporting to an OTLP
//! collector the test serves: request spans named and described as
//! kube-apiserver's, storage operations as their children, sampling that
//! follows an incoming `traceparent` and starts nothing when no rate is
//! set, and invalid configurations refused at start.

use cairn_tests::otlp_collector::{Collector, ReceivedSpan};
use cairn_tests::{Server, start_refused};
use serde_json::json;

const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";
/// For `Server::start`, which serves the spec's `svc.io` domain.
const HEAD: &str = "apiVersion: apiserver.config.svc.io/v1\nkind: TracingConfiguration\n";
/// For a start with no `--api-domain` (kube's `k8s.io`).
const KUBE_HEAD: &str = "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\n";

/// A server exporting to `collector`, with `rate` when given.
fn traced_server(collector: &Collector, rate: Option<u32>) -> (Server, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("tracing.yaml");
    let mut text = format!("{HEAD}endpoint: {}\n", collector.endpoint());
    if let Some(rate) = rate {
        text.push_str(&format!("samplingRatePerMillion: {rate}\n"));
    }
    std::fs::write(&path, text).expect("write");
    let s = Server::start(&["--tracing-config-file", path.to_str().expect("utf-8")]);
    (s, dir)
}

fn configmap(name: &str) -> serde_json::Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}})
}

fn children<'a>(spans: &'a [ReceivedSpan], parent: &ReceivedSpan) -> Vec<&'a ReceivedSpan> {
    spans
        .iter()
        .filter(|s| s.trace_id == parent.trace_id && s.parent_span_id == parent.span_id)
        .collect()
}

#[test]
fn requests_and_their_storage_operations_are_spans() {
    let collector = Collector::start();
    let (s, _dir) = traced_server(&collector, Some(1_000_000));
    let created = s.post(CONFIGMAPS, &configmap("traced"));
    assert_eq!(created.status, 201, "{}", created.text());
    let audit_id = created.header("Audit-ID").expect("an Audit-ID").to_string();
    assert_eq!(s.get(&format!("{CONFIGMAPS}/traced")).status, 200);
    assert_eq!(s.get("/healthz").status, 200);

    let create_name = "POST /api/v1/namespaces/{:namespace}/configmaps";
    let get_name = "GET /api/v1/namespaces/{:namespace}/configmaps/{:name}";
    let spans = collector.wait_for("the create, get and healthz spans", |spans| {
        let named = |n: &str| spans.iter().any(|s| s.name == n);
        named(create_name)
            && named(get_name)
            && spans
                .iter()
                .any(|s| s.attribute("http.target") == Some("/healthz"))
    });
    let create = spans
        .iter()
        .find(|s| s.name == create_name && s.attribute("audit-id") == Some(&audit_id))
        .expect("the create's span carries its audit ID");
    assert_eq!(create.kind, 2, "a server span");
    assert!(create.parent_span_id.is_empty(), "a root span");
    assert_eq!(create.attribute("http.method"), Some("POST"));
    assert_eq!(create.attribute("http.status_code"), Some("201"));
    assert_eq!(create.attribute("http.scheme"), Some("http"));
    assert_eq!(create.attribute("http.target"), Some(CONFIGMAPS));
    assert_eq!(create.attribute("net.sock.peer.addr"), Some("127.0.0.1"));
    assert_eq!(create.attribute("verb"), Some("create"));
    assert_eq!(
        create.resource.get("service.name").map(String::as_str),
        Some("apiserver")
    );

    let stored: Vec<_> = children(&spans, create)
        .into_iter()
        .filter(|s| s.name == "Create embedded")
        .collect();
    assert_eq!(
        stored.len(),
        1,
        "one storage create under the request: {spans:#?}"
    );
    assert_eq!(stored[0].attribute("audit-id"), Some(audit_id.as_str()));
    assert!(
        stored[0]
            .attribute("key")
            .is_some_and(|k| k.ends_with("/default/traced")),
        "{:?}",
        stored[0].attributes
    );

    let get = spans.iter().find(|s| s.name == get_name).expect("the get");
    assert_eq!(get.attribute("http.status_code"), Some("200"));
    assert!(
        children(&spans, get)
            .iter()
            .any(|s| s.name == "Get embedded"),
        "the get reads storage under its span: {spans:#?}"
    );
    assert!(
        spans
            .iter()
            .any(|s| s.name == "GET" && s.attribute("http.target") == Some("/healthz")),
        "a request for no resource is named by its method"
    );
}

#[test]
fn without_a_rate_only_sampled_parents_are_followed() {
    let collector = Collector::start();
    let (s, _dir) = traced_server(&collector, None);
    let unsampled = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00";
    for i in 0..5 {
        let r = s.post(CONFIGMAPS, &configmap(&format!("untraced-{i}")));
        assert_eq!(r.status, 201);
    }
    let r = s.request("GET", CONFIGMAPS, &[("traceparent", unsampled)], None);
    assert_eq!(r.status, 200);
    let (trace_id, parent_id) = ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");
    let sampled = format!("00-{trace_id}-{parent_id}-01");
    let r = s.request("GET", CONFIGMAPS, &[("traceparent", &sampled)], None);
    assert_eq!(r.status, 200);

    let spans = collector.wait_for("the sampled list's span", |spans| {
        spans.iter().any(|s| s.trace_id == trace_id && s.kind == 2)
    });
    let list = spans
        .iter()
        .find(|s| s.trace_id == trace_id && s.kind == 2)
        .expect("the list's span");
    assert_eq!(list.name, "GET /api/v1/namespaces/{:namespace}/configmaps");
    assert_eq!(
        list.parent_span_id, parent_id,
        "the caller's span is the parent"
    );
    assert!(
        children(&spans, list)
            .iter()
            .any(|s| s.name == "List embedded"),
        "{spans:#?}"
    );
    let strays: Vec<_> = spans.iter().filter(|s| s.trace_id != trace_id).collect();
    assert!(strays.is_empty(), "nothing else was sampled: {strays:#?}");
}

#[test]
fn invalid_configurations_stop_the_start() {
    let line = start_refused(
        "--tracing-config-file",
        &format!("{KUBE_HEAD}samplingRatePerMillion: -5\n"),
        &[],
    );
    assert!(
        line.contains("samplingRatePerMillion: Invalid value: -5: sampling rate must be positive"),
        "{line}"
    );
    let line = start_refused(
        "--tracing-config-file",
        &format!("{KUBE_HEAD}endpoint: localhost:4317\nsampling: 5\n"),
        &[],
    );
    assert!(line.contains("unknown field \"sampling\""), "{line}");
    let line = start_refused(
        "--tracing-config-file",
        "apiVersion: v1\nkind: TracingConfiguration\n",
        &[],
    );
    assert!(line.contains("TracingConfiguration"), "{line}");
    let line =
        cairn_tests::start_refused_with(&["--tracing-config-file", "/nonexistent/tracing.yaml"]);
    assert!(
        line.contains("failed to read tracing configuration file"),
        "{line}"
    );
}
