//! apps/v1 and batch/v1 through real clients: kubectl's create, apply, get,
//! scale, rollout and explain, the Python client's AppsV1Api and BatchV1Api,
//! and the rules Kubernetes enforces (selectors, defaults, schedules).

use cairn_tests::{Server, kubectl, kubectl_present, run_python_script};
use serde_json::{Value, json};

const MANIFEST: &str = r"
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: 'nginx:1.27', ports: [{containerPort: 80}]}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: pg, image: 'postgres:16'}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {nodeSelector: {disk: ssd}, containers: [{name: agent, image: 'busybox:1.36'}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: once}
spec:
  template:
    spec: {restartPolicy: Never, containers: [{name: pi, image: perl}]}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: '0 3 * * *'
  timeZone: Europe/Berlin
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: OnFailure, containers: [{name: backup, image: busybox}]}
";

fn ok(s: &Server, args: &[&str], stdin: Option<&str>) -> String {
    let (success, out) = kubectl(s, args, stdin);
    assert!(success, "kubectl {args:?}: {out}");
    out
}

fn json_of(s: &Server, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    serde_json::from_str(&ok(s, &all, None)).expect("kubectl JSON")
}

#[test]
fn kubectl_creates_scales_and_pauses_a_deployment() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start(&[]);
    ok(
        &s,
        &["create", "deployment", "web", "--image=nginx:1.27"],
        None,
    );
    let d = json_of(&s, &["get", "deploy", "web"]);
    assert_eq!(d["spec"]["replicas"], 1);
    assert_eq!(d["spec"]["progressDeadlineSeconds"], 600);
    assert_eq!(d["spec"]["revisionHistoryLimit"], 10);
    assert_eq!(
        d["spec"]["strategy"],
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}})
    );
    let pod = &d["spec"]["template"]["spec"];
    assert_eq!(pod["containers"][0]["imagePullPolicy"], "IfNotPresent");
    assert_eq!(
        pod["containers"][0]["terminationMessagePath"],
        "/dev/termination-log"
    );
    assert_eq!(pod["dnsPolicy"], "ClusterFirst");
    assert_eq!(pod["schedulerName"], "default-scheduler");
    assert_eq!(pod["securityContext"], json!({}));
    assert_eq!(d["metadata"]["generation"], 1);

    ok(&s, &["scale", "deployment", "web", "--replicas=3"], None);
    let scale = s
        .get("/apis/apps/v1/namespaces/default/deployments/web/scale")
        .json();
    assert_eq!(scale["spec"]["replicas"], 3);
    assert_eq!(scale["status"]["selector"], "app=web");
    ok(&s, &["rollout", "pause", "deployment/web"], None);
    let paused = json_of(&s, &["get", "deploy", "web"]);
    assert_eq!(paused["spec"]["paused"], true);
    assert_eq!(
        paused["metadata"]["generation"], 3,
        "each spec change counts"
    );
    ok(&s, &["rollout", "resume", "deployment/web"], None);
    let resumed = json_of(&s, &["get", "deploy", "web"]);
    assert!(
        resumed["spec"].get("paused").is_none_or(|p| p == false),
        "{resumed}"
    );
    assert_eq!(resumed["metadata"]["generation"], 4);
    let table = ok(&s, &["get", "deployments", "-o", "wide"], None);
    let header: Vec<&str> = table
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    assert_eq!(
        header,
        [
            "NAME",
            "READY",
            "UP-TO-DATE",
            "AVAILABLE",
            "AGE",
            "CONTAINERS",
            "IMAGES",
            "SELECTOR"
        ]
    );
    assert!(
        table.contains("0/3") && table.contains("nginx:1.27") && table.contains("app=web"),
        "{table}"
    );
    let explained = ok(
        &s,
        &["explain", "deployment.spec.strategy.rollingUpdate"],
        None,
    );
    assert!(
        explained.contains("maxSurge") && explained.contains("maxUnavailable"),
        "{explained}"
    );
}

