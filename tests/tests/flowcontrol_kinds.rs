//! `flowcontrol.apiserver.k8s.io/v1` on the real binary: the default API
//! Priority and Fairness objects exist after start (as kubectl lists
//! them), defaults as kube 1.32 applies them (an explicit 0 share stays 0),
//! the `Dangling` condition kubectl shows as MissingPL,
//! kube's validation errors, and the start-up hook restoring auto-updated
//! specs while leaving objects users took over alone.

use cairn_tests::clients::{kubectl, kubectl_present};
use cairn_tests::{Server, wait_until};
use serde_json::{Value, json};

const GROUP: &str = "/apis/flowcontrol.apiserver.k8s.io/v1";

fn start() -> Server {
    Server::start(&["--api-domain", "k8s.io"])
}

fn levels() -> String {
    format!("{GROUP}/prioritylevelconfigurations")
}

fn schemas() -> String {
    format!("{GROUP}/flowschemas")
}

fn names(server: &Server, path: &str) -> Vec<String> {
    let list = server.get(path).json();
    let mut names: Vec<String> = list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["metadata"]["name"].as_str().expect("name").to_string())
        .collect();
    names.sort();
    names
}

fn level(name: &str, limited: &Value) -> Value {
    json!({"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration",
           "metadata": {"name": name}, "spec": {"type": "Limited", "limited": limited}})
}

#[test]
fn the_default_configuration_is_there_with_its_annotation() {
    let server = start();
    assert_eq!(
        names(&server, &levels()),
        [
            "catch-all",
            "exempt",
            "global-default",
            "leader-election",
            "node-high",
            "system",
            "workload-high",
            "workload-low"
        ]
    );
    let schemas = names(&server, &schemas());
    assert_eq!(schemas.len(), 13, "{schemas:?}");
    for name in [
        "exempt",
        "catch-all",
        "probes",
        "system-nodes",
        "global-default",
    ] {
        assert!(schemas.iter().any(|s| s == name), "{name} in {schemas:?}");
    }
    let exempt = server.get(&format!("{GROUP}/flowschemas/exempt")).json();
    assert_eq!(
        exempt["metadata"]["annotations"]["apf.kubernetes.io/autoupdate-spec"],
        "true"
    );
    assert_eq!(exempt["spec"]["matchingPrecedence"], 1);
    let catch_all = server
        .get(&format!("{GROUP}/prioritylevelconfigurations/catch-all"))
        .json();
    assert_eq!(
        catch_all["spec"]["limited"],
        json!({"nominalConcurrencyShares": 5, "lendablePercent": 0, "limitResponse": {"type": "Reject"}})
    );

    if !kubectl_present() {
        return;
    }
    let (ok, out) = kubectl(&server, &["get", "flowschemas"], None);
    assert!(ok, "{out}");
    let header: Vec<&str> = out
        .lines()
        .next()
        .expect("header")
        .split_whitespace()
        .collect();
    assert_eq!(
        header,
        [
            "NAME",
            "PRIORITYLEVEL",
            "MATCHINGPRECEDENCE",
            "DISTINGUISHERMETHOD",
            "AGE",
            "MISSINGPL"
        ]
    );
    let row = |name: &str| -> Vec<String> {
        out.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name} in {out}"))
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    assert_eq!(row("exempt")[1..4], ["exempt", "1", "<none>"]);
    assert_eq!(row("catch-all")[1..4], ["catch-all", "10000", "ByUser"]);
    let (ok, out) = kubectl(&server, &["get", "prioritylevelconfigurations"], None);
    assert!(ok, "{out}");
    let workload_low: Vec<&str> = out
        .lines()
        .find(|l| l.starts_with("workload-low "))
        .expect("workload-low")
        .split_whitespace()
        .collect();
    assert_eq!(
        workload_low[..6],
        ["workload-low", "Limited", "100", "128", "6", "50"]
    );
    assert!(
        out.lines()
            .next()
            .expect("header")
            .contains("NOMINALCONCURRENCYSHARES")
    );
}

