//! core/v1 `Pod` as data: its schema, selectable fields and table columns.
//!
//! `spec` and `status` are modelled field by field where cairn or its
//! clients read them (containers, volumes, scheduling fields, phase,
//! conditions, IPs, container statuses); both nodes carry
//! `x-kubernetes-preserve-unknown-fields`, so fields not modelled here are
//! kept as sent rather than pruned. Containers themselves are fully
//! declared, so a misspelt container field is still reported.

use serde_json::Value;

use crate::api::kind::{Column, field_by_path};
use crate::api::schema::Schema;

use super::pod_spec::{pod_spec, resource_list};
use super::pod_table;

/// Field-selector fields Kubernetes supports for pods.
pub const FIELD_SELECTORS: &[&str] = &[
    "metadata.name",
    "metadata.namespace",
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
];

/// A selectable field's value: booleans read `false` when unset and the pod
/// IP is the first of `podIPs`, as Kubernetes indexes them.
#[must_use]
pub fn field_value(pod: &Value, field: &str) -> Option<String> {
    match field {
        "spec.hostNetwork" => {
            let on = pod.pointer("/spec/hostNetwork").and_then(Value::as_bool) == Some(true);
            Some(on.to_string())
        }
        "status.podIP" => {
            let first = pod
                .pointer("/status/podIPs/0/ip")
                .or_else(|| pod.pointer("/status/podIP"));
            Some(first.and_then(Value::as_str).unwrap_or_default().to_owned())
        }
        _ => field_by_path(pod, field),
    }
}

fn condition() -> Schema {
    Schema::object([
        ("type", Schema::string()),
        ("observedGeneration", Schema::integer_i64()),
        ("status", Schema::string()),
        ("lastProbeTime", Schema::time().nullable()),
        ("lastTransitionTime", Schema::time().nullable()),
        ("reason", Schema::string()),
        ("message", Schema::string()),
    ])
    .required(["type", "status"])
    .proto_fields([
        ("type", 1),
        ("status", 2),
        ("lastProbeTime", 3),
        ("lastTransitionTime", 4),
        ("reason", 5),
        ("message", 6),
        ("observedGeneration", 7),
    ])
}

fn ip_list() -> Schema {
    // PodIP and HostIP: {ip=1}.
    let ip = Schema::object([("ip", Schema::string())])
        .required(["ip"])
        .proto_fields([("ip", 1)]);
    Schema::array(ip).map_list(["ip"]).merge_by("ip")
}

/// `corev1.ContainerStatus`; kubelets may send newer fields, which are kept.
fn container_status() -> Schema {
    Schema::object([
        ("name", Schema::string()),
        ("state", Schema::free_form_object()),
        ("lastState", Schema::free_form_object()),
        ("ready", Schema::boolean()),
        ("restartCount", Schema::integer_i32()),
        ("image", Schema::string()),
        ("imageID", Schema::string()),
        ("containerID", Schema::string()),
        ("started", Schema::boolean()),
        ("allocatedResources", resource_list()),
        ("resources", Schema::free_form_object()),
        (
            "volumeMounts",
            Schema::array(Schema::free_form_object())
                .map_list(["mountPath"])
                .merge_by("mountPath"),
        ),
        ("user", Schema::free_form_object()),
    ])
    .required(["name"])
    .preserve_unknown()
    // state (2), lastState (3), resources (11), volumeMounts (12) and user
    // (13) are messages this schema leaves free-form: unnumbered.
    .proto_fields([
        ("name", 1),
        ("ready", 4),
        ("restartCount", 5),
        ("image", 6),
        ("imageID", 7),
        ("containerID", 8),
        ("started", 9),
        ("allocatedResources", 10),
    ])
}

