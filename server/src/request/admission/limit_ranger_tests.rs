//! LimitRanger's defaults and bounds, in kube's words.

use serde_json::json;

use super::*;

fn map(v: Value) -> Map<String, Value> {
    v.as_object().cloned().expect("an object")
}

#[test]
fn missing_requests_and_limits_are_set_and_noted() {
    let mut pod = json!({"spec": {
        "initContainers": [{"name": "init"}],
        "containers": [{"name": "app", "resources": {"requests": {"cpu": "50m"}}}]
    }});
    let notes = set_defaults(
        &mut pod,
        &map(json!({"cpu": "100m", "memory": "64Mi"})),
        &map(json!({"cpu": "500m", "memory": "128Mi"})),
    );
    assert_eq!(
        notes,
        [
            "cpu, memory request for init container init",
            "cpu, memory limit for init container init",
            "memory request for container app",
            "cpu, memory limit for container app",
        ]
    );
    assert_eq!(
        pod["spec"]["containers"][0]["resources"],
        json!({"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"cpu": "500m", "memory": "128Mi"}})
    );
    let mut plain = json!({"spec": {"containers": [{"name": "c"}]}});
    assert!(set_defaults(&mut plain, &Map::new(), &Map::new()).is_empty());
    assert!(
        plain["spec"]["containers"][0].get("resources").is_none(),
        "{plain}"
    );
}

fn errors_of(item: Value, per: &str, requests: Value, limits: Value, claim: bool) -> Vec<String> {
    let mut errors = Vec::new();
    bounds(
        &item,
        per,
        &amounts(Some(&requests)),
        &amounts(Some(&limits)),
        claim,
        &mut errors,
    );
    errors
}

#[test]
fn bounds_speak_kubes_words() {
    let item = json!({"type": "Container", "min": {"cpu": "100m"}, "max": {"cpu": "1", "memory": "1Gi"},
        "maxLimitRequestRatio": {"cpu": "2"}});
    assert_eq!(
        errors_of(
            item.clone(),
            "Container",
            json!({"cpu": "50m"}),
            json!({"cpu": "2000m", "memory": "512Mi"}),
            false
        ),
        [
            "minimum cpu usage per Container is 100m, but request is 50m",
            "maximum cpu usage per Container is 1, but limit is 2",
            "cpu max limit to request ratio per Container is 2, but provided ratio is 40.000000",
        ]
    );
    assert_eq!(
        errors_of(
            item,
            "Container",
            json!({"cpu": "500m"}),
            json!({"cpu": "1"}),
            false
        ),
        ["maximum memory usage per Container is 1Gi.  No limit is specified"]
    );
    let claims = json!({"type": "PersistentVolumeClaim", "max": {"storage": "1Gi"}, "min": {"storage": "100Mi"}});
    assert_eq!(
        errors_of(
            claims,
            "PersistentVolumeClaim",
            json!({"storage": "2Gi"}),
            json!({}),
            true
        ),
        ["maximum storage usage per PersistentVolumeClaim is 1Gi, but request is 2Gi"]
    );
}

#[test]
fn a_pod_totals_its_containers_and_the_largest_init_container() {
    let pod = json!({"spec": {
        "containers": [{"resources": {"requests": {"cpu": "250m"}}}, {"resources": {"requests": {"cpu": "250m", "memory": "1Gi"}}}],
        "initContainers": [{"resources": {"requests": {"cpu": "2"}}}],
        "overhead": {"memory": "512Mi"}
    }});
    let (requests, limits) = pod_totals(&pod);
    assert_eq!(requests["cpu"].1, "2");
    assert_eq!(requests["memory"].1, "1536Mi");
    assert!(limits.is_empty());
}
