"""The official Python `kubernetes` client against a running cairn-apiserver:
CoreV1Api create/read/list/replace/patch/delete of Events and Namespaces.

Usage: python core_v1.py http://127.0.0.1:PORT
Prints one line per check; exits non-zero on the first failure."""

import sys
import time
from datetime import datetime, timezone

from kubernetes import client, watch
from kubernetes.client.rest import ApiException


def check(label, cond):
    if not cond:
        raise SystemExit(f"FAILED: {label}")
    print(f"ok: {label}")


def main(url):
    cfg = client.Configuration()
    cfg.host = url
    api = client.CoreV1Api(client.ApiClient(cfg))

    # Namespaces
    ns = api.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="py-ns", labels={"team": "py"})))
    check("namespace created Active", ns.status.phase == "Active" and ns.metadata.uid)
    check("read_namespace", api.read_namespace("py-ns").metadata.labels == {"team": "py"})
    names = [n.metadata.name for n in api.list_namespace().items]
    check("list_namespace has defaults and py-ns", {"default", "kube-system", "kube-public", "py-ns"} <= set(names))
    check("list_namespace label selector", [n.metadata.name for n in api.list_namespace(label_selector="team=py").items] == ["py-ns"])
    current = api.read_namespace("py-ns")
    current.metadata.labels = {"team": "py", "tier": "test"}
    replaced_ns = api.replace_namespace("py-ns", current)
    check("replace_namespace", replaced_ns.metadata.labels == {"team": "py", "tier": "test"})
    patched_ns = api.patch_namespace("py-ns", {"metadata": {"annotations": {"note": "patched"}}})
    check("patch_namespace (strategic by default)", patched_ns.metadata.annotations == {"note": "patched"} and patched_ns.spec.finalizers == ["kubernetes"])

    # Events
    now = datetime.now(timezone.utc).replace(microsecond=0)
    ev = client.CoreV1Event(
        metadata=client.V1ObjectMeta(name="py-ev", labels={"app": "web"}),
        involved_object=client.V1ObjectReference(kind="Pod", name="web-1", namespace="py-ns", uid="u1"),
        reason="Testing",
        message="hello",
        type="Normal",
        count=1,
        first_timestamp=now,
        last_timestamp=now,
        source=client.V1EventSource(component="py-test", host="node-1"),
    )
    created = api.create_namespaced_event("py-ns", ev)
    check("create_namespaced_event", created.metadata.resource_version and created.reason == "Testing")
    read = api.read_namespaced_event("py-ev", "py-ns")
    check("read_namespaced_event round-trips times", read.first_timestamp == now and read.involved_object.name == "web-1")
    listed = api.list_namespaced_event("py-ns", field_selector="reason=Testing", label_selector="app=web")
    check("list_namespaced_event with selectors", [e.metadata.name for e in listed.items] == ["py-ev"])
    check("list_event_for_all_namespaces", "py-ev" in [e.metadata.name for e in api.list_event_for_all_namespaces().items])

    read.message = "replaced"
    replaced = api.replace_namespaced_event("py-ev", "py-ns", read)
    check("replace_namespaced_event", replaced.message == "replaced")
    stale = read
    try:
        api.replace_namespaced_event("py-ev", "py-ns", stale)
        check("stale replace is a conflict", False)
    except ApiException as e:
        check("stale replace is a conflict (409)", e.status == 409)

    streamed = []
    w = watch.Watch()
    for item in w.stream(api.list_namespaced_event, "py-ns", timeout_seconds=2):
        streamed.append((item["type"], item["object"].metadata.name))
        if len(streamed) == 1:
            api.patch_namespaced_event("py-ev", "py-ns", {"message": "seen by watch"})
        if len(streamed) == 2:
            w.stop()
    check("watch.Watch().stream over list_namespaced_event", streamed == [("ADDED", "py-ev"), ("MODIFIED", "py-ev")])

    patched = api.patch_namespaced_event("py-ev", "py-ns", [{"op": "replace", "path": "/message", "value": "json-patched"}])
    check("patch_namespaced_event (json patch)", patched.message == "json-patched")
    patched = api.patch_namespaced_event(
        "py-ev", "py-ns", {"message": "merged", "count": 2}, _content_type="application/merge-patch+json"
    )
    check("patch_namespaced_event (merge patch)", patched.message == "merged" and patched.count == 2)

    api.delete_namespaced_event("py-ev", "py-ns")
    try:
        api.read_namespaced_event("py-ev", "py-ns")
        check("deleted event is gone", False)
    except ApiException as e:
        check("deleted event is gone (404)", e.status == 404)

    try:
        api.create_namespaced_event("no-such-ns", ev)
        check("create in a missing namespace fails", False)
    except ApiException as e:
        check("create in a missing namespace fails (404)", e.status == 404)

    deleting = api.delete_namespace("py-ns")
    check("delete_namespace starts termination", deleting is not None)
    for _ in range(200):
        try:
            api.read_namespace("py-ns")
            time.sleep(0.05)
        except ApiException as e:
            check("namespace removed (404)", e.status == 404)
            break
    else:
        check("namespace removed in time", False)
    print("python client: all checks passed")


if __name__ == "__main__":
    main(sys.argv[1])