fn pod_status() -> Schema {
    Schema::object([
        ("observedGeneration", Schema::integer_i64()),
        (
            "phase",
            Schema::string().one_of(["Pending", "Running", "Succeeded", "Failed", "Unknown"]),
        ),
        (
            "conditions",
            Schema::array(condition())
                .map_list(["type"])
                .merge_by("type"),
        ),
        ("message", Schema::string()),
        ("reason", Schema::string()),
        ("nominatedNodeName", Schema::string()),
        ("hostIP", Schema::string()),
        ("hostIPs", ip_list().atomic_list()),
        ("podIP", Schema::string()),
        ("podIPs", ip_list()),
        ("startTime", Schema::time()),
        (
            "initContainerStatuses",
            Schema::array(container_status()).atomic_list(),
        ),
        (
            "containerStatuses",
            Schema::array(container_status()).atomic_list(),
        ),
        (
            "ephemeralContainerStatuses",
            Schema::array(container_status()).atomic_list(),
        ),
        (
            "qosClass",
            Schema::string().one_of(["Guaranteed", "Burstable", "BestEffort"]),
        ),
        ("resize", Schema::string()),
    ])
    .preserve_unknown()
    .proto_fields([
        ("phase", 1),
        ("conditions", 2),
        ("message", 3),
        ("reason", 4),
        ("hostIP", 5),
        ("podIP", 6),
        ("startTime", 7),
        ("containerStatuses", 8),
        ("qosClass", 9),
        ("initContainerStatuses", 10),
        ("nominatedNodeName", 11),
        ("podIPs", 12),
        ("ephemeralContainerStatuses", 13),
        ("resize", 14),
        ("hostIPs", 16),
        ("observedGeneration", 17),
    ])
    .describe("Most recently observed status of the pod.")
}

/// The schema of a core/v1 Pod.
#[must_use]
pub fn schema() -> Schema {
    Schema::resource([("spec", pod_spec()), ("status", pod_status())])
        .proto_fields([("metadata", 1), ("spec", 2), ("status", 3)])
        .describe("Pod is a collection of containers that can run on a host.")
}

