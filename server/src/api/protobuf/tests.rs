//! Tests of the protobuf encoding: which kinds offer it, round trips, the
//! shapes of int-or-string, doubles and pods, and refusals of what it cannot carry.

use serde_json::{Value, json};

use super::wire::{Field, Reader, put_bytes, put_int, put_nested};
use super::*;
use crate::api::kinds::{
    config_map, event, events_v1, lease, namespace, node, pod, rbac_binding, rbac_role, secret,
    service, service_account,
};

fn round_trip(schema: &Schema, obj: &Value) -> Value {
    let bytes = encode_object(schema, obj).expect("encodable");
    decode_object(schema, &bytes).expect("decodable")
}

#[test]
fn kinds_with_numbered_schemas_offer_protobuf() {
    for s in [
        namespace::schema(),
        config_map::schema(),
        secret::schema(),
        service_account::schema(),
        service::schema(),
        lease::schema(),
        event::schema(),
        events_v1::schema(),
        rbac_role::role_schema(),
        rbac_role::cluster_role_schema(),
        rbac_binding::role_binding_schema(),
        rbac_binding::cluster_role_binding_schema(),
        pod::schema(),
        node::schema(),
    ] {
        assert!(offered(&s), "{}", s.description);
    }
    assert!(!offered(&Schema::any()));
}

#[test]
fn bytes_are_protobufs_own() {
    // Namespace {metadata=1 {name=1 "a", labels=11 {"k": "v"}}, spec=2 {finalizers=1}}
    let ns = json!({"apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": "a", "labels": {"k": "v"}}, "spec": {"finalizers": ["x"]}});
    let message = encode_message(&namespace::schema(), &ns).expect("encodable");
    assert_eq!(
        message,
        [
            0x0a, 0x0b, 0x0a, 0x01, b'a', 0x5a, 0x06, 0x0a, 0x01, b'k', 0x12, 0x01, b'v', 0x12,
            0x03, 0x0a, 0x01, b'x'
        ]
    );
    let mut enveloped = Vec::new();
    envelope::wrap("v1", "Namespace", &message, &mut enveloped);
    assert_eq!(
        encode_object(&namespace::schema(), &ns).expect("ok"),
        enveloped
    );
}

#[test]
fn objects_round_trip_through_protobuf() {
    let cases = [
        (
            config_map::schema(),
            json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "c", "namespace": "ns", "uid": "u", "resourceVersion": "7",
                    "generation": 3, "creationTimestamp": "2024-05-01T10:00:00Z",
                    "annotations": {"a": "1", "empty": ""}, "finalizers": ["f1", "f2"],
                    "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "pu",
                        "controller": true, "blockOwnerDeletion": false}],
                    "managedFields": [{"manager": "kubectl", "operation": "Update", "apiVersion": "v1",
                        "time": "2024-05-01T10:00:00Z", "fieldsType": "FieldsV1",
                        "fieldsV1": {"f:data": {"f:a": {}}}}]},
                "data": {"a": "b", "": "", "x": ""}, "binaryData": {"bin": "AJ+Slg=="}, "immutable": false}),
        ),
        (
            namespace::schema(),
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n",
                    "deletionTimestamp": "2024-05-01T10:00:01Z", "deletionGracePeriodSeconds": 0},
                "spec": {"finalizers": ["kubernetes"]},
                "status": {"phase": "Terminating", "conditions": [{"type": "T", "status": "True",
                    "lastTransitionTime": "2024-05-01T10:00:00Z", "reason": "R", "message": "M"}]}}),
        ),
        (
            lease::schema(),
            json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "l"},
                "spec": {"holderIdentity": "me", "leaseDurationSeconds": -15,
                    "acquireTime": "2024-05-01T10:00:00.000001Z", "renewTime": "2024-05-01T10:00:00.999999Z",
                    "leaseTransitions": 2147483647}}),
        ),
        (
            rbac_role::cluster_role_schema(),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "r"},
                "rules": [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}],
                "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"a": "b"},
                    "matchExpressions": [{"key": "k", "operator": "In", "values": ["v"]}]}]}}),
        ),
        (
            rbac_binding::role_binding_schema(),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "b"},
                "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "jane"}],
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"}}),
        ),
        (
            service_account::schema(),
            json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"},
                "secrets": [{"name": "s"}], "imagePullSecrets": [{"name": "p"}],
                "automountServiceAccountToken": false}),
        ),
    ];
    for (schema, obj) in cases {
        assert_eq!(round_trip(&schema, &obj), obj);
    }
}

