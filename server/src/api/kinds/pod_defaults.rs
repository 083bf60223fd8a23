//! The defaults Kubernetes gives a pod's spec when it is decoded, applied on
//! every create and update so that a client omitting them changes nothing.

use serde_json::{Map, Value, json};

use super::checks::{default_field, object_field};

/// `Always` for `:latest` or untagged images (there is nothing stable to
/// cache), `IfNotPresent` otherwise.
#[must_use]
pub fn image_pull_policy(image: &str) -> &'static str {
    let (name, digest) = image
        .split_once('@')
        .map_or((image, None), |(n, d)| (n, Some(d)));
    let last_segment = name.rsplit('/').next().unwrap_or(name);
    let tag = last_segment.split_once(':').map(|(_, t)| t);
    match (tag, digest) {
        (Some("latest"), _) | (None, None) => "Always",
        _ => "IfNotPresent",
    }
}

fn default_container(container: &mut Map<String, Value>) {
    default_field(
        container,
        "terminationMessagePath",
        json!("/dev/termination-log"),
    );
    default_field(container, "terminationMessagePolicy", json!("File"));
    let image = container
        .get("image")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    default_field(
        container,
        "imagePullPolicy",
        json!(image_pull_policy(&image)),
    );
    if let Some(ports) = container.get_mut("ports").and_then(Value::as_array_mut) {
        for port in ports.iter_mut().filter_map(Value::as_object_mut) {
            default_field(port, "protocol", json!("TCP"));
        }
    }
    // A limit without a request requests what it limits.
    if let Some(resources) = container
        .get_mut("resources")
        .and_then(Value::as_object_mut)
        && let Some(limits) = resources.get("limits").and_then(Value::as_object).cloned()
        && !limits.is_empty()
    {
        let requests = resources.entry("requests").or_insert_with(|| json!({}));
        if !requests.is_object() {
            *requests = json!({});
        }
        let requests = requests.as_object_mut().expect("just made an object");
        for (name, limit) in limits {
            requests.entry(name).or_insert(limit);
        }
    }
}

/// Fills in the spec defaults of a pod.
pub fn apply(pod: &mut Value) {
    let spec = object_field(pod, "spec");
    default_field(spec, "restartPolicy", json!("Always"));
    default_field(spec, "terminationGracePeriodSeconds", json!(30));
    default_field(spec, "dnsPolicy", json!("ClusterFirst"));
    default_field(spec, "securityContext", json!({}));
    default_field(spec, "schedulerName", json!("default-scheduler"));
    default_field(spec, "enableServiceLinks", json!(true));
    for list in ["containers", "initContainers"] {
        if let Some(containers) = spec.get_mut(list).and_then(Value::as_array_mut) {
            for container in containers.iter_mut().filter_map(Value::as_object_mut) {
                default_container(container);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pull_policy_follows_the_tag() {
        assert_eq!(image_pull_policy("nginx"), "Always");
        assert_eq!(image_pull_policy("nginx:latest"), "Always");
        assert_eq!(image_pull_policy("nginx:1.27"), "IfNotPresent");
        assert_eq!(image_pull_policy("localhost:5000/app"), "Always");
        assert_eq!(image_pull_policy("localhost:5000/app:v2"), "IfNotPresent");
        assert_eq!(image_pull_policy("app@sha256:abc"), "IfNotPresent");
    }

    #[test]
    fn a_bare_pod_gets_kubernetes_defaults() {
        let mut pod = json!({"spec": {"containers": [{
            "name": "a", "image": "nginx:1.27",
            "ports": [{"containerPort": 80}],
            "resources": {"limits": {"cpu": "1"}, "requests": {"memory": "1Gi"}}
        }]}});
        apply(&mut pod);
        assert_eq!(
            pod,
            json!({"spec": {
                "containers": [{
                    "name": "a", "image": "nginx:1.27",
                    "ports": [{"containerPort": 80, "protocol": "TCP"}],
                    "resources": {"limits": {"cpu": "1"}, "requests": {"memory": "1Gi", "cpu": "1"}},
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File",
                    "imagePullPolicy": "IfNotPresent"
                }],
                "restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
                "dnsPolicy": "ClusterFirst", "securityContext": {},
                "schedulerName": "default-scheduler", "enableServiceLinks": true
            }})
        );
    }

    #[test]
    fn values_a_client_set_are_kept() {
        let mut pod = json!({"spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 5,
            "dnsPolicy": "Default", "schedulerName": "mine", "containers": [{"name": "a", "imagePullPolicy": "Never"}]}});
        apply(&mut pod);
        assert_eq!(pod["spec"]["restartPolicy"], "Never");
        assert_eq!(pod["spec"]["terminationGracePeriodSeconds"], 5);
        assert_eq!(pod["spec"]["dnsPolicy"], "Default");
        assert_eq!(pod["spec"]["schedulerName"], "mine");
        assert_eq!(pod["spec"]["containers"][0]["imagePullPolicy"], "Never");
    }
}
