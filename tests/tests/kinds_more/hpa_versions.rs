//! One HorizontalPodAutoscaler served in `autoscaling/v2` and `v1`, with
//! the conversion Kubernetes does: v2's CPU utilization metric is v1's
//! `targetCPUUtilizationPercentage` and back, and what v1 cannot say is
//! kept (in kube's annotations) for v2 readers.

use cairn_tests::Server;
use serde_json::json;

const V1: &str = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";
const V2: &str = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";

#[test]
fn one_autoscaler_reads_in_both_versions() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let target = json!({"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"});
    let v2 = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "from-v2"},
        "spec": {"scaleTargetRef": target, "minReplicas": 1, "maxReplicas": 5,
            "metrics": [
                {"type": "Resource", "resource": {"name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 60}}},
                {"type": "Resource", "resource": {"name": "memory",
                    "target": {"type": "AverageValue", "averageValue": "100Mi"}}}]}});
    let r = s.post(V2, &v2);
    assert_eq!(r.status, 201, "{}", r.text());
    let as_v1 = s.get(&format!("{V1}/from-v2")).json();
    assert_eq!(as_v1["apiVersion"], "autoscaling/v1");
    assert_eq!(as_v1["spec"]["targetCPUUtilizationPercentage"], 60);
    assert_eq!(as_v1["spec"]["maxReplicas"], 5);
    assert!(as_v1["spec"].get("metrics").is_none(), "{as_v1}");
    // Read back in v2, nothing was lost.
    let again = s.get(&format!("{V2}/from-v2")).json();
    assert_eq!(again["spec"]["metrics"], v2["spec"]["metrics"]);

    let v1 = json!({"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "from-v1"},
        "spec": {"scaleTargetRef": target, "maxReplicas": 3,
            "targetCPUUtilizationPercentage": 70}});
    let r = s.post(V1, &v1);
    assert_eq!(r.status, 201, "{}", r.text());
    let as_v2 = s.get(&format!("{V2}/from-v1")).json();
    assert_eq!(
        as_v2["spec"]["metrics"],
        json!([{"type": "Resource", "resource": {"name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": 70}}}])
    );
    assert_eq!(as_v2["spec"]["minReplicas"], 1, "defaulted: {as_v2}");
}
