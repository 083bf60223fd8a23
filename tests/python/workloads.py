"""The official Python `kubernetes` client's AppsV1Api and BatchV1Api against
a cairn-apiserver: typed create/read/patch of Deployments, StatefulSets,
DaemonSets, Jobs and CronJobs, the scale subresource, and the 422 Kubernetes
answers for a selector that does not match its template.

Usage: python workloads.py http://127.0.0.1:PORT
Prints one line per check; exits non-zero on the first failure."""

import sys

from kubernetes import client
from kubernetes.client.rest import ApiException


def check(label, cond):
    if not cond:
        raise SystemExit(f"FAILED: {label}")
    print(f"ok: {label}")


def template(labels, restart=None):
    return client.V1PodTemplateSpec(
        metadata=client.V1ObjectMeta(labels=labels),
        spec=client.V1PodSpec(restart_policy=restart,
                              containers=[client.V1Container(name="c", image="nginx:1.27")]))


def main():
    conf = client.Configuration()
    conf.host = sys.argv[1]
    api = client.ApiClient(conf)
    apps = client.AppsV1Api(api)
    batch = client.BatchV1Api(api)
    ns = "default"
    selector = client.V1LabelSelector(match_labels={"app": "web"})

    d = apps.create_namespaced_deployment(ns, client.V1Deployment(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1DeploymentSpec(selector=selector, template=template({"app": "web"}))))
    check("deployment defaults", d.spec.replicas == 1 and d.spec.strategy.type == "RollingUpdate"
          and d.spec.strategy.rolling_update.max_surge == "25%" and d.spec.progress_deadline_seconds == 600)
    apps.patch_namespaced_deployment_scale("web", ns, {"spec": {"replicas": 4}})
    scale = apps.read_namespaced_deployment_scale("web", ns)
    check("scale reads the new replicas", scale.spec.replicas == 4 and scale.status.selector == "app=web")
    check("deployment lists", [x.metadata.name for x in apps.list_namespaced_deployment(ns).items] == ["web"])

    try:
        apps.create_namespaced_deployment(ns, client.V1Deployment(
            metadata=client.V1ObjectMeta(name="bad"),
            spec=client.V1DeploymentSpec(selector=selector, template=template({"app": "other"}))))
        check("a mismatched selector is refused", False)
    except ApiException as e:
        check("a mismatched selector is refused with 422", e.status == 422 and "does not match" in e.body)

    sts = apps.create_namespaced_stateful_set(ns, client.V1StatefulSet(
        metadata=client.V1ObjectMeta(name="db"),
        spec=client.V1StatefulSetSpec(service_name="db", selector=client.V1LabelSelector(match_labels={"app": "db"}),
                                      template=template({"app": "db"}))))
    check("statefulset update strategy", sts.spec.update_strategy.type == "RollingUpdate"
          and sts.spec.update_strategy.rolling_update.partition == 0)
    ds = apps.create_namespaced_daemon_set(ns, client.V1DaemonSet(
        metadata=client.V1ObjectMeta(name="agent"),
        spec=client.V1DaemonSetSpec(selector=client.V1LabelSelector(match_labels={"app": "agent"}),
                                    template=template({"app": "agent"}))))
    check("daemonset update strategy", ds.spec.update_strategy.rolling_update.max_unavailable == 1)

    job = batch.create_namespaced_job(ns, client.V1Job(
        metadata=client.V1ObjectMeta(name="pi"),
        spec=client.V1JobSpec(template=template(None, "Never"))))
    check("job selector generated", job.spec.selector.match_labels["batch.kubernetes.io/controller-uid"] == job.metadata.uid)
    check("job defaults", job.spec.backoff_limit == 6 and job.spec.completions == 1 and job.spec.parallelism == 1
          and job.spec.completion_mode == "NonIndexed" and job.spec.suspend is False)
    cj = batch.create_namespaced_cron_job(ns, client.V1CronJob(
        metadata=client.V1ObjectMeta(name="nightly"),
        spec=client.V1CronJobSpec(schedule="@daily", job_template=client.V1JobTemplateSpec(
            spec=client.V1JobSpec(template=template(None, "OnFailure"))))))
    check("cronjob defaults", cj.spec.concurrency_policy == "Allow" and cj.spec.successful_jobs_history_limit == 3
          and cj.spec.failed_jobs_history_limit == 1 and cj.spec.suspend is False)
    patched = batch.patch_namespaced_cron_job("nightly", ns, {"spec": {"suspend": True}})
    check("cronjob suspended by patch", patched.spec.suspend is True)
    try:
        batch.patch_namespaced_cron_job("nightly", ns, {"spec": {"schedule": "not a schedule"}})
        check("a bad schedule is refused", False)
    except ApiException as e:
        check("a bad schedule is refused with 422", e.status == 422 and "spec.schedule" in e.body)
    print("all checks passed")


if __name__ == "__main__":
    main()
