"""The official Python `kubernetes` client against a running cairn-apiserver:
patch calls (merge, JSON, server-side apply) and the managedFields they leave.

Usage: python managed_fields.py http://127.0.0.1:PORT
Prints one line per check; exits non-zero on the first failure."""

import json
import sys

from kubernetes import client
from kubernetes.client.rest import ApiException


def check(label, cond):
    if not cond:
        raise SystemExit(f"FAILED: {label}")
    print(f"ok: {label}")


def owners(obj):
    return {(e.manager, e.operation): e.fields_v1 for e in (obj.metadata.managed_fields or [])}


def main(url):
    cfg = client.Configuration()
    cfg.host = url
    api = client.CoreV1Api(client.ApiClient(cfg))
    ns = "default"

    cm = api.create_namespaced_config_map(
        ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py-cm"), data={"a": "1"}), field_manager="py-create"
    )
    check("create records an Update entry", owners(cm) == {("py-create", "Update"): {"f:data": {".": {}, "f:a": {}}}})
    entry = cm.metadata.managed_fields[0]
    check("entry carries apiVersion, FieldsV1 and a time", entry.api_version == "v1" and entry.fields_type == "FieldsV1" and entry.time is not None)

    merged = api.patch_namespaced_config_map(
        "py-cm", ns, {"data": {"b": "2"}}, field_manager="py-merge", _content_type="application/merge-patch+json"
    )
    check("merge patch owner", owners(merged).get(("py-merge", "Update")) == {"f:data": {"f:b": {}}})

    jp = api.patch_namespaced_config_map(
        "py-cm", ns, [{"op": "replace", "path": "/data/a", "value": "3"}], field_manager="py-json",
        _content_type="application/json-patch+json",
    )
    got = owners(jp)
    check("JSON patch takes the value it changed", got.get(("py-json", "Update")) == {"f:data": {"f:a": {}}})
    check("the creator keeps only the map it made", got.get(("py-create", "Update")) == {"f:data": {}})

    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "py-cm"}, "data": {"c": "4"}}
    applied = api.patch_namespaced_config_map(
        "py-cm", ns, body, field_manager="py-apply", _content_type="application/apply-patch+yaml"
    )
    check("apply entry", owners(applied).get(("py-apply", "Apply")) == {"f:data": {"f:c": {}}})
    check("apply merged", applied.data == {"a": "3", "b": "2", "c": "4"})

    body["data"] = {"a": "9"}
    try:
        api.patch_namespaced_config_map("py-cm", ns, body, field_manager="py-apply", _content_type="application/apply-patch+yaml")
        check("apply conflict raised", False)
    except ApiException as e:
        status = json.loads(e.body)
        check("apply conflict is 409", e.status == 409 and status["reason"] == "Conflict")
        check("conflict names the owner", status["details"]["causes"][0]["message"] == 'conflict with "py-json" using v1')

    forced = api.patch_namespaced_config_map(
        "py-cm", ns, body, field_manager="py-apply", force=True, _content_type="application/apply-patch+yaml"
    )
    check("force takes the field and drops c", forced.data == {"a": "9", "b": "2"}
          and owners(forced).get(("py-apply", "Apply")) == {"f:data": {"f:a": {}}})

    try:
        api.patch_namespaced_config_map("py-cm", ns, body, _content_type="application/apply-patch+yaml")
        check("apply without fieldManager refused", False)
    except ApiException as e:
        check("apply without fieldManager is 400", e.status == 400)

    print("all checks passed")


if __name__ == "__main__":
    main(sys.argv[1])
