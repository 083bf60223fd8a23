//! `/metrics` on the real binary: known traffic (creates, gets, a list, a
//! watch, an apply, a 404) counted under kube's names, labels, types and
//! stability levels, as the Python `prometheus_client` parsers read the
//! page; OpenMetrics by Accept; who may scrape (system:monitoring yes,
//! anonymous and ordinary users 403); `--show-hidden-metrics-for-version`.

mod access;
mod parsed;

use cairn_tests::{Server, wait_until};
use parsed::{Page, python};
use serde_json::json;

fn configmap(name: &str) -> serde_json::Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}})
}

fn scrape(s: &Server) -> String {
    let r = s.get("/metrics");
    assert_eq!(r.status, 200, "{}", r.text());
    r.text()
}

const CM: &str = "/api/v1/namespaces/default/configmaps";

/// kube's labels of a core-group configmaps request.
fn labels<'a>(verb: &'a str, scope: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("verb", verb),
        ("group", ""),
        ("version", "v1"),
        ("resource", "configmaps"),
        ("subresource", ""),
        ("scope", scope),
        ("component", "apiserver"),
    ]
}

fn with<'a>(
    mut base: Vec<(&'a str, &'a str)>,
    more: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    base.extend_from_slice(more);
    base
}

#[test]
fn known_traffic_is_counted_as_kube_counts_it() {
    let Some(py) = python() else { return };
    let s = Server::start(&[]);
    for name in ["m1", "m2", "m3"] {
        assert_eq!(s.post(CM, &configmap(name)).status, 201);
    }
    assert_eq!(s.get(&format!("{CM}/m1")).status, 200);
    assert_eq!(s.get(&format!("{CM}/m2")).status, 200);
    assert_eq!(s.get(&format!("{CM}/absent")).status, 404);
    assert_eq!(s.get(CM).status, 200);
    let apply =
        r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m4"},"data":{"a":"b"}}"#;
    let applied = s.patch(
        &format!("{CM}/m4?fieldManager=test"),
        "application/apply-patch+yaml",
        apply,
    );
    assert_eq!(applied.status, 201, "{}", applied.text());
    assert_eq!(
        s.post(&format!("{CM}?dryRun=All"), &configmap("dry"))
            .status,
        201
    );

    let mut watch = s.watch(&format!("{CM}?watch=true&timeoutSeconds=5"));
    assert!(
        watch.next_event().is_some(),
        "the watch replays existing objects"
    );
    let open = Page::parse(&py, &scrape(&s), false);
    let watching = labels("WATCH", "namespace");
    assert_eq!(open.value("apiserver_longrunning_requests", &watching), 1.0);
    let configmaps = [("group", ""), ("version", "v1"), ("kind", "ConfigMap")];
    assert_eq!(
        open.value("apiserver_registered_watchers", &configmaps),
        1.0
    );
    assert_eq!(
        open.value("apiserver_request_total", &watching),
        0.0,
        "counted when it ends"
    );
    drop(watch);
    wait_until("the closed watch to be counted", || {
        Page::parse(&py, &scrape(&s), false).value("apiserver_request_total", &watching) == 1.0
    });

    let page = Page::parse(&py, &scrape(&s), false);
    let count = |verb, scope, code, dry_run| {
        page.value(
            "apiserver_request_total",
            &with(labels(verb, scope), &[("code", code), ("dry_run", dry_run)]),
        )
    };
    assert_eq!(count("POST", "resource", "201", ""), 3.0);
    assert_eq!(count("POST", "resource", "201", "All"), 1.0);
    assert_eq!(count("GET", "resource", "200", ""), 2.0);
    assert_eq!(count("GET", "resource", "404", ""), 1.0);
    assert_eq!(count("LIST", "namespace", "200", ""), 1.0);
    assert_eq!(count("APPLY", "resource", "201", ""), 1.0);
    assert_eq!(page.value("apiserver_longrunning_requests", &watching), 0.0);
    assert_eq!(
        page.value("apiserver_registered_watchers", &configmaps),
        0.0
    );

    // Latency: short requests only, kube's buckets.
    let posts = with(labels("POST", "resource"), &[("dry_run", "")]);
    assert_eq!(
        page.value("apiserver_request_duration_seconds_count", &posts),
        3.0
    );
    let les: Vec<f64> = page
        .samples("apiserver_request_duration_seconds_bucket", &posts)
        .iter()
        .map(|s| {
            s["labels"]["le"]
                .as_str()
                .unwrap_or_default()
                .parse()
                .expect("le")
        })
        .collect();
    let kube = [
        0.005,
        0.025,
        0.05,
        0.1,
        0.2,
        0.4,
        0.6,
        0.8,
        1.0,
        1.25,
        1.5,
        2.0,
        3.0,
        4.0,
        5.0,
        6.0,
        8.0,
        10.0,
        15.0,
        20.0,
        30.0,
        45.0,
        60.0,
        f64::INFINITY,
    ];
    assert_eq!(les, kube);
    assert_eq!(
        page.value(
            "apiserver_request_duration_seconds_count",
            &with(watching.clone(), &[("dry_run", "")])
        ),
        0.0,
        "watches stay out of the latency histogram"
    );
    // Response sizes: reads only.
    assert_eq!(
        page.value("apiserver_response_sizes_count", &labels("GET", "resource")),
        3.0
    );
    assert_eq!(
        page.value(
            "apiserver_response_sizes_count",
            &labels("LIST", "namespace")
        ),
        1.0
    );
    assert_eq!(
        page.value(
            "apiserver_response_sizes_count",
            &labels("POST", "resource")
        ),
        0.0
    );

    let described = [
        (
            "apiserver_request",
            "counter",
            "[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
        ),
        (
            "apiserver_request_duration_seconds",
            "histogram",
            "[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
        ),
        (
            "apiserver_response_sizes",
            "histogram",
            "[STABLE] Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.",
        ),
        (
            "apiserver_longrunning_requests",
            "gauge",
            "[STABLE] Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.",
        ),
        (
            "apiserver_current_inflight_requests",
            "gauge",
            "[STABLE] Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
        ),
        (
            "apiserver_request_sli_duration_seconds",
            "histogram",
            "[ALPHA] Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, group, version, resource, subresource, scope and component.",
        ),
        (
            "authentication_attempts",
            "counter",
            "[ALPHA] Counter of authenticated attempts.",
        ),
        (
            "process_resident_memory_bytes",
            "gauge",
            "Resident memory size in bytes.",
        ),
        (
            "process_cpu_seconds",
            "counter",
            "Total user and system CPU time spent in seconds.",
        ),
    ];
    for (name, kind, help) in described {
        assert_eq!(
            page.describe(name),
            (kind.to_string(), help.to_string()),
            "{name}"
        );
    }
    assert!(
        page.family("apiserver_request_slo_duration_seconds")
            .is_none(),
        "hidden in 1.32"
    );
    // Admission: the validating phase and its NamespaceLifecycle plugin.
    let step = [
        ("type", "validate"),
        ("operation", "CREATE"),
        ("rejected", "false"),
    ];
    assert!(
        page.value(
            "apiserver_admission_step_admission_duration_seconds_count",
            &step
        ) >= 5.0
    );
    let plugin = [
        ("name", "NamespaceLifecycle"),
        ("type", "validate"),
        ("operation", "CREATE"),
        ("rejected", "false"),
    ];
    assert!(
        page.value(
            "apiserver_admission_controller_admission_duration_seconds_count",
            &plugin
        ) >= 5.0
    );
    assert_eq!(
        page.describe("apiserver_admission_step_admission_duration_seconds")
            .0,
        "histogram"
    );
    // The watch replayed the four stored configmaps and kube-root-ca.crt.
    let kind = [("group", ""), ("version", "v1"), ("kind", "ConfigMap")];
    assert_eq!(page.value("apiserver_watch_events_total", &kind), 5.0);
    assert_eq!(page.value("apiserver_watch_events_sizes_count", &kind), 5.0);
    assert_eq!(
        page.describe("apiserver_watch_events").1,
        "[ALPHA] Number of events sent in watch clients"
    );
    for kind in ["readOnly", "mutating"] {
        assert_eq!(
            page.samples(
                "apiserver_current_inflight_requests",
                &[("request_kind", kind)]
            )
            .len(),
            1
        );
    }
    assert!(page.value("authentication_attempts_total", &[("result", "success")]) >= 10.0);
    assert!(page.value("process_resident_memory_bytes", &[]) > 1e6);
    assert!(page.value("process_open_fds", &[]) >= 3.0);
    assert!(page.value("process_start_time_seconds", &[]) > 1.6e9);
    // One idle watcher keeps up: no write waited for watch delivery.
    assert_eq!(page.value("cairn_watch_paced_writes_total", &[]), 0.0);
    assert_eq!(page.value("cairn_watch_paced_seconds_total", &[]), 0.0);
    assert_eq!(page.describe("cairn_watch_paced_writes").0, "counter");
}

