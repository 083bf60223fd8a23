//! A valid sample object of every kind the conformance suite exercises.

use serde_json::{Value, json};

/// A valid object of each served resource (`group/resource`, core group
/// without the slash), named `name`.
pub fn sample(gr: &str, name: &str) -> Option<Value> {
    let meta = json!({"name": name});
    Some(match gr {
        "namespaces" => json!({"metadata": meta}),
        "events" => {
            json!({"metadata": meta, "involvedObject": {"kind": "Pod", "name": "p", "namespace": "conf"}, "reason": "Started", "message": "m", "type": "Normal"})
        }
        "events.k8s.io/events" => {
            json!({"metadata": meta, "regarding": {"kind": "Pod", "name": "p"}, "reason": "Started", "note": "n", "type": "Normal",
            "action": "Start", "reportingController": "example.com/ctl", "reportingInstance": "ctl-1", "eventTime": "2026-01-01T00:00:00.000000Z"})
        }
        "configmaps" => json!({"metadata": meta, "data": {"a": "1"}}),
        "secrets" => json!({"metadata": meta, "stringData": {"a": "1"}}),
        "serviceaccounts" => json!({"metadata": meta}),
        "pods" => {
            json!({"metadata": meta, "spec": {"containers": [{"name": "c", "image": "busybox"}], "terminationGracePeriodSeconds": 0}})
        }
        "services" => {
            json!({"metadata": meta, "spec": {"ports": [{"port": 80}], "selector": {"app": "x"}}})
        }
        "nodes" => json!({"metadata": meta, "spec": {}}),
        "coordination.k8s.io/leases" => {
            json!({"metadata": meta, "spec": {"holderIdentity": "me", "leaseDurationSeconds": 15}})
        }
        "rbac.authorization.k8s.io/roles" => {
            json!({"metadata": meta, "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]})
        }
        "rbac.authorization.k8s.io/clusterroles" => {
            json!({"metadata": meta, "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]})
        }
        "rbac.authorization.k8s.io/rolebindings" => {
            json!({"metadata": meta, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
            "subjects": [{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}]})
        }
        "rbac.authorization.k8s.io/clusterrolebindings" => {
            json!({"metadata": meta, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "r"},
            "subjects": [{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}]})
        }
        "apiextensions.k8s.io/customresourcedefinitions" => {
            let plural = name.replace('.', "");
            json!({"metadata": {"name": format!("{plural}.conf.example.com")}, "spec": {"group": "conf.example.com", "scope": "Cluster",
                "names": {"plural": plural, "kind": "Thing"},
                "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object"}}}]}})
        }
        "flowcontrol.apiserver.k8s.io/flowschemas" => {
            json!({"metadata": meta, "spec": {"priorityLevelConfiguration": {"name": "global-default"},
                "rules": [{"subjects": [{"kind": "User", "user": {"name": "alice"}}],
                           "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/version"]}]}]}})
        }
        "flowcontrol.apiserver.k8s.io/prioritylevelconfigurations" => {
            json!({"metadata": meta, "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Reject"}}}})
        }
        "apps/deployments" | "apps/replicasets" | "apps/statefulsets" | "apps/daemonsets" => {
            json!({"metadata": meta, "spec": {"selector": {"matchLabels": {"app": "c"}},
                "template": {"metadata": {"labels": {"app": "c"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}})
        }
        "apps/controllerrevisions" => {
            json!({"metadata": meta, "revision": 1, "data": {"spec": {}}})
        }
        "batch/jobs" => {
            json!({"metadata": meta, "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}})
        }
        "batch/cronjobs" => {
            json!({"metadata": meta, "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template":
                {"spec": {"restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "busybox"}]}}}}}})
        }
        "networking.k8s.io/ingresses" => {
            json!({"metadata": meta, "spec": {"defaultBackend": {"service": {"name": "web", "port": {"number": 80}}}}})
        }
        "networking.k8s.io/ingressclasses" => {
            json!({"metadata": meta, "spec": {"controller": "example.com/ingress"}})
        }
        "networking.k8s.io/networkpolicies" => {
            json!({"metadata": meta, "spec": {"podSelector": {}}})
        }
        "policy/poddisruptionbudgets" => {
            json!({"metadata": meta, "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "c"}}}})
        }
        "autoscaling/horizontalpodautoscalers" => {
            json!({"metadata": meta, "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 3}})
        }
        "discovery.k8s.io/endpointslices" => {
            json!({"metadata": meta, "addressType": "IPv4", "endpoints": [{"addresses": ["10.0.0.1"]}], "ports": [{"port": 80}]})
        }
        "endpoints" => {
            json!({"metadata": meta, "subsets": [{"addresses": [{"ip": "10.0.0.1"}], "ports": [{"port": 80}]}]})
        }
        "persistentvolumes" => {
            json!({"metadata": meta, "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/data"}}})
        }
        "persistentvolumeclaims" => {
            json!({"metadata": meta, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}})
        }
        "replicationcontrollers" => {
            json!({"metadata": meta, "spec": {"selector": {"app": "c"},
                "template": {"metadata": {"labels": {"app": "c"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}})
        }
        "resourcequotas" => json!({"metadata": meta, "spec": {"hard": {"pods": "10"}}}),
        "limitranges" => {
            json!({"metadata": meta, "spec": {"limits": [{"type": "Container", "default": {"cpu": "500m"}}]}})
        }
        "podtemplates" => {
            json!({"metadata": meta, "template": {"metadata": {"labels": {"app": "c"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}})
        }
        "storage.k8s.io/storageclasses" => {
            json!({"metadata": meta, "provisioner": "example.com/disk"})
        }
        "storage.k8s.io/csidrivers" => json!({"metadata": meta, "spec": {}}),
        "storage.k8s.io/csinodes" => {
            json!({"metadata": meta, "spec": {"drivers": [{"name": "example.com/disk", "nodeID": "n1"}]}})
        }
        "storage.k8s.io/volumeattachments" => {
            json!({"metadata": meta, "spec": {"attacher": "example.com/disk", "nodeName": "n1", "source": {"persistentVolumeName": "pv1"}}})
        }
        "storage.k8s.io/csistoragecapacities" => {
            json!({"metadata": meta, "storageClassName": "fast", "capacity": "10Gi"})
        }
        "scheduling.k8s.io/priorityclasses" => json!({"metadata": meta, "value": 1000}),
        "node.k8s.io/runtimeclasses" => json!({"metadata": meta, "handler": "runc"}),
        // No webhooks: a configuration that calls nothing while the suite writes.
        "admissionregistration.k8s.io/mutatingwebhookconfigurations"
        | "admissionregistration.k8s.io/validatingwebhookconfigurations" => {
            json!({"metadata": meta, "webhooks": []})
        }
        // A policy of a resource nothing writes, a binding of a policy
        // that does not exist: neither judges the suite's writes.
        "admissionregistration.k8s.io/validatingadmissionpolicies" => json!({"metadata": meta,
            "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": ["conf.example.io"],
                "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["nothing"]}]},
                "validations": [{"expression": "true"}]}}),
        "admissionregistration.k8s.io/validatingadmissionpolicybindings" => {
            json!({"metadata": meta, "spec": {"policyName": "absent", "validationActions": ["Audit"]}})
        }
        "example.com/gadgets" => json!({"metadata": meta, "spec": {"color": "red"}}),
        // Local (no service): named `<version>.<group>`, the version being `name`.
        "apiregistration.k8s.io/apiservices" => json!({
            "metadata": {"name": format!("{name}.conf.example.io")},
            "spec": {"group": "conf.example.io", "version": name,
                "groupPriorityMinimum": 100, "versionPriority": 10}}),
        "certificates.k8s.io/certificatesigningrequests" => json!({"metadata": meta,
            "spec": {"request": signing_request(), "signerName": "example.com/conformance",
                "usages": ["client auth"]}}),
        // Alpha and beta kinds (served when `--runtime-config` turns them on).
        "networking.k8s.io/ipaddresses" => json!({"metadata": {"name": address_for(name)},
            "spec": {"parentRef": {"resource": "services", "namespace": "conf", "name": "web"}}}),
        "networking.k8s.io/servicecidrs" => {
            json!({"metadata": meta, "spec": {"cidrs": ["10.200.0.0/16"]}})
        }
        "storage.k8s.io/volumeattributesclasses" => {
            json!({"metadata": meta, "driverName": "csi.example.com", "parameters": {"iops": "100"}})
        }
        "certificates.k8s.io/clustertrustbundles" => json!({
            "metadata": {"name": format!("example.com:conformance:{name}")},
            "spec": {"signerName": "example.com/conformance", "trustBundle": ca_certificate()}}),
        _ => return None,
    })
}

/// An IPAddress's name (its address) made from a sample name `conf-N`.
fn address_for(name: &str) -> String {
    let n: u32 = name
        .rsplit('-')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    format!("10.201.{}.{}", n / 250, n % 250 + 1)
}

/// A self-signed CA certificate in PEM.
fn ca_certificate() -> String {
    let mut params =
        rcgen::CertificateParams::new(vec!["anchor.example.com".into()]).expect("params");
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let key = rcgen::KeyPair::generate().expect("key");
    params.self_signed(&key).expect("self-signed").pem()
}

/// A PEM certificate signing request, base64 as JSON carries bytes.
fn signing_request() -> String {
    use base64::Engine;
    let key = rcgen::KeyPair::generate().expect("key");
    let pem = rcgen::CertificateParams::default()
        .serialize_request(&key)
        .expect("request")
        .pem()
        .expect("pem");
    base64::engine::general_purpose::STANDARD.encode(pem)
}