#[test]
fn shares_default_to_30_only_when_unspecified() {
    let server = start();
    let unset = level(
        "unset",
        &json!({"limitResponse": {"type": "Queue", "queuing": {}}}),
    );
    let r = server.post(&levels(), &unset);
    assert_eq!(r.status, 201, "{}", r.text());
    let limited = &r.json()["spec"]["limited"];
    assert_eq!(limited["nominalConcurrencyShares"], 30);
    assert_eq!(limited["lendablePercent"], 0);
    assert_eq!(
        limited["limitResponse"]["queuing"],
        json!({"queues": 64, "handSize": 8, "queueLengthLimit": 50})
    );

    let zero = level(
        "zero",
        &json!({"nominalConcurrencyShares": 0, "limitResponse": {"type": "Reject"}}),
    );
    let r = server.post(&levels(), &zero);
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["spec"]["limited"]["nominalConcurrencyShares"], 0);
    let stored = server.get(&format!("{}/zero", levels())).json();
    assert_eq!(stored["spec"]["limited"]["nominalConcurrencyShares"], 0);

    let schema = json!({"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
        "metadata": {"name": "mine"},
        "spec": {"priorityLevelConfiguration": {"name": "zero"},
                 "rules": [{"subjects": [{"kind": "User", "user": {"name": "alice"}}],
                            "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/version"]}]}]}});
    let r = server.post(&schemas(), &schema);
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["spec"]["matchingPrecedence"], 1000);
}

#[test]
fn invalid_objects_are_refused_in_kube_words() {
    let server = start();
    let crowded = level(
        "crowded",
        &json!({"limitResponse": {"type": "Queue", "queuing": {"queues": 4, "handSize": 5}}}),
    );
    let r = server.post(&levels(), &crowded);
    assert_eq!(r.status, 422, "{}", r.text());
    let status = r.json();
    assert_eq!(status["reason"], "Invalid");
    assert_eq!(
        status["message"],
        "PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io \"crowded\" is invalid: spec.limited.limitResponse.queuing.handSize: Invalid value: 5: should not be greater than queues (4)"
    );

    let early = json!({"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
        "metadata": {"name": "early"},
        "spec": {"priorityLevelConfiguration": {"name": "global-default"}, "matchingPrecedence": 1,
                 "rules": [{"subjects": [{"kind": "Group", "group": {"name": "g"}}],
                            "resourceRules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]}]}});
    let r = server.post(&schemas(), &early);
    assert_eq!(r.status, 422);
    let message = r.json()["message"].as_str().expect("message").to_string();
    assert!(
        message.contains("spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1"),
        "{message}"
    );
    assert!(
        message.contains("spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace"),
        "{message}"
    );

    let path = format!("{}/catch-all", levels());
    let mut catch_all = server.get(&path).json();
    catch_all["spec"]["limited"]["nominalConcurrencyShares"] = json!(50);
    let r = server.put(&path, &catch_all);
    assert_eq!(r.status, 422);
    assert!(
        r.text()
            .contains("spec of 'catch-all' must equal the fixed value"),
        "{}",
        r.text()
    );
}

#[test]
fn restarts_restore_auto_updated_specs_and_keep_taken_over_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let mut server = Server::start_on(&data, &["--api-domain", "k8s.io"]);
    let system = format!("{}/system", levels());
    let mut obj = server.get(&system).json();
    obj["spec"]["limited"]["nominalConcurrencyShares"] = json!(7);
    assert_eq!(server.put(&system, &obj).status, 200);
    let workload = format!("{}/workload-low", levels());
    let mut obj = server.get(&workload).json();
    obj["spec"]["limited"]["nominalConcurrencyShares"] = json!(7);
    obj["metadata"]["annotations"]["apf.kubernetes.io/autoupdate-spec"] = json!("false");
    assert_eq!(server.put(&workload, &obj).status, 200);
    server.stop();

    let server = Server::start_on(&data, &["--api-domain", "k8s.io"]);
    wait_until("the system level restored", || {
        server.get(&system).json()["spec"]["limited"]["nominalConcurrencyShares"] == 30
    });
    assert_eq!(
        server.get(&workload).json()["spec"]["limited"]["nominalConcurrencyShares"],
        7
    );
}

/// The `Dangling` condition (kubectl's MissingPL) of a schema.
fn dangling(server: &Server, name: &str) -> Value {
    let obj = server.get(&format!("{}/{name}", schemas())).json();
    obj["status"]["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == "Dangling"))
        .map_or(Value::Null, |c| c["status"].clone())
}

#[test]
fn schemas_say_whether_their_priority_level_exists() {
    let server = start();
    wait_until("exempt found", || dangling(&server, "exempt") == "False");
    let lost = json!({"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
        "metadata": {"name": "lost"},
        "spec": {"priorityLevelConfiguration": {"name": "later"}, "rules": []}});
    assert_eq!(server.post(&schemas(), &lost).status, 201);
    wait_until("lost dangling", || dangling(&server, "lost") == "True");
    let later = level("later", &json!({"limitResponse": {"type": "Reject"}}));
    assert_eq!(server.post(&levels(), &later).status, 201);
    wait_until("lost found", || dangling(&server, "lost") == "False");
    let status = server.get(&format!("{}/lost", schemas())).json()["status"].clone();
    assert_eq!(
        status["conditions"][0]["message"],
        "This FlowSchema references the PriorityLevelConfiguration object named \"later\" and it exists"
    );
}