#[test]
fn openmetrics_when_the_client_asks_for_it() {
    let Some(py) = python() else { return };
    let s = Server::start(&[]);
    assert_eq!(s.post(CM, &configmap("om")).status, 201);
    let plain = s.get("/metrics");
    assert_eq!(
        plain.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    assert!(!plain.text().contains("# EOF"));
    let prometheus_accept = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
    let om = s.request("GET", "/metrics", &[("Accept", prometheus_accept)], None);
    assert_eq!(om.status, 200);
    assert_eq!(
        om.header("content-type"),
        Some("application/openmetrics-text; version=1.0.0; charset=utf-8")
    );
    let text = om.text();
    assert!(text.ends_with("# EOF\n"), "{text}");
    let page = Page::parse(&py, &text, true);
    let posts = with(
        labels("POST", "resource"),
        &[("code", "201"), ("dry_run", "")],
    );
    assert_eq!(page.value("apiserver_request_total", &posts), 1.0);
    assert_eq!(page.describe("apiserver_request").0, "counter");
}

#[test]
fn hidden_metrics_show_only_for_the_previous_minor() {
    let Some(py) = python() else { return };
    let s = Server::start(&["--show-hidden-metrics-for-version=1.31"]);
    assert_eq!(s.post(CM, &configmap("h")).status, 201);
    let page = Page::parse(&py, &scrape(&s), false);
    let (kind, help) = page.describe("apiserver_request_slo_duration_seconds");
    assert_eq!(kind, "histogram");
    assert!(
        help.starts_with("[ALPHA] (Deprecated since 1.27.0) Response latency distribution"),
        "{help}"
    );
    assert_eq!(
        page.value(
            "apiserver_request_slo_duration_seconds_count",
            &labels("POST", "resource")
        ),
        1.0
    );
}

#[test]
fn other_hidden_metrics_versions_are_refused_at_start() {
    for refused in ["1.30", "1.32", "v1.31", "1.31.0"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = std::process::Command::new(cairn_tests::binary())
            .arg("--data-dir")
            .arg(dir.path().join("data"))
            .args(["--secure-port", "0", "--insecure-port", "0"])
            .arg(format!("--show-hidden-metrics-for-version={refused}"))
            .output()
            .expect("run cairn-apiserver");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert!(!out.status.success(), "{refused} accepted");
        assert_eq!(lines.len(), 1, "{stderr}");
        assert!(
            lines[0].contains("--show-hidden-metrics-for-version must be omitted or have the value '1.31'. Only the previous minor version is allowed"),
            "{stderr}"
        );
        assert!(!dir.path().join("data").exists(), "nothing written");
    }
}

#[test]
fn storage_counts_sizes_and_latencies() {
    let Some(py) = python() else { return };
    let s = Server::start(&[]);
    let before =
        |page: &Page| page.value("apiserver_storage_objects", &[("resource", "configmaps")]);
    let start = Page::parse(&py, &scrape(&s), false);
    let baseline = before(&start);
    let lag = "cairn_engine_watch_lag_seconds_count";
    let taken_before = start.value(lag, &[]);
    let mut watch = s.watch(&format!(
        "{CM}?watch=true&resourceVersion=0&timeoutSeconds=30"
    ));
    for name in ["s1", "s2"] {
        assert_eq!(s.post(CM, &configmap(name)).status, 201);
    }
    while let Some(event) = watch.next_event() {
        if event["object"]["metadata"]["name"] == "s2" {
            break;
        }
    }
    drop(watch);
    // Controllers publish ConfigMaps of their own (kube-root-ca.crt,
    // extension-apiserver-authentication) and may do so after the first
    // refresh, so the gauge is compared with what a list finds now.
    wait_until("the object count refresh", || {
        let stored = s.get("/api/v1/configmaps").json()["items"]
            .as_array()
            .map_or(0, Vec::len) as f64;
        let counted = before(&Page::parse(&py, &scrape(&s), false));
        counted == stored && counted >= baseline + 2.0
    });
    let page = Page::parse(&py, &scrape(&s), false);
    assert_eq!(page.describe("apiserver_storage_objects").0, "gauge");
    assert!(
        page.describe("apiserver_storage_objects")
            .1
            .starts_with("[STABLE] Number of stored objects")
    );
    let sizes = page.samples("apiserver_storage_size_bytes", &[]);
    assert_eq!(sizes.len(), 1);
    assert!(sizes[0]["value"].as_f64().unwrap_or(0.0) > 0.0);
    assert_eq!(
        sizes[0]["labels"]["storage_cluster_id"]
            .as_str()
            .map(str::len),
        Some(16)
    );
    assert!(
        page.value(lag, &[]) > taken_before,
        "live commits taken by the watch are timed"
    );
    // The embedded engine's own figures.
    assert!(page.value("cairn_engine_revision", &[]) >= 2.0);
    assert!(page.value("cairn_engine_segments", &[]) >= 1.0);
    assert!(page.value("cairn_engine_bytes", &[]) > 0.0);
    assert!(page.value("cairn_engine_fsync_duration_seconds_count", &[]) >= 2.0);
    assert!(page.value("cairn_engine_group_commit_size_count", &[]) >= 2.0);
    assert_eq!(
        page.describe("cairn_engine_fsync_duration_seconds"),
        (
            "histogram".to_string(),
            "[ALPHA] Latency of the embedded store's fdatasync of a commit batch in seconds."
                .to_string()
        )
    );
    let creates = [("operation", "create"), ("type", "configmaps")];
    assert!(page.value("etcd_request_duration_seconds_count", &creates) >= 2.0);
    assert_eq!(
        page.describe("etcd_request_duration_seconds"),
        (
            "histogram".to_string(),
            "[ALPHA] Etcd request latency in seconds for each operation and object type."
                .to_string()
        )
    );
}