#[test]
fn kubectl_applies_a_manifest_of_every_workload_and_gets_all() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start(&[]);
    let applied = ok(&s, &["apply", "-f", "-"], Some(MANIFEST));
    for line in [
        "deployment.apps/web created",
        "statefulset.apps/db created",
        "daemonset.apps/agent created",
        "job.batch/once created",
        "cronjob.batch/nightly created",
    ] {
        assert!(applied.contains(line), "{applied}");
    }
    let again = ok(&s, &["apply", "-f", "-"], Some(MANIFEST));
    // The StatefulSet is "configured" again, as with Kubernetes: its claim
    // templates are an atomic list the server adds defaults to, so kubectl's
    // diff always sends it (the server then changes nothing).
    assert_eq!(again.matches("unchanged").count(), 4, "{again}");
    let sts_generation = json_of(&s, &["get", "sts", "db"])["metadata"]["generation"].clone();
    assert_eq!(sts_generation, 1, "re-applying changes nothing");
    let all = ok(&s, &["get", "all"], None);
    for name in [
        "deployment.apps/web",
        "statefulset.apps/db",
        "daemonset.apps/agent",
        "job.batch/once",
        "cronjob.batch/nightly",
    ] {
        assert!(all.contains(name), "{all}");
    }
    let sts = json_of(&s, &["get", "sts", "db"]);
    assert_eq!(
        sts["spec"]["updateStrategy"],
        json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})
    );
    assert_eq!(sts["spec"]["podManagementPolicy"], "OrderedReady");
    let ds = json_of(&s, &["get", "ds", "agent"]);
    assert_eq!(
        ds["spec"]["updateStrategy"]["rollingUpdate"],
        json!({"maxUnavailable": 1, "maxSurge": 0})
    );
    let job = json_of(&s, &["get", "job", "once"]);
    let uid = job["metadata"]["uid"].as_str().expect("uid");
    assert_eq!(
        job["spec"]["selector"]["matchLabels"]["batch.kubernetes.io/controller-uid"],
        uid
    );
    assert_eq!(
        job["spec"]["template"]["metadata"]["labels"]["job-name"],
        "once"
    );
    assert_eq!(job["spec"]["backoffLimit"], 6);
    let cron = ok(&s, &["get", "cj", "nightly"], None);
    assert!(
        cron.contains("0 3 * * *") && cron.contains("Europe/Berlin") && cron.contains("False"),
        "{cron}"
    );
    ok(&s, &["scale", "statefulset", "db", "--replicas=4"], None);
    assert_eq!(json_of(&s, &["get", "sts", "db"])["spec"]["replicas"], 4);
}

#[test]
fn kubectl_creates_jobs_and_checks_cron_schedules() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start(&[]);
    ok(
        &s,
        &[
            "create",
            "job",
            "pi",
            "--image=perl",
            "--",
            "perl",
            "-e",
            "1",
        ],
        None,
    );
    let jobs = ok(&s, &["get", "jobs"], None);
    let header: Vec<&str> = jobs
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    assert_eq!(header, ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]);
    assert!(jobs.contains("Running") && jobs.contains("0/1"), "{jobs}");
    let unfinished = ok(
        &s,
        &[
            "get",
            "jobs",
            "--field-selector",
            "status.successful=0",
            "-o",
            "name",
        ],
        None,
    );
    assert_eq!(unfinished.trim(), "job.batch/pi");
    let finished = ok(
        &s,
        &[
            "get",
            "jobs",
            "--field-selector",
            "status.successful=1",
            "-o",
            "name",
        ],
        None,
    );
    assert!(!finished.contains("job.batch/pi"), "{finished}");
    ok(
        &s,
        &[
            "create",
            "cronjob",
            "hourly",
            "--image=busybox",
            "--schedule=@hourly",
        ],
        None,
    );
    let (created, out) = kubectl(
        &s,
        &[
            "create",
            "cronjob",
            "bad",
            "--image=busybox",
            "--schedule=61 * * * *",
        ],
        None,
    );
    assert!(!created);
    assert!(
        out.contains(
            "spec.schedule: Invalid value: \"61 * * * *\": end of range (61) above maximum (59): 61"
        ),
        "{out}"
    );
}

