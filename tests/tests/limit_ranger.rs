//! LimitRanges and the LimitRanger admission plugin on the real binary:
//! a LimitRange is defaulted and validated as kube does, a pod's
//! containers get the defaults they lack (noted in an annotation), and
//! containers, pods and claims beyond the bounds are refused in kube's
//! words; with the plugin disabled nothing is changed or refused.

use cairn_tests::Server;
use serde_json::{Value, json};

const RANGES: &str = "/api/v1/namespaces/default/limitranges";
const PODS: &str = "/api/v1/namespaces/default/pods";

fn limit_range(name: &str, limits: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": name}, "spec": {"limits": limits}})
}

fn pod(name: &str, containers: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"automountServiceAccountToken": false, "containers": containers}})
}

fn container(name: &str, resources: Value) -> Value {
    json!({"name": name, "image": "busybox", "resources": resources})
}

fn install(s: &Server) {
    let ranges = limit_range(
        "bounds",
        json!([
            {"type": "Container", "max": {"cpu": "1"}, "min": {"cpu": "50m"},
             "default": {"cpu": "500m", "memory": "256Mi"}, "defaultRequest": {"cpu": "100m"}},
            {"type": "Pod", "max": {"cpu": "1500m"}},
            {"type": "PersistentVolumeClaim", "max": {"storage": "1Gi"}}
        ]),
    );
    let r = s.post(RANGES, &ranges);
    assert_eq!(r.status, 201, "{}", r.text());
    let stored = r.json();
    assert_eq!(
        stored["spec"]["limits"][0]["defaultRequest"],
        json!({"cpu": "100m", "memory": "256Mi"}),
        "defaultRequest takes default's memory: {stored}"
    );
}

#[test]
fn containers_get_defaults_and_bounds_are_enforced() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    install(&s);

    let r = s.post(
        PODS,
        &pod("plain", json!([{"name": "app", "image": "busybox"}])),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let created = r.json();
    assert_eq!(
        created["spec"]["containers"][0]["resources"],
        json!({"requests": {"cpu": "100m", "memory": "256Mi"}, "limits": {"cpu": "500m", "memory": "256Mi"}})
    );
    assert_eq!(
        created["metadata"]["annotations"]["kubernetes.io/limit-ranger"],
        "LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app"
    );

    let r = s.post(
        PODS,
        &pod(
            "big",
            json!([container("app", json!({"limits": {"cpu": "2"}}))]),
        ),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(
        r.json()["message"],
        "pods \"big\" is forbidden: [maximum cpu usage per Container is 1, but limit is 2, maximum cpu usage per Pod is 1500m, but limit is 2]"
    );
    let r = s.post(
        PODS,
        &pod(
            "tiny",
            json!([container("app", json!({"requests": {"cpu": "10m"}}))]),
        ),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(
        r.json()["message"],
        "pods \"tiny\" is forbidden: minimum cpu usage per Container is 50m, but request is 10m"
    );
    let two = json!([
        container("a", json!({"limits": {"cpu": "800m"}})),
        container("b", json!({"limits": {"cpu": "800m"}}))
    ]);
    let r = s.post(PODS, &pod("pair", two));
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(
        r.json()["message"],
        "pods \"pair\" is forbidden: maximum cpu usage per Pod is 1500m, but limit is 1600m"
    );

    let claim = |name: &str, size: &str| {
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}}})
    };
    let claims = "/api/v1/namespaces/default/persistentvolumeclaims";
    let r = s.post(claims, &claim("large", "2Gi"));
    assert_eq!(r.status, 403, "{}", r.text());
    assert_eq!(
        r.json()["message"],
        "persistentvolumeclaims \"large\" is forbidden: maximum storage usage per PersistentVolumeClaim is 1Gi, but request is 2Gi"
    );
    assert_eq!(s.post(claims, &claim("small", "512Mi")).status, 201);
}

#[test]
fn invalid_limit_ranges_are_refused_and_the_plugin_can_be_disabled() {
    let s = Server::start(&[
        "--api-domain",
        "k8s.io",
        "--disable-admission-plugins",
        "LimitRanger",
    ]);
    let bad = limit_range(
        "bad",
        json!([{"type": "Container", "min": {"cpu": "2"}, "max": {"cpu": "1"}},
               {"type": "Pod", "default": {"cpu": "1"}}]),
    );
    let r = s.post(RANGES, &bad);
    assert_eq!(r.status, 422, "{}", r.text());
    let message = r.json()["message"].as_str().unwrap_or_default().to_string();
    assert!(
        message.contains(
            "spec.limits[0].min[cpu]: Invalid value: \"2\": min value 2 is greater than max value 1"
        ) && message.contains(
            "spec.limits[1].default: Forbidden: may not be specified when `type` is 'Pod'"
        ),
        "{message}"
    );
    install(&s);
    let r = s.post(
        PODS,
        &pod(
            "free",
            json!([container("app", json!({"limits": {"cpu": "4"}}))]),
        ),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let created = r.json();
    assert!(
        created["metadata"].get("annotations").is_none(),
        "{created}"
    );
    assert!(
        created["spec"]["containers"][0]["resources"]["limits"]
            .get("memory")
            .is_none()
    );
}