#[test]
fn int_or_string_and_doubles_have_their_protobuf_shapes() {
    let schema = Schema::object([
        ("port", Schema::int_or_string()),
        ("ratio", Schema::number()),
    ])
    .proto_fields([("port", 1), ("ratio", 2)]);
    for obj in [json!({"port": 8080, "ratio": 0.5}), json!({"port": "http"})] {
        let bytes = encode_message(&schema, &obj).expect("encodable");
        assert_eq!(
            Value::Object(decode_message(&schema, &bytes).expect("ok")),
            obj
        );
    }
    // {type=1 string, strVal=3 "http"} inside field 1.
    let bytes = encode_message(&schema, &json!({"port": "http"})).expect("encodable");
    assert_eq!(
        bytes,
        [0x0a, 0x08, 0x08, 0x01, 0x1a, 0x04, b'h', b't', b't', b'p']
    );
}

#[test]
fn values_without_numbers_are_not_encoded_silently() {
    let schema = config_map::schema();
    for obj in [
        json!({"metadata": {"name": "c"}, "extra": 1}),
        json!({"metadata": {"name": "c", "clusterName": "x"}}),
        json!({"metadata": {"name": "c"}, "data": {"a": 5}}),
        json!({"metadata": {"name": "c"}, "binaryData": {"a": "not base64!"}}),
    ] {
        assert!(
            matches!(
                encode_message(&schema, &obj),
                Err(ApiError::NotAcceptable(_))
            ),
            "{obj}"
        );
    }
}

#[test]
fn encoding_failures_name_the_path() {
    let obj = json!({"metadata": {"name": "c", "ownerReferences": [{"uid": "u", "extra": 1}]},
        "data": {"a": 5}});
    let Err(ApiError::NotAcceptable(why)) = encode_message(&config_map::schema(), &obj) else {
        panic!("not encodable");
    };
    assert_eq!(
        why,
        [
            "protobuf cannot represent metadata.ownerReferences.extra: the field is not in the schema"
        ]
    );
    let Err(ApiError::NotAcceptable(why)) =
        encode_message(&config_map::schema(), &json!({"data": {"a": 5}}))
    else {
        panic!("not encodable");
    };
    assert_eq!(
        why,
        ["protobuf cannot represent data[a]: the value does not match its schema"]
    );
}

#[test]
fn decoding_reads_what_go_writes() {
    // Go writes unset strings, zero `omitempty` numbers (generation) and
    // the zero Time; unknown fields are skipped; repeated integers may come
    // packed.
    let mut meta = Vec::new();
    put_bytes(&mut meta, 1, b"n");
    put_bytes(&mut meta, 2, b"");
    put_int(&mut meta, 7, 0);
    put_nested::<()>(&mut meta, 8, |o| {
        put_int(o, 1, 0);
        put_int(o, 2, 0);
        Ok(())
    })
    .expect("ok");
    put_bytes(&mut meta, 99, b"future field");
    let mut ns = Vec::new();
    put_bytes(&mut ns, 1, &meta);
    let obj = decode_message(&namespace::schema(), &ns).expect("decodes");
    assert_eq!(Value::Object(obj), json!({"metadata": {"name": "n"}}));

    let schema = Schema::object([("ports", Schema::array(Schema::integer_i32()))])
        .proto_fields([("ports", 1)]);
    let mut packed = Vec::new();
    put_bytes(&mut packed, 1, &[0x50, 0xff, 0xff, 0xff, 0xff, 0x0f]);
    let obj = decode_message(&schema, &packed).expect("decodes");
    assert_eq!(Value::Object(obj), json!({"ports": [80, -1]}));
}

#[test]
fn malformed_messages_are_bad_requests() {
    let schema = namespace::schema();
    // metadata (a message) sent as a varint; a string that is not UTF-8;
    // a truncated field.
    let mut wrong_type = Vec::new();
    put_int(&mut wrong_type, 1, 5);
    let mut not_utf8 = Vec::new();
    put_nested::<()>(&mut not_utf8, 1, |o| {
        put_bytes(o, 1, &[0xff, 0xfe]);
        Ok(())
    })
    .expect("ok");
    for bytes in [wrong_type, not_utf8, vec![0x0a, 0x09, 0x0a]] {
        assert!(
            matches!(
                decode_message(&schema, &bytes),
                Err(ApiError::BadRequest(_))
            ),
            "{bytes:?}"
        );
    }
    let mut r = Reader::new(&[0x08, 0x01]);
    assert_eq!(r.next_field().expect("ok"), Some((1, Field::Varint(1))));
}

