"""The official Python `kubernetes` client against a cairn-apiserver started with
`--api-domain k8s.io`: ApiextensionsV1Api + CustomObjectsApi for a CRD and its
objects, and CoreV1Api for pods, configmaps and secrets.

Usage: python kinds.py http://127.0.0.1:PORT
Prints one line per check; exits non-zero on the first failure."""

import base64
import sys
import time

from kubernetes import client
from kubernetes.client.rest import ApiException


def check(label, cond):
    if not cond:
        raise SystemExit(f"FAILED: {label}")
    print(f"ok: {label}")


def wait_for(label, cond, timeout=10.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if cond():
                print(f"ok: {label}")
                return
        except ApiException:
            pass
        time.sleep(0.05)
    raise SystemExit(f"FAILED (timeout): {label}")


def status_of(fn):
    try:
        fn()
    except ApiException as e:
        return e.status
    return 200


def custom_objects(api_client):
    ext = client.ApiextensionsV1Api(api_client)
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "crontabs.stable.example.com"},
        "spec": {
            "group": "stable.example.com",
            "scope": "Namespaced",
            "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab", "shortNames": ["ct"]},
            "versions": [{
                "name": "v1", "served": True, "storage": True,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {
                        "cronSpec": {"type": "string"}, "replicas": {"type": "integer"}}},
                    "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}}}},
            }],
        },
    }
    ext.create_custom_resource_definition(crd)
    wait_for("CRD established", lambda: any(
        c.type == "Established" and c.status == "True"
        for c in (ext.read_custom_resource_definition("crontabs.stable.example.com").status.conditions or [])))

    co = client.CustomObjectsApi(api_client)
    args = ("stable.example.com", "v1", "default", "crontabs")
    wait_for("custom resource endpoint served", lambda: co.list_namespaced_custom_object(*args) is not None)
    body = {"apiVersion": "stable.example.com/v1", "kind": "CronTab",
            "metadata": {"name": "c1", "labels": {"app": "cron"}}, "spec": {"cronSpec": "* * * * */5", "replicas": 1}}
    created = co.create_namespaced_custom_object(*args, body)
    check("create_namespaced_custom_object", created["metadata"]["uid"] and created["spec"]["replicas"] == 1)
    got = co.get_namespaced_custom_object(*args, "c1")
    check("get_namespaced_custom_object", got["spec"]["cronSpec"] == "* * * * */5")
    listed = co.list_namespaced_custom_object(*args, label_selector="app=cron")
    check("list_namespaced_custom_object with selector", [i["metadata"]["name"] for i in listed["items"]] == ["c1"])
    got["spec"]["replicas"] = 3
    replaced = co.replace_namespaced_custom_object(*args, "c1", got)
    check("replace_namespaced_custom_object bumps generation",
          replaced["spec"]["replicas"] == 3 and replaced["metadata"]["generation"] == 2)
    patched = co.patch_namespaced_custom_object(*args, "c1", {"metadata": {"annotations": {"a": "b"}}})
    check("patch_namespaced_custom_object", patched["metadata"]["annotations"] == {"a": "b"})
    status = co.patch_namespaced_custom_object_status(*args, "c1", {"status": {"ready": True}})
    check("patch_namespaced_custom_object_status", status["status"] == {"ready": True})
    co.delete_namespaced_custom_object(*args, "c1")
    check("delete_namespaced_custom_object", status_of(lambda: co.get_namespaced_custom_object(*args, "c1")) == 404)
    ext.delete_custom_resource_definition("crontabs.stable.example.com")
    wait_for("CRD gone", lambda: status_of(
        lambda: ext.read_custom_resource_definition("crontabs.stable.example.com")) == 404)


def core_kinds(api_client):
    api = client.CoreV1Api(api_client)
    cm = api.create_namespaced_config_map("default", client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name="cm1"), data={"key": "value"}))
    check("create_namespaced_config_map", cm.data == {"key": "value"})
    cm.data["other"] = "x"
    check("replace_namespaced_config_map", api.replace_namespaced_config_map("cm1", "default", cm).data["other"] == "x")
    check("list_namespaced_config_map", "cm1" in [c.metadata.name for c in api.list_namespaced_config_map("default").items])
    api.delete_namespaced_config_map("cm1", "default")
    check("delete_namespaced_config_map", status_of(lambda: api.read_namespaced_config_map("cm1", "default")) == 404)

    secret = api.create_namespaced_secret("default", client.V1Secret(
        metadata=client.V1ObjectMeta(name="s1"), string_data={"password": "hunter2"}))
    check("create_namespaced_secret folds stringData into data",
          secret.type == "Opaque" and base64.b64decode(secret.data["password"]) == b"hunter2" and not secret.string_data)
    check("read_namespaced_secret", api.read_namespaced_secret("s1", "default").data == secret.data)
    bad = client.V1Secret(metadata=client.V1ObjectMeta(name="s2"), data={"k": "not base64!"})
    check("secret data must be base64", status_of(lambda: api.create_namespaced_secret("default", bad)) in (400, 422))

    pod = api.create_namespaced_pod("default", client.V1Pod(
        metadata=client.V1ObjectMeta(name="p1", labels={"app": "web"}),
        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx")])))
    check("create_namespaced_pod starts Pending", pod.status.phase == "Pending")
    check("pod defaults", pod.spec.restart_policy == "Always" and pod.spec.termination_grace_period_seconds == 30)
    pods = api.list_namespaced_pod("default", label_selector="app=web", field_selector="status.phase=Pending")
    check("list_namespaced_pod with selectors", [p.metadata.name for p in pods.items] == ["p1"])
    patched = api.patch_namespaced_pod_status("p1", "default", {"status": {"phase": "Running"}})
    check("patch_namespaced_pod_status (strategic by default)", patched.status.phase == "Running")
    api.delete_namespaced_pod("p1", "default", grace_period_seconds=0)
    wait_for("pod deleted", lambda: status_of(lambda: api.read_namespaced_pod("p1", "default")) == 404)


def main(url):
    cfg = client.Configuration()
    cfg.host = url
    api_client = client.ApiClient(cfg)
    custom_objects(api_client)
    core_kinds(api_client)
    print("all checks passed")


if __name__ == "__main__":
    main(sys.argv[1])
