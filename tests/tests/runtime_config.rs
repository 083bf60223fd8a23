//! `--runtime-config`: every key form kube-apiserver accepts, its start-up
//! refusals, turned-off versions and resources gone from discovery (legacy
//! and aggregated), OpenAPI v2 and v3 and answering 404, alpha and beta
//! built-in versions served when turned on, objects stored through a
//! turned-off version still served through another (deprecation rule 4b),
//! and CustomResourceDefinition versions governed by the CRD alone.

use std::process::Command;

use cairn_tests::{Server, binary, wait_until};
use serde_json::{Value, json};

const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const AUTHN: &str = "/apis/authentication.k8s.io";

fn start(runtime_config: &str) -> Server {
    Server::start(&["--api-domain", "k8s.io", "--runtime-config", runtime_config])
}

/// The group versions `/apis` lists for `group`.
fn versions(s: &Server, group: &str) -> Vec<String> {
    let groups = s.get("/apis").json();
    groups["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .filter(|g| g["name"] == group)
        .flat_map(|g| g["versions"].as_array().cloned().unwrap_or_default())
        .map(|v| v["version"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn aggregated(s: &Server, path: &str) -> Value {
    let r = s.request("GET", path, &[("Accept", AGGREGATED)], None);
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

/// `(group, version, resource)` of every resource aggregated discovery lists.
fn aggregated_resources(s: &Server) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for path in ["/api", "/apis"] {
        for group in aggregated(s, path)["items"].as_array().expect("items") {
            let name = group["metadata"]["name"].as_str().unwrap_or_default();
            for version in group["versions"].as_array().expect("versions") {
                for r in version["resources"].as_array().expect("resources") {
                    out.push((
                        name.to_string(),
                        version["version"].as_str().unwrap_or_default().to_string(),
                        r["resource"].as_str().unwrap_or_default().to_string(),
                    ));
                }
            }
        }
    }
    out
}

fn self_review(s: &Server, version: &str) -> cairn_tests::Response {
    let body = json!({"apiVersion": format!("authentication.k8s.io/{version}"), "kind": "SelfSubjectReview"});
    s.post(&format!("{AUTHN}/{version}/selfsubjectreviews"), &body)
}

#[test]
fn alpha_and_beta_built_in_versions_are_off_by_default() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    assert_eq!(versions(&s, "authentication.k8s.io"), ["v1"]);
    for version in ["v1beta1", "v1alpha1"] {
        assert_eq!(s.get(&format!("{AUTHN}/{version}")).status, 404);
        assert_eq!(self_review(&s, version).status, 404);
    }
    assert_eq!(self_review(&s, "v1").status, 201);
}

#[test]
fn beta_and_alpha_versions_are_served_when_turned_on() {
    let s = start("authentication.k8s.io/v1beta1,authentication.k8s.io/v1alpha1=true");
    assert_eq!(
        versions(&s, "authentication.k8s.io"),
        ["v1", "v1beta1", "v1alpha1"]
    );
    let group = s.get(AUTHN).json();
    assert_eq!(group["preferredVersion"]["version"], "v1");
    for version in ["v1beta1", "v1alpha1"] {
        let list = s.get(&format!("{AUTHN}/{version}")).json();
        assert_eq!(list["resources"][0]["name"], "selfsubjectreviews");
        assert_eq!(list["resources"][0]["verbs"], json!(["create"]));
        let r = self_review(&s, version);
        assert_eq!(r.status, 201, "{}", r.text());
        let answer = r.json();
        assert_eq!(
            answer["apiVersion"],
            format!("authentication.k8s.io/{version}")
        );
        assert_eq!(answer["status"]["userInfo"]["username"], "system:admin");
        let v2 = s.get("/openapi/v2").json();
        assert!(
            v2["paths"]
                .get(format!("{AUTHN}/{version}/selfsubjectreviews"))
                .is_some()
        );
        let v3 = s.get("/openapi/v3").json();
        assert!(
            v3["paths"]
                .get(format!("apis/authentication.k8s.io/{version}"))
                .is_some()
        );
    }
    let beta_only = start("api/beta=true");
    assert_eq!(
        versions(&beta_only, "authentication.k8s.io"),
        ["v1", "v1beta1"]
    );
    let alpha_only = start("api/alpha=true");
    assert_eq!(
        versions(&alpha_only, "authentication.k8s.io"),
        ["v1", "v1alpha1"]
    );
    let all = start("api/all=true,authentication.k8s.io/v1beta1=false");
    assert_eq!(versions(&all, "authentication.k8s.io"), ["v1", "v1alpha1"]);
}

#[test]
fn turned_off_versions_and_resources_vanish_everywhere() {
    let s = start("events.k8s.io/v1=false,v1/configmaps=false");
    assert!(versions(&s, "events.k8s.io").is_empty());
    assert_eq!(s.get("/apis/events.k8s.io").status, 404);
    assert_eq!(s.get("/apis/events.k8s.io/v1").status, 404);
    assert_eq!(
        s.get("/apis/events.k8s.io/v1/namespaces/default/events")
            .status,
        404
    );
    let core = s.get("/api/v1").json();
    let names: Vec<&str> = core["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert!(!names.contains(&"configmaps"), "{names:?}");
    assert!(names.contains(&"secrets") && names.contains(&"events"));
    assert_eq!(s.get("/api/v1/namespaces/default/configmaps").status, 404);
    let r = s.post(
        "/api/v1/namespaces/default/configmaps",
        &json!({"metadata": {"name": "c"}}),
    );
    assert_eq!(r.status, 404);
    assert_eq!(s.get("/api/v1/namespaces/default/secrets").status, 200);

    let listed = aggregated_resources(&s);
    assert!(!listed.iter().any(|(g, ..)| g == "events.k8s.io"));
    assert!(
        !listed
            .iter()
            .any(|(g, _, r)| g.is_empty() && r == "configmaps")
    );
    assert!(
        listed
            .iter()
            .any(|(g, _, r)| g.is_empty() && r == "secrets")
    );

    let v2 = s.get("/openapi/v2").json();
    let paths: Vec<&String> = v2["paths"].as_object().expect("paths").keys().collect();
    assert!(!paths.iter().any(|p| p.starts_with("/apis/events.k8s.io/")));
    assert!(!paths.iter().any(|p| p.contains("/configmaps")));
    assert!(paths.iter().any(|p| p.contains("/secrets")));
    let v3 = s.get("/openapi/v3").json();
    assert!(v3["paths"].get("apis/events.k8s.io/v1").is_none());
    assert_eq!(s.get("/openapi/v3/apis/events.k8s.io/v1").status, 404);
    let core_v3 = s.get("/openapi/v3/api/v1").json();
    let core_paths = core_v3["paths"].as_object().expect("v3 paths");
    assert!(!core_paths.keys().any(|p| p.contains("/configmaps")));
}

#[test]
fn api_all_false_keeps_only_what_is_named() {
    let s = start("api/all=false,v1=true");
    assert!(
        s.get("/apis").json()["groups"]
            .as_array()
            .expect("groups")
            .is_empty()
    );
    assert_eq!(s.get("/apis/rbac.authorization.k8s.io/v1").status, 404);
    assert_eq!(s.get("/api/v1/namespaces").status, 200);
    let ga_off = start("api/ga=false,api/v1=true,events.k8s.io/v1/events=true");
    assert_eq!(versions(&ga_off, "events.k8s.io"), ["v1"]);
    assert!(versions(&ga_off, "coordination.k8s.io").is_empty());
    assert_eq!(ga_off.get("/api/v1/namespaces").status, 200);
    let legacy = start("api/legacy=false,/v1/secrets=false");
    assert_eq!(legacy.get("/api/v1/namespaces/default/secrets").status, 404);
    assert_eq!(legacy.get("/api/v1/namespaces/default/pods").status, 200);
}

#[test]
fn objects_stored_through_a_turned_off_version_are_served_through_another() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let v1 = "/apis/events.k8s.io/v1/namespaces/default/events";
    let mut before = Server::start_on(&data, &["--api-domain", "k8s.io"]);
    let event = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e1"},
        "regarding": {"kind": "Pod", "name": "p1", "namespace": "default"}, "note": "pulled",
        "reason": "Pulled", "type": "Normal", "action": "Pull",
        "reportingController": "example.com/kubelet", "reportingInstance": "node-1",
        "eventTime": "2026-01-01T00:00:00.000000Z"});
    let r = before.post(v1, &event);
    assert_eq!(r.status, 201, "{}", r.text());
    before.stop();
    let after = Server::start_on(
        &data,
        &[
            "--api-domain",
            "k8s.io",
            "--runtime-config",
            "events.k8s.io/v1=false",
        ],
    );
    assert_eq!(after.get(&format!("{v1}/e1")).status, 404);
    let core = after.get("/api/v1/namespaces/default/events/e1");
    assert_eq!(core.status, 200, "{}", core.text());
    let core = core.json();
    assert_eq!(core["apiVersion"], "v1");
    assert_eq!(core["message"], "pulled");
    assert_eq!(core["involvedObject"]["name"], "p1");
    assert_eq!(core["reportingComponent"], "example.com/kubelet");
    let list = after.get("/api/v1/namespaces/default/events").json();
    assert_eq!(list["items"].as_array().map(Vec::len), Some(1));
}

fn widget_crd() -> Value {
    let schema = json!({"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}});
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [
                {"name": "v1", "served": true, "storage": true, "schema": schema},
                {"name": "v1beta1", "served": true, "storage": false, "schema": schema},
                {"name": "v1alpha1", "served": true, "storage": false, "schema": schema}
            ]}
    })
}