#[test]
fn partly_numbered_messages_refuse_what_they_cannot_place() {
    let schema = service::schema();
    let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
        "spec": {"ports": [{"name": "http", "port": 80, "targetPort": "web", "protocol": "TCP"}],
            "selector": {"app": "a"}, "type": "ClusterIP", "clusterIPs": ["10.0.0.1"]},
        "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}});
    assert_eq!(round_trip(&schema, &svc), svc);
    // Modelled but unnumbered (sessionAffinityConfig), or only preserved:
    // not encoded, and such field numbers in a body are refused, not skipped.
    for extra in [
        json!({"sessionAffinityConfig": {"clientIP": {}}}),
        json!({"future": 1}),
    ] {
        let mut with = svc.clone();
        with["spec"]
            .as_object_mut()
            .expect("spec")
            .extend(extra.as_object().expect("obj").clone());
        assert!(encode_message(&schema, &with).is_err(), "{with}");
    }
    let mut spec = Vec::new();
    put_bytes(&mut spec, 14, b"");
    let mut body = Vec::new();
    put_bytes(&mut body, 2, &spec);
    assert!(matches!(
        decode_message(&schema, &body),
        Err(ApiError::BadRequest(_))
    ));
}

/// A scheduled, running pod that uses only the fields with numbers, as the
/// API server returns it (a defaulted, empty `securityContext` included).
fn running_pod() -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default", "uid": "u-1", "labels": {"app": "web"}},
        "spec": {
            "initContainers": [{"name": "setup", "image": "busybox", "command": ["sh", "-c", "true"]}],
            "containers": [{
                "name": "web", "image": "nginx:1.27", "args": ["-g", "daemon off;"], "workingDir": "/srv",
                "ports": [{"name": "http", "containerPort": 80, "protocol": "TCP"},
                          {"containerPort": 53, "hostPort": 5353, "protocol": "UDP", "hostIP": "0.0.0.0"}],
                "env": [{"name": "MODE", "value": "fast"}, {"name": "EMPTY"}],
                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"cpu": "1500m", "nvidia.com/gpu": "1"}},
                "volumeMounts": [{"name": "cache", "mountPath": "/cache", "readOnly": true, "subPath": "web"}],
                "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}],
                "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
                "imagePullPolicy": "IfNotPresent", "stdin": true, "tty": true
            }],
            "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "activeDeadlineSeconds": 600,
            "dnsPolicy": "ClusterFirst", "nodeSelector": {"disktype": "ssd"},
            "serviceAccountName": "default", "serviceAccount": "default", "automountServiceAccountToken": false,
            "nodeName": "n1", "hostNetwork": true, "securityContext": {}, "imagePullSecrets": [{"name": "regcred"}],
            "hostname": "web-0", "subdomain": "web", "schedulerName": "default-scheduler",
            "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
            "priorityClassName": "high", "priority": 1000, "readinessGates": [{"conditionType": "example.com/ready"}],
            "enableServiceLinks": true, "preemptionPolicy": "PreemptLowerPriority",
            "overhead": {"cpu": "250m"}, "os": {"name": "linux"}, "schedulingGates": [{"name": "wait"}]
        },
        "status": {
            "phase": "Running", "observedGeneration": 2,
            "conditions": [
                {"type": "Ready", "status": "True", "lastTransitionTime": "2024-05-01T10:00:00Z"},
                {"type": "PodScheduled", "status": "True", "lastProbeTime": "2024-05-01T09:59:00Z",
                 "lastTransitionTime": "2024-05-01T09:59:00Z", "reason": "Scheduled", "message": "ok", "observedGeneration": 1}
            ],
            "hostIP": "10.0.0.5", "hostIPs": [{"ip": "10.0.0.5"}],
            "podIP": "10.244.1.7", "podIPs": [{"ip": "10.244.1.7"}, {"ip": "fd00::7"}],
            "startTime": "2024-05-01T09:59:58Z", "nominatedNodeName": "n2",
            "containerStatuses": [{
                "name": "web", "ready": true, "restartCount": 3, "image": "nginx:1.27",
                "imageID": "docker.io/library/nginx@sha256:0", "containerID": "containerd://abc", "started": true,
                "allocatedResources": {"cpu": "100m"}
            }],
            "qosClass": "Burstable"
        }
    })
}

#[test]
fn a_running_pod_round_trips_field_for_field() {
    let schema = pod::schema();
    let mut expected = running_pod();
    // An empty free-form object has no field to go to; nothing else is lost.
    expected["spec"]
        .as_object_mut()
        .expect("spec")
        .remove("securityContext");
    assert_eq!(round_trip(&schema, &running_pod()), expected);
}

