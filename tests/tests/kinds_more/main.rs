//! The networking, policy, autoscaling, discovery, storage, scheduling,
//! node and further core kinds through real clients: kubectl's create,
//! apply, get (tables, `get all`), autoscale and explain; eviction against
//! a PodDisruptionBudget; the system priority classes; the Python client's
//! NetworkingV1Api, PolicyV1Api and AutoscalingV2Api; the alpha and beta
//! kinds turned on.

mod hpa_versions;
mod manifest;
mod prerelease;
mod prerelease_protobuf;

use cairn_tests::{Server, kubectl, kubectl_present, run_python_script, wait_until};
use serde_json::{Value, json};

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

/// The words of line `n` of a kubectl table (0: the header).
fn line_cells(table: &str, n: usize) -> Vec<String> {
    table
        .lines()
        .nth(n)
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

fn header(table: &str) -> Vec<String> {
    line_cells(table, 0)
}

#[test]
fn kubectl_applies_a_manifest_of_every_new_kind() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let out = ok(&s, &["apply", "-f", "-"], Some(manifest::EVERY_KIND));
    assert_eq!(
        out.lines().filter(|l| l.ends_with(" created")).count(),
        20,
        "{out}"
    );
    let all = ok(&s, &["get", "all"], None);
    assert!(all.contains("replicationcontroller/legacy"), "{all}");
    assert!(
        all.contains("horizontalpodautoscaler.autoscaling/web"),
        "{all}"
    );
    assert!(
        !all.contains("ingress"),
        "ingresses are not in `all`: {all}"
    );
    let ing = ok(&s, &["get", "ing"], None);
    assert_eq!(
        header(&ing),
        ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"]
    );
    assert!(
        ing.contains("web") && ing.contains("web.example.com") && ing.contains("80, 443"),
        "{ing}"
    );
    let pdb = ok(&s, &["get", "pdb"], None);
    assert_eq!(
        header(&pdb),
        [
            "NAME",
            "MIN",
            "AVAILABLE",
            "MAX",
            "UNAVAILABLE",
            "ALLOWED",
            "DISRUPTIONS",
            "AGE"
        ]
    );
    let hpa = ok(&s, &["get", "hpa"], None);
    assert!(
        hpa.contains("Deployment/web") && hpa.contains("cpu: <unknown>/70%"),
        "{hpa}"
    );
    let netpol = json_of(&s, &["get", "netpol", "deny-egress"]);
    assert_eq!(netpol["spec"]["policyTypes"], json!(["Ingress", "Egress"]));
    let pv = json_of(&s, &["get", "pv", "data"]);
    assert_eq!(pv["status"]["phase"], "Pending");
    assert_eq!(pv["spec"]["persistentVolumeReclaimPolicy"], "Retain");
    let sc = ok(&s, &["get", "sc"], None);
    assert!(sc.contains("fast (default)"), "{sc}");
    // Every kind's table as kubectl prints it (kube's 1.32 columns).
    for (short, columns) in [
        ("ep", "NAME ENDPOINTS AGE"),
        (
            "pvc",
            "NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE",
        ),
        ("rc", "NAME DESIRED CURRENT READY AGE"),
        ("quota", "NAME AGE REQUEST LIMIT"),
        ("limits", "NAME CREATED AT"),
        ("pc", "NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY"),
        ("netpol", "NAME POD-SELECTOR AGE"),
        ("ingressclass", "NAME CONTROLLER PARAMETERS AGE"),
        ("endpointslices", "NAME ADDRESSTYPE PORTS ENDPOINTS AGE"),
        (
            "csidrivers",
            "NAME ATTACHREQUIRED PODINFOONMOUNT STORAGECAPACITY TOKENREQUESTS REQUIRESREPUBLISH MODES AGE",
        ),
        ("csinodes", "NAME DRIVERS AGE"),
        ("volumeattachments", "NAME ATTACHER PV NODE ATTACHED AGE"),
        ("csistoragecapacities", "NAME STORAGECLASSNAME CAPACITY"),
        ("runtimeclasses", "NAME HANDLER AGE"),
        ("podtemplates", "NAME CONTAINERS IMAGES POD LABELS"),
        (
            "pv",
            "NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM STORAGECLASS VOLUMEATTRIBUTESCLASS REASON AGE",
        ),
        ("hpa", "NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE"),
        (
            "sc",
            "NAME PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION AGE",
        ),
    ] {
        let table = ok(&s, &["get", short], None);
        assert_eq!(header(&table).join(" "), columns, "{short}: {table}");
    }
    // The manifest again: nothing to change. kubectl still patches two, as
    // against kube-apiserver: a PDB's selector is `patchStrategy=replace`
    // (always sent), and a NetworkPolicy's atomic rules list now holds the
    // defaulted `protocol: TCP` the manifest leaves out.
    let again = ok(&s, &["apply", "-f", "-"], Some(manifest::EVERY_KIND));
    assert_eq!(
        again.lines().filter(|l| l.ends_with(" unchanged")).count(),
        18,
        "{again}"
    );
    assert!(
        again.contains("poddisruptionbudget.policy/web configured"),
        "{again}"
    );
    assert!(
        again.contains("networkpolicy.networking.k8s.io/deny-egress configured"),
        "{again}"
    );
}