#[test]
fn crd_versions_follow_the_crd_not_the_flag() {
    let s = start("api/alpha=false,api/beta=false");
    let r = s.post(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        &widget_crd(),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    wait_until("the widget versions to be served", || {
        versions(&s, "example.com").len() == 3
    });
    for version in ["v1", "v1beta1", "v1alpha1"] {
        let path = format!("/apis/example.com/{version}/namespaces/default/widgets");
        assert_eq!(s.get(&path).status, 200, "{path}");
    }
}

/// Runs the binary with `args`; it must refuse to start with one line on
/// stderr, write nothing, and exit non-zero. Returns the line.
fn refused(args: &[&str]) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let out = Command::new(binary())
        .arg("--data-dir")
        .arg(&data)
        .args(["--secure-port", "0", "--insecure-port", "0"])
        .args(["--api-domain", "k8s.io"])
        .args(args)
        .output()
        .expect("run cairn-apiserver");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(!out.status.success(), "started with {args:?}");
    assert_eq!(lines.len(), 1, "one line, got: {stderr}");
    assert!(!data.exists(), "nothing written");
    lines[0].to_owned()
}

#[test]
fn bad_keys_and_values_stop_the_start_with_kube_apiserver_messages() {
    let cases = [
        ("api/all=false", "invalid key with only api/all=false"),
        ("foo=true", "runtime-config invalid key foo"),
        ("widgets/v1=false", "unknown api groups widgets"),
        ("example.com/v1=true", "unknown api groups example.com"),
        (
            "events.k8s.io/v2=true",
            "group version events.k8s.io/v2 that has not been registered",
        ),
        ("api/beta=yes", "invalid value api/beta=yes"),
        (
            "events.k8s.io/v1=maybe",
            "invalid value of events.k8s.io/v1: maybe, err: strconv.ParseBool: parsing \"maybe\": invalid syntax",
        ),
        (
            "events.k8s.io/v1/Events=false",
            "group/version/resource and resource is always lowercase plural, not \"Events\"",
        ),
    ];
    for (flag, want) in cases {
        let line = refused(&["--runtime-config", flag]);
        assert!(
            line.contains("--runtime-config") && line.contains(want),
            "{flag}: {line}"
        );
    }
}

#[test]
fn kubectl_whoami_falls_back_to_a_turned_on_alpha_version() {
    if !cairn_tests::clients::kubectl_present() {
        return;
    }
    let s = start("authentication.k8s.io/v1=false,authentication.k8s.io/v1alpha1=true");
    assert_eq!(versions(&s, "authentication.k8s.io"), ["v1alpha1"]);
    let (ok, out) = cairn_tests::clients::kubectl(&s, &["auth", "whoami", "-o", "json"], None);
    assert!(ok, "{out}");
    let answer: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(answer["apiVersion"], "authentication.k8s.io/v1alpha1");
    assert_eq!(answer["status"]["userInfo"]["username"], "system:admin");
}
