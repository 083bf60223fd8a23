"""An informer written as users write one with the official Python
`kubernetes` client: list ConfigMaps, then watch from the list's
resourceVersion, and whenever the connection breaks (its API server died)
watch again from the last resourceVersion seen; re-list only on 410. It
talks to one URL, a balancer in front of several API servers.

Usage: python informer_failover.py URL
Prints "listed" once the first list is done, then, once it has seen the
ConfigMap named "done", one line of JSON: {"objects": {name: rv},
"watches": N}, and "all checks passed"."""

import json
import sys
import time

from kubernetes import client, watch
from kubernetes.client.rest import ApiException


def main(url):
    cfg = client.Configuration()
    cfg.host = url
    cfg.retries = False
    api = client.CoreV1Api(client.ApiClient(cfg))

    def relist():
        listed = api.list_namespaced_config_map("default")
        state = {o.metadata.name: o.metadata.resource_version for o in listed.items}
        return state, listed.metadata.resource_version

    while True:
        try:
            state, rv = relist()
            break
        except Exception:  # the balancer's first server may still be starting
            time.sleep(0.2)
    print("listed", flush=True)
    watches = 0
    # A guard against hanging the test run, not a speed limit.
    give_up = time.monotonic() + 300
    while True:
        if time.monotonic() > give_up:
            raise SystemExit("FAILED: never saw the ConfigMap 'done'")
        watches += 1
        try:
            stream = watch.Watch().stream(
                api.list_namespaced_config_map, "default",
                resource_version=rv, timeout_seconds=60, _request_timeout=90)
            for event in stream:
                obj = event["object"]
                if event["type"] == "ERROR":
                    state, rv = relist()
                    break
                name, rv = obj.metadata.name, obj.metadata.resource_version
                if event["type"] == "DELETED":
                    state.pop(name, None)
                else:
                    state[name] = rv
                if name == "done":
                    print(json.dumps({"objects": state, "watches": watches}), flush=True)
                    print("all checks passed", flush=True)
                    return
        except ApiException as e:
            if e.status == 410:
                state, rv = relist()
            else:
                time.sleep(0.2)
        except Exception:
            # The connection broke: its server is gone. Watch again.
            time.sleep(0.2)


if __name__ == "__main__":
    main(sys.argv[1])
