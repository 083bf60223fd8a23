"""The official Python `kubernetes` client's AuthorizationV1Api over HTTPS:
alice (a bearer token, allowed to read pods in `team`) asks about herself
with SelfSubjectAccessReview and SelfSubjectRulesReview; the admin (the
kubeconfig's client certificate) asks about alice with SubjectAccessReview
and LocalSubjectAccessReview; an invalid review is refused with 422.

Usage: python access_reviews.py https://127.0.0.1:PORT CA_FILE ADMIN_KUBECONFIG
Prints one line per check; exits non-zero on the first failure."""

import sys

from kubernetes import client, config
from kubernetes.client.rest import ApiException


def check(label, cond):
    if not cond:
        raise SystemExit(f"FAILED: {label}")
    print(f"ok: {label}")


def as_alice(url, ca_file):
    cfg = client.Configuration()
    cfg.host = url
    cfg.ssl_ca_cert = ca_file
    cfg.api_key = {"authorization": "Bearer alice-token"}
    return client.AuthorizationV1Api(client.ApiClient(cfg))


def pods(verb, namespace):
    return client.V1ResourceAttributes(namespace=namespace, verb=verb, resource="pods")


def self_reviews(api):
    mine = api.create_self_subject_access_review(
        client.V1SelfSubjectAccessReview(spec=client.V1SelfSubjectAccessReviewSpec(resource_attributes=pods("get", "team")))
    )
    check("SelfSubjectAccessReview: alice may get pods in team", mine.status.allowed is True)
    check("SelfSubjectAccessReview echoes the spec", mine.spec.resource_attributes.namespace == "team")
    not_mine = api.create_self_subject_access_review(
        client.V1SelfSubjectAccessReview(spec=client.V1SelfSubjectAccessReviewSpec(resource_attributes=pods("delete", "team")))
    )
    check("SelfSubjectAccessReview: alice may not delete them", not_mine.status.allowed is False and not not_mine.status.denied)
    rules = api.create_self_subject_rules_review(
        client.V1SelfSubjectRulesReview(spec=client.V1SelfSubjectRulesReviewSpec(namespace="team"))
    )
    pod_rules = [r for r in rules.status.resource_rules if "pods" in (r.resources or [])]
    check(
        "SelfSubjectRulesReview lists the pod rule",
        len(pod_rules) == 1 and sorted(pod_rules[0].verbs) == ["get", "list", "watch"],
    )
    check("SelfSubjectRulesReview is complete for RBAC", rules.status.incomplete is False)
    try:
        api.create_subject_access_review(
            client.V1SubjectAccessReview(spec=client.V1SubjectAccessReviewSpec(user="bob", resource_attributes=pods("get", "team")))
        )
        check("alice may not create a SubjectAccessReview", False)
    except ApiException as e:
        check("alice may not create a SubjectAccessReview", e.status == 403)


def admin_reviews(kubeconfig):
    api = client.AuthorizationV1Api(config.new_client_from_config(config_file=kubeconfig))
    review = api.create_subject_access_review(
        client.V1SubjectAccessReview(spec=client.V1SubjectAccessReviewSpec(user="alice", resource_attributes=pods("watch", "team")))
    )
    check("SubjectAccessReview: alice may watch pods in team", review.status.allowed is True)
    review = api.create_subject_access_review(
        client.V1SubjectAccessReview(
            spec=client.V1SubjectAccessReviewSpec(
                user="alice", non_resource_attributes=client.V1NonResourceAttributes(path="/healthz", verb="get")
            )
        )
    )
    check("SubjectAccessReview of a path", review.status.allowed is False)
    local = api.create_namespaced_local_subject_access_review(
        "team",
        client.V1LocalSubjectAccessReview(
            spec=client.V1SubjectAccessReviewSpec(user="bob", resource_attributes=pods("get", "team"))
        ),
    )
    check("LocalSubjectAccessReview: bob may not get pods", local.status.allowed is False)
    check("LocalSubjectAccessReview keeps its namespace", local.metadata.namespace == "team")
    try:
        api.create_subject_access_review(
            client.V1SubjectAccessReview(spec=client.V1SubjectAccessReviewSpec(resource_attributes=pods("get", "team")))
        )
        check("a review without user or groups is refused", False)
    except ApiException as e:
        check(
            "a review without user or groups is refused",
            e.status == 422 and "at least one of user or group must be specified" in e.body,
        )


def main(url, ca_file, kubeconfig):
    self_reviews(as_alice(url, ca_file))
    admin_reviews(kubeconfig)
    print("all checks passed")


if __name__ == "__main__":
    main(*sys.argv[1:4])
