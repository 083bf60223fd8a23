"""The official Python `kubernetes` client's NetworkingV1Api, PolicyV1Api
and AutoscalingV2Api against a cairn-apiserver: typed create/read/list of
Ingresses, NetworkPolicies, PodDisruptionBudgets and HorizontalPodAutoscalers,
defaults as Kubernetes sets them, and the refusals for rules it enforces.

Usage: python kinds_more.py http://127.0.0.1:PORT
Prints one line per check; exits non-zero on the first failure."""

import json
import sys
import urllib.error
import urllib.request

from kubernetes import client
from kubernetes.client.rest import ApiException


def check(label, cond):
    if not cond:
        raise SystemExit(f"FAILED: {label}")
    print(f"ok: {label}")


def status_of(call):
    try:
        call()
    except ApiException as e:
        return e.status
    return 200


def raw_create_status(host, path, body):
    """POSTs `body` as JSON without the client's models (which refuse some
    invalid objects before sending them) and returns the HTTP status."""
    req = urllib.request.Request(host + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req) as resp:
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code


def main():
    conf = client.Configuration()
    conf.host = sys.argv[1]
    api = client.ApiClient(conf)
    net = client.NetworkingV1Api(api)
    policy = client.PolicyV1Api(api)
    scaling = client.AutoscalingV2Api(api)
    ns = "default"

    backend = client.V1IngressBackend(service=client.V1IngressServiceBackend(
        name="web", port=client.V1ServiceBackendPort(number=80)))
    path = client.V1HTTPIngressPath(path="/", path_type="Prefix", backend=backend)
    rule = client.V1IngressRule(host="web.example.com",
                                http=client.V1HTTPIngressRuleValue(paths=[path]))
    ing = net.create_namespaced_ingress(ns, client.V1Ingress(
        metadata=client.V1ObjectMeta(name="web"), spec=client.V1IngressSpec(rules=[rule])))
    check("ingress created", ing.spec.rules[0].http.paths[0].backend.service.port.number == 80)
    listed = net.list_namespaced_ingress(ns)
    check("ingress listed", [i.metadata.name for i in listed.items] == ["web"])
    no_type = {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "bad"},
               "spec": {"rules": [{"http": {"paths": [{"path": "/", "backend": {
                   "service": {"name": "web", "port": {"number": 80}}}}]}}]}}
    # The spec's status table: a required field omitted is 400 (kube says 422).
    check("pathType is required",
          raw_create_status(conf.host, f"/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses", no_type) == 400)

    pol = net.create_namespaced_network_policy(ns, client.V1NetworkPolicy(
        metadata=client.V1ObjectMeta(name="np"),
        spec=client.V1NetworkPolicySpec(pod_selector=client.V1LabelSelector())))
    check("policy types default to Ingress", pol.spec.policy_types == ["Ingress"])

    pdb = policy.create_namespaced_pod_disruption_budget(ns, client.V1PodDisruptionBudget(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1PodDisruptionBudgetSpec(min_available="50%",
                                              selector=client.V1LabelSelector(match_labels={"app": "web"}))))
    check("pdb created with a fresh status", pdb.spec.min_available == "50%")
    both = client.V1PodDisruptionBudget(metadata=client.V1ObjectMeta(name="both"),
                                        spec=client.V1PodDisruptionBudgetSpec(min_available=1, max_unavailable=1))
    check("pdb bounds are exclusive",
          status_of(lambda: policy.create_namespaced_pod_disruption_budget(ns, both)) == 422)

    hpa = scaling.create_namespaced_horizontal_pod_autoscaler(ns, client.V2HorizontalPodAutoscaler(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V2HorizontalPodAutoscalerSpec(
            scale_target_ref=client.V2CrossVersionObjectReference(api_version="apps/v1", kind="Deployment", name="web"),
            max_replicas=4)))
    check("hpa defaults", hpa.spec.min_replicas == 1
          and hpa.spec.metrics[0].resource.name == "cpu"
          and hpa.spec.metrics[0].resource.target.average_utilization == 80)
    got = scaling.read_namespaced_horizontal_pod_autoscaler("web", ns)
    check("hpa read", got.spec.max_replicas == 4)
    print("all checks passed")


if __name__ == "__main__":
    main()