/// `kubectl get pods` columns, as Kubernetes' pod printer has them.
#[must_use]
pub fn columns() -> Vec<Column> {
    vec![
        Column::name(),
        Column::computed(
            "Ready",
            "string",
            0,
            pod_table::ready,
            "The aggregate readiness state of this pod for accepting traffic.",
        ),
        Column::computed(
            "Status",
            "string",
            0,
            pod_table::status,
            "The aggregate status of the containers in this pod.",
        ),
        Column::computed(
            "Restarts",
            "string",
            0,
            pod_table::restarts,
            "The number of times the containers in this pod have been restarted.",
        ),
        Column::age(),
        Column::computed(
            "IP",
            "string",
            1,
            pod_table::ip,
            "IP address allocated to the pod. Routable at least within the cluster.",
        ),
        Column::computed(
            "Node",
            "string",
            1,
            pod_table::node,
            "Name of the node the pod is scheduled on.",
        ),
        Column::computed(
            "Nominated Node",
            "string",
            1,
            pod_table::nominated_node,
            "Node the scheduler nominated for this pod.",
        ),
        Column::computed(
            "Readiness Gates",
            "string",
            1,
            pod_table::readiness_gates,
            "Pod readiness gates that are true, of all of them.",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::api::schema::{prune, unknown_fields};

    fn errors(obj: &Value) -> Vec<String> {
        crate::api::kinds::schema_errors(&schema(), obj)
    }

    /// `kubectl run web --image=nginx:1.27 --port=80 --env=MODE=fast -o json`,
    /// plus the fields a scheduled, running pod has.
    fn running_pod() -> Value {
        json!({
            "kind": "Pod", "apiVersion": "v1",
            "metadata": {"name": "web", "namespace": "default", "labels": {"run": "web"}},
            "spec": {
                "volumes": [{"name": "cfg", "configMap": {"name": "web-cfg", "defaultMode": 420}}],
                "initContainers": [{"name": "setup", "image": "busybox", "command": ["sh", "-c", "true"]}],
                "containers": [{
                    "name": "web", "image": "nginx:1.27",
                    "ports": [{"containerPort": 80, "protocol": "TCP"}],
                    "env": [{"name": "MODE", "value": "fast"},
                            {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
                    "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"cpu": 1}},
                    "volumeMounts": [{"name": "cfg", "mountPath": "/etc/web", "readOnly": true}],
                    "readinessProbe": {"httpGet": {"path": "/", "port": 80}},
                    "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
                    "imagePullPolicy": "IfNotPresent"
                }],
                "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
                "nodeSelector": {"disktype": "ssd"}, "serviceAccountName": "default", "nodeName": "n1",
                "securityContext": {}, "schedulerName": "default-scheduler",
                "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
                "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}},
                "priority": 0, "enableServiceLinks": true, "preemptionPolicy": "PreemptLowerPriority"
            },
            "status": {
                "phase": "Running",
                "conditions": [{"type": "Ready", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-05-01T10:00:00Z"}],
                "hostIP": "10.0.0.5", "hostIPs": [{"ip": "10.0.0.5"}],
                "podIP": "10.244.1.7", "podIPs": [{"ip": "10.244.1.7"}],
                "startTime": "2024-05-01T09:59:58Z",
                "containerStatuses": [{
                    "name": "web", "state": {"running": {"startedAt": "2024-05-01T10:00:00Z"}}, "lastState": {},
                    "ready": true, "restartCount": 0, "image": "nginx:1.27", "imageID": "docker.io/library/nginx@sha256:0",
                    "containerID": "containerd://abc", "started": true
                }],
                "qosClass": "Burstable"
            }
        })
    }

    #[test]
    fn selectable_fields_read_as_kubernetes_indexes_them() {
        let pod = running_pod();
        assert_eq!(field_value(&pod, "spec.nodeName").as_deref(), Some("n1"));
        assert_eq!(
            field_value(&pod, "spec.hostNetwork").as_deref(),
            Some("false")
        );
        assert_eq!(
            field_value(&pod, "status.podIP").as_deref(),
            Some("10.244.1.7")
        );
        assert_eq!(
            field_value(&pod, "status.phase").as_deref(),
            Some("Running")
        );
        assert_eq!(
            field_value(&pod, "status.nominatedNodeName").as_deref(),
            Some("")
        );
        let host = json!({"spec": {"hostNetwork": true}});
        assert_eq!(
            field_value(&host, "spec.hostNetwork").as_deref(),
            Some("true")
        );
    }

    #[test]
    fn a_realistic_pod_is_valid_and_fully_known() {
        assert_eq!(errors(&running_pod()), Vec::<String>::new());
        assert_eq!(
            unknown_fields(&schema(), &running_pod()),
            Vec::<String>::new()
        );
    }

    #[test]
    fn containers_and_their_names_are_required() {
        let pod = json!({"metadata": {"name": "p"}, "spec": {"containers": [{"image": "nginx", "ports": [{"protocol": "TCP"}]}]}});
        assert_eq!(
            errors(&pod),
            [
                "spec.containers[0].name: Required value",
                "spec.containers[0].ports[0].containerPort: Required value",
            ]
        );
        assert_eq!(
            errors(&json!({"metadata": {}, "spec": {}})),
            ["spec.containers: Required value"]
        );
    }

    #[test]
    fn wrong_types_and_values_are_named_by_path() {
        let mut pod = running_pod();
        pod["spec"]["containers"][0]["ports"][0]["containerPort"] = json!("80");
        pod["spec"]["terminationGracePeriodSeconds"] = json!(1.5);
        pod["spec"]["restartPolicy"] = json!("Sometimes");
        pod["spec"]["nodeSelector"] = json!({"disktype": true});
        pod["status"]["containerStatuses"][0]["ready"] = json!("yes");
        assert_eq!(
            errors(&pod),
            [
                "spec.containers[0].ports[0].containerPort: Invalid value: \"string\": spec.containers[0].ports[0].containerPort in body must be of type integer: \"string\"",
                "spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\"",
                "spec.terminationGracePeriodSeconds: Invalid value: \"number\": spec.terminationGracePeriodSeconds in body must be of type integer: \"number\"",
                "spec.nodeSelector[disktype]: Invalid value: \"boolean\": spec.nodeSelector[disktype] in body must be of type string: \"boolean\"",
                "status.containerStatuses[0].ready: Invalid value: \"string\": status.containerStatuses[0].ready in body must be of type boolean: \"string\"",
            ]
        );
    }

    #[test]
    fn unmodelled_spec_and_status_fields_are_kept_but_container_typos_are_not() {
        let mut pod = running_pod();
        pod["spec"]["someFutureField"] = json!({"x": 1});
        pod["status"]["someFutureStatus"] = json!(true);
        pod["spec"]["containers"][0]["commands"] = json!(["sh"]);
        pod["bogus"] = json!(1);
        assert_eq!(
            unknown_fields(&schema(), &pod),
            ["spec.containers[0].commands", "bogus"]
        );
        prune(&schema(), &mut pod);
        assert_eq!(pod["spec"]["someFutureField"], json!({"x": 1}));
        assert_eq!(pod["status"]["someFutureStatus"], json!(true));
        assert!(pod["spec"]["containers"][0].get("commands").is_none());
    }
}
