//! ResourceQuota on the real binary: the controller publishes a new
//! quota's hard limits and usage, admission counts each create in its own
//! commit and refuses what goes past a limit in kube's words (also to
//! kubectl), concurrent creates never overshoot, deletions and finished
//! pods give usage back, scopes select pods, and the plugin's
//! `limitedResources` are enforced and checked at start.

use std::sync::Arc;

use cairn_tests::{Server, kubectl, kubectl_present, start_refused, wait_until};
use serde_json::{Value, json};

const QUOTAS: &str = "/api/v1/namespaces/default/resourcequotas";
const PODS: &str = "/api/v1/namespaces/default/pods";

fn quota(name: &str, spec: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name}, "spec": spec})
}

fn pod(name: &str, cpu: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"automountServiceAccountToken": false, "containers": [
            {"name": "app", "image": "busybox",
             "resources": {"requests": {"cpu": cpu}, "limits": {"cpu": cpu}}}]}})
}

fn status_of(s: &Server, name: &str) -> Value {
    let r = s.get(&format!("{QUOTAS}/{name}"));
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["status"].clone()
}

/// Waits for `name`'s `status.used` to be `used`.
fn wait_used(s: &Server, name: &str, used: &Value) {
    wait_until(&format!("quota {name} to show {used}"), || {
        status_of(s, name)["used"] == *used
    });
}

#[test]
fn quotas_publish_usage_refuse_past_limits_and_give_back() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let r = s.post(
        QUOTAS,
        &quota(
            "compute",
            json!({"hard": {"pods": "2", "requests.cpu": "1"}}),
        ),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    wait_used(&s, "compute", &json!({"pods": "0", "requests.cpu": "0"}));
    assert_eq!(
        status_of(&s, "compute")["hard"],
        json!({"pods": "2", "requests.cpu": "1"})
    );

    for name in ["a", "b"] {
        let r = s.post(PODS, &pod(name, "300m"));
        assert_eq!(r.status, 201, "{}", r.text());
    }
    // Counted in the create's own commit: no wait.
    assert_eq!(
        status_of(&s, "compute")["used"],
        json!({"pods": "2", "requests.cpu": "600m"})
    );
    let r = s.post(PODS, &pod("c", "300m"));
    assert_eq!(r.status, 403, "{}", r.text());
    let refused = r.json();
    assert_eq!(refused["reason"], "Forbidden");
    assert_eq!(
        refused["message"],
        "pods \"c\" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2"
    );

    // A deleted pod gives its share back (the controller counts again).
    let r = s.delete(&format!("{PODS}/a?gracePeriodSeconds=0"));
    assert!(r.status == 200 || r.status == 202, "{}", r.text());
    wait_used(&s, "compute", &json!({"pods": "1", "requests.cpu": "300m"}));
    let r = s.post(PODS, &pod("c", "300m"));
    assert_eq!(r.status, 201, "{}", r.text());

    // So does a pod that finished.
    let mut finished = s.get(&format!("{PODS}/b")).json();
    finished["status"]["phase"] = json!("Succeeded");
    let r = s.put(&format!("{PODS}/b/status"), &finished);
    assert_eq!(r.status, 200, "{}", r.text());
    wait_used(&s, "compute", &json!({"pods": "1", "requests.cpu": "300m"}));

    // Raising a limit republishes it.
    let mut raised = s.get(&format!("{QUOTAS}/compute")).json();
    raised["spec"]["hard"]["pods"] = json!("5");
    let r = s.put(&format!("{QUOTAS}/compute"), &raised);
    assert_eq!(r.status, 200, "{}", r.text());
    wait_until("the raised limit to be published", || {
        status_of(&s, "compute")["hard"]["pods"] == "5"
    });

    // With cpu under quota, every container must state it.
    let bare = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bare"},
        "spec": {"automountServiceAccountToken": false,
                 "containers": [{"name": "app", "image": "busybox"}]}});
    let r = s.post(PODS, &bare);
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(
        r.json()["message"],
        "pods \"bare\" is forbidden: failed quota: compute: must specify requests.cpu for: app"
    );
}