#[test]
fn kubectl_create_commands_make_the_new_kinds() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let created = ok(
        &s,
        &[
            "create",
            "ingress",
            "shop",
            "--class=nginx",
            "--rule=shop.example.com/api*=api:8080",
            "-v=8",
        ],
        None,
    );
    let ing = json_of(&s, &["get", "ingress", "shop"]);
    let path = &ing["spec"]["rules"][0]["http"]["paths"][0];
    assert_eq!(path["pathType"], "Prefix", "{ing}");
    assert_eq!(path["path"], "/api");
    assert_eq!(
        path["backend"]["service"],
        json!({"name": "api", "port": {"number": 8080}})
    );
    assert!(
        created.contains("Content-Type: application/vnd.kubernetes.protobuf")
            || created.contains("201 Created"),
        "{created}"
    );
    // Protobuf back and forth keeps the rule's inlined `http`.
    const PB: &str = "application/vnd.kubernetes.protobuf";
    let at = "/apis/networking.k8s.io/v1/namespaces/default/ingresses/shop";
    let pb = s.request("GET", at, &[("Accept", PB)], None);
    assert_eq!(pb.status, 200);
    let put = s.request(
        "PUT",
        at,
        &[("Content-Type", PB), ("Accept", "application/json")],
        Some(&pb.body),
    );
    assert_eq!(put.status, 200, "{}", put.text());
    assert_eq!(put.json()["spec"], ing["spec"]);

    let (refused, out) = kubectl(
        &s,
        &["create", "ingress", "bad", "--rule=bad.example.com/=svc:0"],
        None,
    );
    assert!(!refused, "{out}");

    ok(
        &s,
        &[
            "create",
            "pdb",
            "web",
            "--selector=app=web",
            "--min-available=1",
        ],
        None,
    );
    let pdb = json_of(&s, &["get", "pdb", "web"]);
    assert_eq!(pdb["spec"]["minAvailable"], 1);
    let (both, out) = kubectl(
        &s,
        &["apply", "-f", "-"],
        Some(
            "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: both}\nspec: {minAvailable: 1, maxUnavailable: 1}\n",
        ),
    );
    assert!(
        !both && out.contains("minAvailable and maxUnavailable cannot be both set"),
        "{out}"
    );

    ok(
        &s,
        &[
            "create",
            "priorityclass",
            "high",
            "--value=1000",
            "--description=important",
        ],
        None,
    );
    let pc = json_of(&s, &["get", "pc", "high"]);
    assert_eq!(pc["preemptionPolicy"], "PreemptLowerPriority");
    let (too_high, out) = kubectl(
        &s,
        &["create", "priorityclass", "huge", "--value=2000000000"],
        None,
    );
    assert!(
        !too_high && out.contains("maximum allowed value of a user defined priority is 1000000000"),
        "{out}"
    );

    ok(
        &s,
        &["create", "deployment", "web", "--image=nginx:1.27"],
        None,
    );
    ok(
        &s,
        &[
            "autoscale",
            "deployment",
            "web",
            "--min=2",
            "--max=5",
            "--cpu-percent=60",
        ],
        None,
    );
    let hpa = s
        .get("/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web")
        .json();
    assert_eq!(hpa["spec"]["minReplicas"], 2, "{hpa}");
    assert_eq!(hpa["spec"]["scaleTargetRef"]["name"], "web");

    let explain = ok(&s, &["explain", "ingress.spec.rules"], None);
    assert!(
        explain.contains("KIND:") && explain.contains("Ingress") && explain.contains("http"),
        "{explain}"
    );
}

