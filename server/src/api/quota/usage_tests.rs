//! The evaluators' counts for pods, Services, claims and other kinds.

use std::time::{Duration, SystemTime};

use serde_json::json;

use super::*;
use crate::api::quota::pretty;

#[test]
fn pods_count_containers_sidecars_init_containers_and_overhead() {
    let pod = json!({"spec": {
        "containers": [
            {"name": "a", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"cpu": "200m"}}},
            {"name": "b", "resources": {"requests": {"cpu": "100m", "example.com/gpu": "1"}}}
        ],
        "initContainers": [
            {"name": "side", "restartPolicy": "Always", "resources": {"requests": {"cpu": "50m"}}},
            {"name": "setup", "resources": {"requests": {"cpu": "1", "memory": "32Mi"}}}
        ],
        "overhead": {"cpu": "10m"}
    }});
    let used = Evaluator::Pods.usage(&pod, SystemTime::now());
    assert_eq!(
        pretty(&used),
        "count/pods=1,cpu=1060m,limits.cpu=210m,memory=64Mi,pods=1,requests.cpu=1060m,\
         requests.example.com/gpu=1,requests.memory=64Mi"
    );
}

#[test]
fn finished_pods_count_only_as_objects() {
    let done = json!({"spec": {"containers": [{"resources": {"requests": {"cpu": "1"}}}]},
                      "status": {"phase": "Succeeded"}});
    assert_eq!(
        pretty(&Evaluator::Pods.usage(&done, SystemTime::now())),
        "count/pods=1"
    );
    let past = json!({"metadata": {"deletionTimestamp": "2020-01-01T00:00:00Z",
                                   "deletionGracePeriodSeconds": 30}});
    assert_eq!(
        pretty(&Evaluator::Pods.usage(&past, SystemTime::now())),
        "count/pods=1"
    );
    let grace = SystemTime::UNIX_EPOCH + Duration::from_secs(1_577_836_810);
    assert_eq!(
        pretty(&Evaluator::Pods.usage(&past, grace)),
        "count/pods=1,pods=1"
    );
}

#[test]
fn services_count_load_balancers_and_node_ports() {
    let lb = json!({"spec": {"type": "LoadBalancer", "ports": [{"port": 80}, {"port": 443}]}});
    assert_eq!(
        pretty(&Evaluator::Services.usage(&lb, SystemTime::now())),
        "count/services=1,services=1,services.loadbalancers=1,services.nodeports=2"
    );
    let cluster = json!({"spec": {"ports": [{"port": 80}]}});
    assert_eq!(
        pretty(&Evaluator::Services.usage(&cluster, SystemTime::now())),
        "count/services=1,services=1"
    );
}

#[test]
fn claims_count_storage_per_class() {
    let claim = json!({"spec": {"storageClassName": "fast",
                                "resources": {"requests": {"storage": "1Gi"}}},
                       "status": {"allocatedResources": {"storage": "2Gi"}}});
    assert_eq!(
        pretty(&Evaluator::Claims.usage(&claim, SystemTime::now())),
        "count/persistentvolumeclaims=1,fast.storageclass.storage.k8s.io/persistentvolumeclaims=1,\
         fast.storageclass.storage.k8s.io/requests.storage=2Gi,persistentvolumeclaims=1,\
         requests.storage=2Gi"
    );
}

#[test]
fn quota_on_cpu_or_memory_makes_containers_state_them() {
    let pod = json!({"spec": {
        "containers": [
            {"name": "app", "resources": {"requests": {"cpu": "1"}}},
            {"name": "web", "resources": {"limits": {"cpu": "1"}, "requests": {"cpu": "1", "memory": "1Mi"}}}
        ],
        "initContainers": [{"name": "init"}]
    }});
    let tracked = ["pods", "limits.cpu", "requests.memory", "requests.cpu"];
    assert_eq!(
        Evaluator::Pods.constraints(&tracked, &pod),
        Err("must specify limits.cpu for: app,init; requests.cpu for: init; requests.memory for: app,init".into())
    );
    assert_eq!(Evaluator::Pods.constraints(&["pods"], &pod), Ok(()));
}

#[test]
fn other_kinds_count_under_their_names() {
    let count = Evaluator::Count {
        name: count_name("apps", "deployments"),
        legacy: None,
    };
    assert_eq!(
        pretty(&count.usage(&json!({}), SystemTime::now())),
        "count/deployments.apps=1"
    );
    assert!(count.tracks("count/deployments.apps"));
    assert!(!count.tracks("deployments"));
}