fn deployment(selector: Value, labels: Value) -> Value {
    json!({"metadata": {"name": "d"}, "spec": {"selector": selector,
        "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
}

#[test]
fn selectors_must_match_and_never_change() {
    let s = Server::start(&[]);
    let path = "/apis/apps/v1/namespaces/default/deployments";
    let mismatched = s.post(
        path,
        &deployment(json!({"matchLabels": {"app": "a"}}), json!({"app": "b"})),
    );
    assert_eq!(mismatched.status, 422);
    assert!(
        mismatched
            .text()
            .contains("`selector` does not match template `labels`"),
        "{}",
        mismatched.text()
    );
    let created = s.post(
        path,
        &deployment(
            json!({"matchLabels": {"app": "a"}}),
            json!({"app": "a", "v": "1"}),
        ),
    );
    assert_eq!(created.status, 201, "{}", created.text());
    let mut changed = created.json();
    changed["spec"]["selector"] = json!({"matchLabels": {"app": "a", "v": "1"}});
    let refused = s.put(&format!("{path}/d"), &changed);
    assert_eq!(refused.status, 422);
    assert_eq!(
        refused.json()["details"]["causes"][0]["field"],
        "spec.selector"
    );
    assert!(
        refused.text().contains("field is immutable"),
        "{}",
        refused.text()
    );
    let status = s.put(&format!("{path}/d/status"), &{
        let mut d = created.json();
        d["status"] = json!({"replicas": 1, "readyReplicas": 1});
        d
    });
    assert_eq!(status.status, 200, "{}", status.text());
    assert_eq!(
        status.json()["metadata"]["generation"],
        1,
        "status writes keep the generation"
    );
}

#[test]
fn python_client_apps_and_batch_apis() {
    run_python_script("workloads.py", &[]);
}

#[test]
fn a_deployment_round_trips_through_protobuf() {
    if !kubectl_present() {
        return;
    }
    const PB: &str = "application/vnd.kubernetes.protobuf";
    let s = Server::start(&[]);
    let created = ok(
        &s,
        &["create", "deployment", "pb", "--image=nginx:1.27", "-v=8"],
        None,
    );
    assert!(
        created.contains(&format!("Content-Type: {PB}")),
        "kubectl sent no protobuf body:\n{created}"
    );
    let path = "/apis/apps/v1/namespaces/default/deployments/pb";
    let before = s.get(path).json();
    // Go's JSON of what kubectl sent: no zero counts or `paused: false`.
    assert!(
        before["spec"].get("paused").is_none() && before["spec"].get("minReadySeconds").is_none(),
        "{before}"
    );
    assert!(
        before["spec"]["template"]["metadata"]
            .get("generation")
            .is_none(),
        "{before}"
    );
    assert_eq!(before["status"], json!({}));
    let pb = s.request("GET", path, &[("Accept", PB)], None);
    assert_eq!(pb.status, 200);
    assert_eq!(pb.header("content-type"), Some(PB));
    let (api_version, kind, _) = cairn_tests::k8s_proto::unwrap(&pb.body);
    assert_eq!(
        (api_version.as_str(), kind.as_str()),
        ("apps/v1", "Deployment")
    );
    // The server's protobuf, sent back as an update, changes nothing.
    let put = s.request(
        "PUT",
        path,
        &[("Content-Type", PB), ("Accept", "application/json")],
        Some(&pb.body),
    );
    assert_eq!(put.status, 200, "{}", put.text());
    let after = s.get(path).json();
    assert_eq!(after["spec"], before["spec"]);
    assert_eq!(
        after["metadata"]["resourceVersion"], before["metadata"]["resourceVersion"],
        "nothing was written"
    );
    let via_kubectl = json_of(&s, &["get", "deploy", "pb"]);
    assert_eq!(
        via_kubectl["spec"]["strategy"]["rollingUpdate"]["maxSurge"],
        "25%"
    );
}