#[test]
fn concurrent_creates_never_overshoot_a_quota() {
    let s = Arc::new(Server::start(&["--api-domain", "k8s.io"]));
    let r = s.post(
        QUOTAS,
        &quota("objects", json!({"hard": {"count/secrets": "5"}})),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    wait_used(&s, "objects", &json!({"count/secrets": "0"}));
    let workers: Vec<_> = (0..16)
        .map(|i| {
            let s = Arc::clone(&s);
            std::thread::spawn(move || {
                let secret = json!({"apiVersion": "v1", "kind": "Secret",
                    "metadata": {"name": format!("s{i}")}, "stringData": {"k": "v"}});
                s.post("/api/v1/namespaces/default/secrets", &secret).status
            })
        })
        .collect();
    let codes: Vec<u16> = workers.into_iter().map(|w| w.join().unwrap()).collect();
    assert_eq!(codes.iter().filter(|c| **c == 201).count(), 5, "{codes:?}");
    assert_eq!(codes.iter().filter(|c| **c == 403).count(), 11, "{codes:?}");
    assert_eq!(
        status_of(&s, "objects")["used"],
        json!({"count/secrets": "5"})
    );
}

#[test]
fn scopes_select_pods_and_kubectl_sees_refusals() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let r = s.post(
        QUOTAS,
        &quota(
            "best-effort",
            json!({"hard": {"pods": "1"}, "scopes": ["BestEffort"]}),
        ),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    wait_used(&s, "best-effort", &json!({"pods": "0"}));
    let plain = |name: &str| {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"automountServiceAccountToken": false,
                     "containers": [{"name": "app", "image": "busybox"}]}})
    };
    assert_eq!(s.post(PODS, &plain("p1")).status, 201);
    // A pod with requests is not best-effort: outside this quota.
    assert_eq!(s.post(PODS, &pod("sized", "100m")).status, 201);
    assert_eq!(status_of(&s, "best-effort")["used"], json!({"pods": "1"}));
    if !kubectl_present() {
        return;
    }
    let manifest = plain("p2").to_string();
    let (ok, out) = kubectl(&s, &["create", "-f", "-"], Some(&manifest));
    assert!(!ok, "{out}");
    assert!(
        out.contains("pods \"p2\" is forbidden: exceeded quota: best-effort, requested: pods=1, used: pods=1, limited: pods=1"),
        "{out}"
    );
    let (ok, out) = kubectl(&s, &["describe", "quota", "best-effort"], None);
    assert!(ok, "{out}");
    assert!(
        out.contains("Scopes:") && out.contains("BestEffort"),
        "{out}"
    );
}

const LIMITED: &str = "apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ResourceQuota
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: ResourceQuotaConfiguration
    limitedResources:
    - resource: pods
      matchScopes:
      - scopeName: PriorityClass
        operator: In
        values: [\"critical\"]
";

#[test]
fn limited_resources_need_a_covering_quota() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("admission.yaml");
    std::fs::write(&config, LIMITED).expect("write");
    let config = config.to_string_lossy().into_owned();
    let s = Server::start(&[
        "--api-domain",
        "k8s.io",
        "--admission-control-config-file",
        &config,
    ]);
    let mut critical = pod("critical", "100m");
    critical["spec"]["priorityClassName"] = json!("critical");
    let r = s.post(PODS, &critical);
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(
        r.json()["message"],
        "pods \"critical\" is forbidden: insufficient quota to match these scopes: [{PriorityClass In [critical]}]"
    );
    assert_eq!(s.post(PODS, &pod("ordinary", "100m")).status, 201);
    let r = s.post(
        QUOTAS,
        &quota(
            "critical",
            json!({"hard": {"pods": "10"}, "scopeSelector": {"matchExpressions": [
                {"scopeName": "PriorityClass", "operator": "In", "values": ["critical"]}]}}),
        ),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let r = s.post(PODS, &critical);
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(status_of(&s, "critical")["used"], json!({"pods": "1"}));
}

#[test]
fn a_bad_resource_quota_configuration_stops_the_start() {
    let line = start_refused(
        "--admission-control-config-file",
        &LIMITED.replace("PriorityClass", "Forever"),
        &[],
    );
    assert!(
        line.starts_with("error: failed to initialize admission: couldn't init admission plugin \"ResourceQuota\": limitedResources[0].matchScopes[0].scopeName: Unsupported value: \"Forever\""),
        "{line}"
    );
}