#[test]
fn the_system_priority_classes_exist_at_start() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    wait_until("the system priority classes", || {
        s.get("/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical")
            .status
            == 200
    });
    let node = s
        .get("/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical")
        .json();
    assert_eq!(node["value"], 2_000_001_000);
    let cluster = s
        .get("/apis/scheduling.k8s.io/v1/priorityclasses/system-cluster-critical")
        .json();
    assert_eq!(cluster["value"], 2_000_000_000);
    let mut impostor = json!({"metadata": {"name": "system-mine"}, "value": 5});
    let refused = s.post("/apis/scheduling.k8s.io/v1/priorityclasses", &impostor);
    assert_eq!(refused.status, 422, "{}", refused.text());
    impostor["metadata"]["name"] = json!("mine");
    assert_eq!(
        s.post("/apis/scheduling.k8s.io/v1/priorityclasses", &impostor)
            .status,
        201
    );
}

const PODS: &str = "/api/v1/namespaces/default/pods";
const PDBS: &str = "/apis/policy/v1/namespaces/default/poddisruptionbudgets";

fn running_pod(s: &Server, name: &str) {
    let pod = json!({"metadata": {"name": name, "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "busybox"}], "nodeName": "n1", "terminationGracePeriodSeconds": 0}});
    assert_eq!(s.post(PODS, &pod).status, 201);
    let mut current = s.get(&format!("{PODS}/{name}")).json();
    current["status"] =
        json!({"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]});
    let put = s.put(&format!("{PODS}/{name}/status"), &current);
    assert_eq!(put.status, 200, "{}", put.text());
}

fn evict(s: &Server, name: &str) -> cairn_tests::Response {
    s.post(
        &format!("{PODS}/{name}/eviction"),
        &json!({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": "default"}}),
    )
}

#[test]
fn eviction_honours_the_pods_disruption_budget() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    running_pod(&s, "a");
    running_pod(&s, "b");
    let pdb = json!({"metadata": {"name": "web"}, "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}}});
    assert_eq!(s.post(PDBS, &pdb).status, 201);
    // No disruption controller: the budget's status is what a client writes.
    let mut budget = s.get(&format!("{PDBS}/web")).json();
    budget["status"] = json!({"observedGeneration": 1, "disruptionsAllowed": 0, "currentHealthy": 2,
        "desiredHealthy": 2, "expectedPods": 2});
    assert_eq!(s.put(&format!("{PDBS}/web/status"), &budget).status, 200);

    let blocked = evict(&s, "a");
    assert_eq!(blocked.status, 429, "{}", blocked.text());
    let status = blocked.json();
    assert_eq!(status["reason"], "TooManyRequests");
    assert_eq!(
        status["message"],
        "Cannot evict pod as it would violate the pod's disruption budget."
    );
    assert_eq!(
        status["details"]["causes"][0],
        json!({"reason": "DisruptionBudget", "message": "The disruption budget web needs 2 healthy pods and has 2 currently"})
    );
    assert_eq!(s.get(&format!("{PODS}/a")).status, 200, "the pod stays");

    let mut budget = s.get(&format!("{PDBS}/web")).json();
    budget["status"]["disruptionsAllowed"] = json!(1);
    assert_eq!(s.put(&format!("{PDBS}/web/status"), &budget).status, 200);
    let allowed = evict(&s, "a");
    assert_eq!(allowed.status, 201, "{}", allowed.text());
    wait_until("the evicted pod to go", || {
        s.get(&format!("{PODS}/a")).status == 404
    });
    let spent = s.get(&format!("{PDBS}/web")).json();
    assert_eq!(spent["status"]["disruptionsAllowed"], 0);
    assert!(spent["status"]["disruptedPods"]["a"].is_string(), "{spent}");
    assert_eq!(evict(&s, "b").status, 429, "the budget is spent");

    // A pod no budget selects goes at once; so does one still pending.
    let lone = json!({"metadata": {"name": "lone", "labels": {"app": "other"}},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]}});
    assert_eq!(s.post(PODS, &lone).status, 201);
    assert_eq!(evict(&s, "lone").status, 201);
}

#[test]
fn an_empty_budget_selector_covers_every_pod_of_the_namespace() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    running_pod(&s, "a");
    let pdb = json!({"metadata": {"name": "all"}, "spec": {"maxUnavailable": 0, "selector": {}}});
    assert_eq!(s.post(PDBS, &pdb).status, 201);
    let mut budget = s.get(&format!("{PDBS}/all")).json();
    budget["status"] = json!({"observedGeneration": 1, "disruptionsAllowed": 0, "currentHealthy": 1,
        "desiredHealthy": 1, "expectedPods": 1});
    assert_eq!(s.put(&format!("{PDBS}/all/status"), &budget).status, 200);
    assert_eq!(evict(&s, "a").status, 429);
}

#[test]
fn python_client_networking_policy_and_autoscaling_apis() {
    run_python_script("kinds_more.py", &["--api-domain", "k8s.io"]);
}
