"""The official Python `kubernetes` client with a static bearer token over
HTTPS: reads and writes as the token's user, asks who it is
(SelfSubjectReview), reviews tokens (TokenReview), and is refused with 401
for an unknown token without anything changing.

Usage: python bearer_token.py https://127.0.0.1:PORT CA_FILE TOKEN
Prints one line per check; exits non-zero on the first failure."""

import sys

from kubernetes import client
from kubernetes.client.rest import ApiException


def check(label, cond):
    if not cond:
        raise SystemExit(f"FAILED: {label}")
    print(f"ok: {label}")


def api_client(url, ca_file, token):
    cfg = client.Configuration()
    cfg.host = url
    cfg.ssl_ca_cert = ca_file
    cfg.api_key = {"authorization": token}
    cfg.api_key_prefix = {"authorization": "Bearer"}
    return client.ApiClient(cfg)


def main(url, ca_file, token):
    as_user = api_client(url, ca_file, token)
    core = client.CoreV1Api(as_user)
    names = [n.metadata.name for n in core.list_namespace().items]
    check("list_namespace with a bearer token", "default" in names)
    cm = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py-token"), data={"k": "v"})
    created = core.create_namespaced_config_map("default", cm)
    check("create_namespaced_config_map", created.metadata.uid and created.data == {"k": "v"})

    authn = client.AuthenticationV1Api(as_user)
    me = authn.create_self_subject_review(client.V1SelfSubjectReview())
    info = me.status.user_info
    check(
        "SelfSubjectReview names the token's user",
        info.username == "alice" and info.uid == "1001" and info.groups == ["devs", "system:authenticated"],
    )

    good = authn.create_token_review(client.V1TokenReview(spec=client.V1TokenReviewSpec(token=token)))
    check(
        "TokenReview of a good token",
        good.status.authenticated and good.status.user.username == "alice" and not good.status.error,
    )
    bad = authn.create_token_review(client.V1TokenReview(spec=client.V1TokenReviewSpec(token="not-a-token")))
    check(
        "TokenReview of a bad token",
        not bad.status.authenticated and bad.status.error == "invalid bearer token",
    )

    stranger = client.CoreV1Api(api_client(url, ca_file, "not-a-token"))
    try:
        stranger.create_namespaced_config_map(
            "default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py-stranger"))
        )
        check("an unknown token is refused", False)
    except ApiException as e:
        check("an unknown token is refused with 401", e.status == 401)
    try:
        core.read_namespaced_config_map("py-stranger", "default")
        check("nothing was created by the refused request", False)
    except ApiException as e:
        check("nothing was created by the refused request", e.status == 404)

    print("all checks passed")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
