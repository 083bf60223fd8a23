//! More of issue #25's corrections, on the real binary: a list's
//! `timeoutSeconds` bounds it (504 Timeout, `list_timeout`), CEL rules see
//! set and map lists as Kubernetes does (`custom_resources`), and behaviour
//! nothing checked before: dry-run PUT, pretty-printing chosen by the
//! User-Agent, a CRD's selectable fields and CBOR bodies for custom
//! resources (`custom_resources`), `--livez-grace-period`, a watch from a
//! resourceVersion not reached yet, and removed API versions.

mod custom_resources;
mod list_timeout;

use std::process::Command;
use std::time::Duration;

use cairn_tests::Server;
use serde_json::{Value, json};

const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";

#[test]
fn a_dry_run_put_answers_as_if_stored_and_stores_nothing() {
    let s = Server::start(&[]);
    let created = s.post(
        CONFIGMAPS,
        &json!({"metadata": {"name": "dry"}, "data": {"a": "1"}}),
    );
    assert_eq!(created.status, 201, "{}", created.text());
    let before = created.json();
    let rv = before["metadata"]["resourceVersion"].clone();
    let mut watch = s.watch(&format!(
        "{CONFIGMAPS}?watch=true&resourceVersion={}&fieldSelector=metadata.name%3Ddry&timeoutSeconds=2",
        rv.as_str().expect("rv")
    ));
    watch.set_timeout(Duration::from_secs(30));

    let mut changed = before.clone();
    changed["data"] = json!({"a": "2", "b": "3"});
    changed["metadata"]["labels"] = json!({"l": "v"});
    let r = s.put(&format!("{CONFIGMAPS}/dry?dryRun=All"), &changed);
    assert_eq!(r.status, 200, "{}", r.text());
    let answer = r.json();
    assert_eq!(answer["data"], json!({"a": "2", "b": "3"}));
    assert_eq!(answer["metadata"]["labels"], json!({"l": "v"}));
    assert_eq!(answer["metadata"]["uid"], before["metadata"]["uid"]);
    assert_eq!(answer["metadata"]["resourceVersion"], rv);

    let stored = s.get(&format!("{CONFIGMAPS}/dry")).json();
    assert_eq!(stored["data"], json!({"a": "1"}));
    assert_eq!(stored["metadata"]["resourceVersion"], rv);
    assert!(stored["metadata"]["labels"].is_null());
    assert_eq!(watch.next_event(), None, "watchers see nothing");

    // A dry-run PUT is still validated and checked for conflicts.
    let mut stale = changed.clone();
    stale["metadata"]["resourceVersion"] = json!("1");
    assert_eq!(
        s.put(&format!("{CONFIGMAPS}/dry?dryRun=All"), &stale)
            .status,
        409
    );
    let mut invalid = changed;
    invalid["data"] = json!({"bad key!": "x"});
    assert_eq!(
        s.put(&format!("{CONFIGMAPS}/dry?dryRun=All"), &invalid)
            .status,
        422
    );
}

#[test]
fn pretty_printing_follows_the_user_agent_unless_asked() {
    let s = Server::start(&[]);
    let get = |ua: &str, query: &str| {
        s.request(
            "GET",
            &format!("/api/v1/namespaces/default{query}"),
            &[("User-Agent", ua)],
            None,
        )
        .text()
    };
    let pretty = |body: &str| body.starts_with("{\n  \"kind\": \"Namespace\"");
    for ua in [
        "curl/8.5.0",
        "Wget/1.21.4",
        "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0",
    ] {
        assert!(pretty(&get(ua, "")), "{ua}: {}", get(ua, ""));
        assert!(!pretty(&get(ua, "?pretty=false")), "{ua} with pretty=false");
        assert!(!pretty(&get(ua, "?pretty=0")), "{ua} with pretty=0");
        assert!(
            pretty(&get(ua, "?pretty=")),
            "{ua}: an empty pretty is no answer"
        );
    }
    for ua in [
        "kubectl/v1.32.0 (linux/amd64) kubernetes/abc",
        "python-requests/2.32",
        "mozilla/5.0",
        "",
    ] {
        let body = get(ua, "");
        assert!(
            !pretty(&body) && body.starts_with("{\"kind\":\"Namespace\""),
            "{ua}: {body}"
        );
        assert!(pretty(&get(ua, "?pretty=true")), "{ua} with pretty=true");
        assert!(pretty(&get(ua, "?pretty=1")), "{ua} with pretty=1");
        assert!(pretty(&get(ua, "?pretty=True")), "{ua} with pretty=True");
    }
    // The same object either way.
    let compact: Value = serde_json::from_str(&get("kubectl", "")).expect("json");
    let indented: Value = serde_json::from_str(&get("curl/8", "")).expect("json");
    assert_eq!(compact, indented);
}