#[test]
fn pod_messages_use_kubernetes_field_numbers() {
    let pod = json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c",
        "ports": [{"containerPort": 80}], "resources": {"limits": {"cpu": 2}}}]},
        "status": {"podIPs": [{"ip": "1.2.3.4"}]}});
    let message = encode_message(&pod::schema(), &pod).expect("encodable");
    // Quantity {string=1}: the number as written.
    let mut quantity = Vec::new();
    put_bytes(&mut quantity, 1, b"2");
    let mut entry = Vec::new();
    put_bytes(&mut entry, 1, b"cpu");
    put_bytes(&mut entry, 2, &quantity);
    let mut resources = Vec::new();
    put_bytes(&mut resources, 1, &entry);
    let mut port = Vec::new();
    put_int(&mut port, 3, 80);
    let mut container = Vec::new();
    put_bytes(&mut container, 1, b"c");
    put_bytes(&mut container, 6, &port);
    put_bytes(&mut container, 8, &resources);
    let mut spec = Vec::new();
    put_bytes(&mut spec, 2, &container);
    let mut ip = Vec::new();
    put_bytes(&mut ip, 1, b"1.2.3.4");
    let mut status = Vec::new();
    put_bytes(&mut status, 12, &ip);
    let mut meta = Vec::new();
    put_bytes(&mut meta, 1, b"p");
    let mut expected = Vec::new();
    put_bytes(&mut expected, 1, &meta);
    put_bytes(&mut expected, 2, &spec);
    put_bytes(&mut expected, 3, &status);
    assert_eq!(message, expected);
    let back = decode_message(&pod::schema(), &message).expect("decodable");
    assert_eq!(
        back["spec"]["containers"][0]["resources"]["limits"]["cpu"],
        "2"
    );
}

#[test]
fn a_reporting_node_round_trips_field_for_field() {
    let node = json!({"apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "worker-1", "labels": {"kubernetes.io/hostname": "worker-1"}},
    "spec": {"podCIDR": "10.244.1.0/24", "podCIDRs": ["10.244.1.0/24", "fd00:1::/64"],
             "providerID": "kind://docker/kind/worker-1", "unschedulable": true, "externalID": "e",
             "taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},
                        {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule", "timeAdded": "2024-05-01T10:00:00Z"}]},
    "status": {
        "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
        "allocatable": {"cpu": "7800m", "memory": "31Gi", "pods": "110"},
        "phase": "Running",
        "conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": "2024-05-01T10:00:00Z",
                        "lastTransitionTime": "2024-05-01T09:00:00Z", "reason": "KubeletReady", "message": "kubelet is posting ready status"},
                       {"type": "MemoryPressure", "status": "False"}],
        "addresses": [{"type": "InternalIP", "address": "172.18.0.3"}, {"type": "Hostname", "address": "worker-1"}],
        "nodeInfo": {"machineID": "m", "systemUUID": "s", "bootID": "b", "kernelVersion": "6.1.0",
                     "osImage": "Debian GNU/Linux 12", "containerRuntimeVersion": "containerd://1.7.13",
                     "kubeletVersion": "v1.32.0", "operatingSystem": "linux", "architecture": "amd64"},
        "volumesInUse": ["kubernetes.io/csi/x"]
    }});
    assert_eq!(round_trip(&node::schema(), &node), node);
}

#[test]
fn pods_and_nodes_with_free_form_values_are_not_encoded() {
    let mut probed = running_pod();
    probed["spec"]["containers"][0]["readinessProbe"] =
        json!({"httpGet": {"path": "/", "port": 80}});
    let mut secured = running_pod();
    secured["spec"]["securityContext"] = json!({"runAsUser": 1000});
    let mut with_volume = running_pod();
    with_volume["spec"]["volumes"] = json!([{"name": "cache", "emptyDir": {}}]);
    let mut from_field = running_pod();
    from_field["spec"]["containers"][0]["env"][0] =
        json!({"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}});
    let mut waiting = running_pod();
    waiting["status"]["containerStatuses"][0]["state"] = json!({"waiting": {"reason": "Pull"}});
    let mut bad_quantity = running_pod();
    bad_quantity["spec"]["overhead"]["cpu"] = json!(true);
    for pod in [
        probed,
        secured,
        with_volume,
        from_field,
        waiting,
        bad_quantity,
    ] {
        let Err(ApiError::NotAcceptable(why)) = encode_message(&pod::schema(), &pod) else {
            panic!("encoded: {pod}");
        };
        assert!(why[0].starts_with("protobuf cannot represent "), "{why:?}");
    }
    let node = json!({"metadata": {"name": "n"}, "status": {"daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}}}});
    assert!(encode_message(&node::schema(), &node).is_err());
    let node = json!({"metadata": {"name": "n"}, "status": {"daemonEndpoints": {}}});
    assert!(encode_message(&node::schema(), &node).is_ok());
}
