"""The official Python `kubernetes` client's patch calls against a running
cairn-apiserver: a dict body is sent as a strategic merge patch, which merges
lists of built-in kinds by their merge keys.

Usage: python strategic_patch.py http://127.0.0.1:PORT
Prints one line per check; exits non-zero on the first failure."""

import sys

from kubernetes import client
from kubernetes.client.rest import ApiException


def check(label, cond):
    if not cond:
        raise SystemExit(f"FAILED: {label}")
    print(f"ok: {label}")


def main(url):
    cfg = client.Configuration()
    cfg.host = url
    api_client = client.ApiClient(cfg)
    api = client.CoreV1Api(api_client)

    api.create_namespaced_config_map("default", client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="py-cm"), data={"a": "1", "b": "2"}))
    cm = api.patch_namespaced_config_map("py-cm", "default", {"data": {"b": None, "c": "3"}})
    check("patch_namespaced_config_map (strategic by default)", cm.data == {"a": "1", "c": "3"})

    pod = client.V1Pod(
        metadata=client.V1ObjectMeta(name="py-pod"),
        spec=client.V1PodSpec(containers=[
            client.V1Container(name="web", image="nginx:1.27"),
            client.V1Container(name="side", image="busybox:1"),
        ]))
    api.create_namespaced_pod("default", pod)
    patched = api.patch_namespaced_pod(
        "py-pod", "default", {"spec": {"containers": [{"name": "side", "image": "busybox:2"}]}})
    images = [(c.name, c.image) for c in patched.spec.containers]
    check("patch_namespaced_pod merges containers by name",
          images == [("web", "nginx:1.27"), ("side", "busybox:2")])

    api.patch_namespaced_pod_status(
        "py-pod", "default", {"status": {"conditions": [{"type": "PodScheduled", "status": "True"}]}})
    status = api.patch_namespaced_pod_status(
        "py-pod", "default", {"status": {"conditions": [{"type": "Ready", "status": "True"}]}})
    check("patch_namespaced_pod_status merges conditions by type",
          sorted(c.type for c in status.status.conditions) == ["PodScheduled", "Ready"])

    try:
        api.patch_namespaced_pod("py-pod", "default", {"spec": {"$bogus": 1}})
        check("an unknown directive is refused", False)
    except ApiException as e:
        check("an unknown directive is refused with 400", e.status == 400)
    check("the refused patch changed nothing",
          [c.image for c in api.read_namespaced_pod("py-pod", "default").spec.containers]
          == ["nginx:1.27", "busybox:2"])

    svc = client.V1Service(
        metadata=client.V1ObjectMeta(name="py-svc"),
        spec=client.V1ServiceSpec(selector={"app": "py"}, ports=[
            client.V1ServicePort(name="http", port=80, target_port=8080),
            client.V1ServicePort(name="https", port=443, target_port=8443),
        ]))
    api.create_namespaced_service("default", svc)
    patched = api.patch_namespaced_service(
        "py-svc", "default", {"spec": {"ports": [{"port": 443, "targetPort": 9443}]}})
    check("patch_namespaced_service merges ports by port",
          [(p.name, p.target_port) for p in patched.spec.ports] == [("http", 8080), ("https", 9443)])

    # A JSON patch (a list body) keeps its own content type.
    cm = api.patch_namespaced_config_map(
        "py-cm", "default", [{"op": "add", "path": "/data/d", "value": "4"}])
    check("patch_namespaced_config_map (json patch)", cm.data == {"a": "1", "c": "3", "d": "4"})
    print("python client: all checks passed")


if __name__ == "__main__":
    main(sys.argv[1])