#[test]
fn livez_grace_period_is_a_duration_flag() {
    let s = Server::start(&["--livez-grace-period", "1h30m"]);
    let r = s.get("/livez?verbose");
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains("livez check passed"), "{}", r.text());
    drop(s);

    let dir = tempfile::tempdir().expect("tempdir");
    let out = Command::new(cairn_tests::binary())
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .args(["--secure-port", "0", "--insecure-port", "0"])
        .args(["--livez-grace-period", "soon"])
        .output()
        .expect("run cairn-apiserver");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--livez-grace-period"), "{stderr}");
    assert!(!dir.path().join("data").exists(), "nothing written");
}

#[test]
fn a_watch_from_a_resource_version_not_reached_yet_waits_until_its_timeout() {
    let s = Server::start(&[]);
    let list = s.get(CONFIGMAPS).json();
    let current: u64 = list["metadata"]["resourceVersion"]
        .as_str()
        .expect("rv")
        .parse()
        .expect("number");
    let ahead = current + 1_000_000;
    let mut watch = s.watch(&format!(
        "{CONFIGMAPS}?watch=true&resourceVersion={ahead}&timeoutSeconds=1"
    ));
    assert_eq!(watch.status, 200);
    watch.set_timeout(Duration::from_secs(60));
    let created = s.post(CONFIGMAPS, &json!({"metadata": {"name": "later"}}));
    assert_eq!(created.status, 201);
    // No error event and no event below the asked version: the stream
    // just ends when its time is up.
    assert_eq!(watch.next_event(), None);
    assert!(watch.ended(), "the server ended the stream");

    // A get or list asking for that version is refused instead.
    let r = s.get(&format!(
        "{CONFIGMAPS}?resourceVersion={ahead}&resourceVersionMatch=NotOlderThan"
    ));
    assert_eq!(r.status, 504, "{}", r.text());
    assert_eq!(
        r.json()["details"]["causes"][0]["reason"],
        "ResourceVersionTooLarge"
    );
}

#[test]
fn removed_api_versions_answer_404() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let removed = [
        "/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas",
        "/apis/flowcontrol.apiserver.k8s.io/v1beta2/prioritylevelconfigurations",
        "/apis/flowcontrol.apiserver.k8s.io/v1beta1/flowschemas",
        "/apis/storage.k8s.io/v1beta1/namespaces/default/csistoragecapacities",
        "/apis/autoscaling/v2beta2/namespaces/default/horizontalpodautoscalers",
        "/apis/autoscaling/v2beta1/namespaces/default/horizontalpodautoscalers",
        "/apis/batch/v1beta1/namespaces/default/cronjobs",
        "/apis/discovery.k8s.io/v1beta1/namespaces/default/endpointslices",
        "/apis/events.k8s.io/v1beta1/namespaces/default/events",
        "/apis/policy/v1beta1/namespaces/default/poddisruptionbudgets",
        "/apis/policy/v1beta1/podsecuritypolicies",
        "/apis/node.k8s.io/v1beta1/runtimeclasses",
        "/apis/admissionregistration.k8s.io/v1beta1/validatingwebhookconfigurations",
        "/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions",
        "/apis/apiregistration.k8s.io/v1beta1/apiservices",
        "/apis/certificates.k8s.io/v1beta1/certificatesigningrequests",
        "/apis/coordination.k8s.io/v1beta1/namespaces/default/leases",
        "/apis/extensions/v1beta1/namespaces/default/ingresses",
        "/apis/networking.k8s.io/v1beta1/namespaces/default/ingresses",
        "/apis/networking.k8s.io/v1beta1/ingressclasses",
    ];
    let groups = s.get("/apis").json();
    let served: Vec<String> = groups["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .flat_map(|g| g["versions"].as_array().cloned().unwrap_or_default())
        .filter_map(|v| v["groupVersion"].as_str().map(str::to_string))
        .collect();
    for path in removed {
        assert_eq!(s.get(path).status, 404, "GET {path}");
        let version = path.rsplit_once('/').map_or("", |p| p.0);
        let group_version = version
            .strip_prefix("/apis/")
            .and_then(|v| v.split("/namespaces").next())
            .expect("group/version");
        assert_eq!(
            s.get(&format!("/apis/{group_version}")).status,
            404,
            "{group_version}"
        );
        assert!(
            !served.contains(&group_version.to_string()),
            "{group_version} in discovery"
        );
        let r = s.post(path, &json!({"metadata": {"name": "x"}}));
        assert_eq!(r.status, 404, "POST {path}");
    }
    // Their replacements are served.
    for path in [
        "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas",
        "/apis/coordination.k8s.io/v1/namespaces/default/leases",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    ] {
        assert_eq!(s.get(path).status, 200, "GET {path}");
    }
}
