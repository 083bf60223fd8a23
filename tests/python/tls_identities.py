"""The official Python `kubernetes` client over HTTPS: with the admin
kubeconfig the server wrote (a client certificate), and, when given, with a
bearer token and the cluster CA.

Usage: python tls_identities.py KUBECONFIG [https://127.0.0.1:PORT CA_FILE TOKEN]
Prints one line per check; exits non-zero on the first failure."""

import sys

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException


def check(label, cond):
    if not cond:
        raise SystemExit(f"FAILED: {label}")
    print(f"ok: {label}")


def with_certificate(kubeconfig):
    api_client = config.new_client_from_config(config_file=kubeconfig)
    api = client.CoreV1Api(api_client)
    names = {n.metadata.name for n in api.list_namespace().items}
    check("client certificate: list namespaces", {"default", "kube-system"} <= names)
    cm = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py-tls"), data={"a": "b"})
    created = api.create_namespaced_config_map("default", cm)
    check("client certificate: create", created.metadata.uid and created.data == {"a": "b"})
    events = []
    for event in watch.Watch().stream(
        api.list_namespaced_config_map,
        "default",
        resource_version="0",
        timeout_seconds=2,
    ):
        events.append((event["type"], event["object"].metadata.name))
    check("client certificate: watch", ("ADDED", "py-tls") in events)


def with_token(url, ca_file, token):
    cfg = client.Configuration()
    cfg.host = url
    cfg.ssl_ca_cert = ca_file
    cfg.api_key = {"authorization": "Bearer " + token}
    api = client.CoreV1Api(client.ApiClient(cfg))
    names = {n.metadata.name for n in api.list_namespace().items}
    check("bearer token: list namespaces", "default" in names)
    cfg.api_key = {"authorization": "Bearer not-a-known-token"}
    try:
        client.CoreV1Api(client.ApiClient(cfg)).list_namespace()
        check("bad bearer token refused", False)
    except ApiException as e:
        check("bad bearer token refused with 401", e.status == 401)


if __name__ == "__main__":
    with_certificate(sys.argv[1])
    if len(sys.argv) > 4:
        with_token(sys.argv[2], sys.argv[3], sys.argv[4])
    print("all checks passed")
