//! What kube-apiserver allocates for Services, through kubectl and HTTP:
//! cluster IPs from `--service-cluster-ip-range`, node ports from
//! `--service-node-port-range`, refusals with kube's messages, release on
//! delete, allocations kept across restarts and distinct under concurrent
//! creates, and the `kubernetes` Service in `default`.

use std::collections::HashSet;
use std::net::Ipv4Addr;

use cairn_tests::{Server, kubectl, kubectl_present, wait_until};
use serde_json::{Value, json};

const SERVICES: &str = "/api/v1/namespaces/default/services";

fn service(name: &str, spec: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec})
}

fn create(s: &Server, name: &str, spec: Value) -> Value {
    let r = s.post(SERVICES, &service(name, spec));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    r.json()
}

fn in_range(ip: &str, base: [u8; 4], prefix: u32) -> bool {
    let ip: Ipv4Addr = ip.parse().expect("an IPv4 address");
    let mask = u32::MAX << (32 - prefix);
    u32::from(ip) & mask == u32::from(Ipv4Addr::from(base))
}

#[test]
fn kubectl_create_service_shows_cluster_ips_and_node_ports() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start(&[]);
    let (ok, out) = kubectl(
        &s,
        &["create", "service", "clusterip", "web", "--tcp=80:8080"],
        None,
    );
    assert!(ok, "{out}");
    let (ok, out) = kubectl(
        &s,
        &["create", "service", "nodeport", "edge", "--tcp=443:8443"],
        None,
    );
    assert!(ok, "{out}");
    let (ok, out) = kubectl(&s, &["get", "svc", "web", "edge", "-o", "json"], None);
    assert!(ok, "{out}");
    let list: Value = serde_json::from_str(&out).expect("json");
    let items = list["items"].as_array().expect("items");
    for svc in items {
        let ip = svc["spec"]["clusterIP"].as_str().expect("a cluster IP");
        assert!(in_range(ip, [10, 0, 0, 0], 24), "{ip}");
        assert_eq!(svc["spec"]["clusterIPs"], json!([ip]));
        assert_eq!(svc["spec"]["ipFamilies"], json!(["IPv4"]));
        assert_eq!(svc["spec"]["ipFamilyPolicy"], "SingleStack");
    }
    let node_port = items[1]["spec"]["ports"][0]["nodePort"]
        .as_i64()
        .expect("a node port");
    assert!((30000..=32767).contains(&node_port));
    let (ok, table) = kubectl(&s, &["get", "svc", "web", "edge"], None);
    assert!(ok, "{table}");
    let web_ip = items[0]["spec"]["clusterIP"].as_str().unwrap();
    assert!(table.contains(web_ip), "{table}");
    assert!(table.contains(&format!("443:{node_port}/TCP")), "{table}");
    // A requested address that is taken: kube's 422 and message.
    let (ok, out) = kubectl(
        &s,
        &[
            "create",
            "service",
            "clusterip",
            "again",
            "--tcp=80",
            &format!("--clusterip={web_ip}"),
        ],
        None,
    );
    assert!(!ok);
    assert!(
        out.contains(&format!(
            "spec.clusterIPs: Invalid value: []string{{\"{web_ip}\"}}: failed to allocate IP {web_ip}: provided IP is already allocated"
        )),
        "{out}"
    );
}

#[test]
fn requests_are_honoured_or_refused_with_kube_messages() {
    let s = Server::start(&[
        "--service-cluster-ip-range",
        "10.96.0.0/24",
        "--service-node-port-range",
        "31000-31010",
    ]);
    let a = create(
        &s,
        "a",
        json!({"type": "NodePort", "clusterIP": "10.96.0.20", "ports": [{"port": 80, "nodePort": 31005}]}),
    );
    assert_eq!(a["spec"]["clusterIPs"], json!(["10.96.0.20"]));
    assert_eq!(a["spec"]["ports"][0]["nodePort"], 31005);
    let cases = [
        (
            json!({"clusterIP": "10.96.0.20", "ports": [{"port": 80}]}),
            "spec.clusterIPs: Invalid value: []string{\"10.96.0.20\"}: failed to allocate IP 10.96.0.20: provided IP is already allocated",
        ),
        (
            json!({"clusterIP": "10.0.0.5", "ports": [{"port": 80}]}),
            "spec.clusterIPs: Invalid value: []string{\"10.0.0.5\"}: failed to allocate IP 10.0.0.5: the provided IP (10.0.0.5) is not in the valid range. The range of valid IPs is 10.96.0.0/24",
        ),
        (
            json!({"type": "NodePort", "ports": [{"port": 80, "nodePort": 31005}]}),
            "spec.ports[0].nodePort: Invalid value: 31005: provided port is already allocated",
        ),
        (
            json!({"type": "NodePort", "ports": [{"port": 80, "nodePort": 30000}]}),
            "spec.ports[0].nodePort: Invalid value: 30000: provided port is not in the valid range. The range of valid ports is 31000-31010",
        ),
    ];
    for (spec, message) in cases {
        let r = s.post(SERVICES, &service("b", spec));
        let status = r.json();
        assert_eq!(r.status, 422, "{status}");
        assert_eq!(status["reason"], "Invalid");
        assert_eq!(
            status["message"],
            format!("Service \"b\" is invalid: {message}")
        );
    }
    // The cluster IP never changes once set.
    let mut moved = a.clone();
    moved["spec"]["clusterIP"] = json!("10.96.0.21");
    let r = s.put(&format!("{SERVICES}/a"), &moved);
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json()["message"],
        "Service \"a\" is invalid: spec.clusterIPs[0]: Invalid value: []string{\"10.96.0.21\"}: may not change once set"
    );
    // Headless and ExternalName services get no address.
    let headless = create(
        &s,
        "h",
        json!({"clusterIP": "None", "selector": {"app": "h"}, "ports": [{"port": 80}]}),
    );
    assert_eq!(headless["spec"]["clusterIPs"], json!(["None"]));
    let external = create(
        &s,
        "e",
        json!({"type": "ExternalName", "externalName": "db.example.com"}),
    );
    assert!(external["spec"].get("clusterIP").is_none());
    // Deleting a Service gives its node port and address back.
    assert_eq!(s.delete(&format!("{SERVICES}/a")).status, 200);
    let reused = create(
        &s,
        "c",
        json!({"type": "NodePort", "clusterIP": "10.96.0.20", "ports": [{"port": 80, "nodePort": 31005}]}),
    );
    assert_eq!(reused["spec"]["ports"][0]["nodePort"], 31005);
}

#[test]
fn a_small_range_fills_up_and_deletes_free_addresses() {
    // A /29 has six addresses; the kubernetes service holds the first.
    let s = Server::start(&["--service-cluster-ip-range", "10.10.0.0/29"]);
    wait_until("the kubernetes service", || {
        s.get(&format!("{SERVICES}/kubernetes")).status == 200
    });
    let made: Vec<Value> = (0..5)
        .map(|i| create(&s, &format!("s{i}"), json!({"ports": [{"port": 80}]})))
        .collect();
    let ips: HashSet<&str> = made
        .iter()
        .map(|m| m["spec"]["clusterIP"].as_str().unwrap())
        .collect();
    assert_eq!(ips.len(), 5);
    let r = s.post(SERVICES, &service("full", json!({"ports": [{"port": 80}]})));
    assert_eq!(r.status, 500);
    assert_eq!(
        r.json()["message"],
        "Internal error occurred: failed to allocate a serviceIP: range is full"
    );
    assert_eq!(s.delete(&format!("{SERVICES}/s3")).status, 200);
    let again = create(&s, "full", json!({"ports": [{"port": 80}]}));
    assert_eq!(again["spec"]["clusterIP"], made[3]["spec"]["clusterIP"]);
}

#[test]
fn allocations_survive_a_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let flags = ["--service-cluster-ip-range", "10.20.0.0/24"];
    let mut s = Server::start_on(&data, &flags);
    let a = create(
        &s,
        "a",
        json!({"type": "NodePort", "ports": [{"port": 80}]}),
    );
    let ip = a["spec"]["clusterIP"].as_str().unwrap().to_string();
    let port = a["spec"]["ports"][0]["nodePort"].as_i64().unwrap();
    s.stop();
    let s = Server::start_on(&data, &flags);
    let r = s.post(
        SERVICES,
        &service("b", json!({"clusterIP": ip, "ports": [{"port": 80}]})),
    );
    assert_eq!(r.status, 422, "{}", String::from_utf8_lossy(&r.body));
    let r = s.post(
        SERVICES,
        &service(
            "c",
            json!({"type": "NodePort", "ports": [{"port": 80, "nodePort": port}]}),
        ),
    );
    assert_eq!(r.status, 422, "{}", String::from_utf8_lossy(&r.body));
}

#[test]
fn concurrent_creates_get_distinct_addresses() {
    let s = Server::start(&["--service-cluster-ip-range", "10.30.0.0/27"]);
    let ips: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..20)
            .map(|i| {
                let s = &s;
                scope.spawn(move || {
                    let made = create(
                        s,
                        &format!("c{i}"),
                        json!({"type": "NodePort", "ports": [{"port": 80}]}),
                    );
                    format!(
                        "{} {}",
                        made["spec"]["clusterIP"].as_str().unwrap(),
                        made["spec"]["ports"][0]["nodePort"]
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("thread"))
            .collect()
    });
    let addresses: HashSet<&str> = ips.iter().map(|l| l.split(' ').next().unwrap()).collect();
    let ports: HashSet<&str> = ips.iter().map(|l| l.split(' ').nth(1).unwrap()).collect();
    assert_eq!(addresses.len(), 20, "{ips:?}");
    assert_eq!(ports.len(), 20, "{ips:?}");
}

#[test]
fn the_kubernetes_service_is_kept() {
    let s = Server::start(&["--service-cluster-ip-range", "10.40.0.0/24"]);
    let path = format!("{SERVICES}/kubernetes");
    wait_until("the kubernetes service", || s.get(&path).status == 200);
    let svc = s.get(&path).json();
    assert_eq!(svc["spec"]["clusterIP"], "10.40.0.1");
    assert_eq!(svc["spec"]["ports"][0]["port"], 443);
    assert_eq!(svc["spec"]["ports"][0]["name"], "https");
    assert_eq!(svc["metadata"]["labels"]["component"], "apiserver");
    let uid = svc["metadata"]["uid"].clone();
    assert_eq!(s.delete(&path).status, 200);
    wait_until("the kubernetes service again", || {
        let r = s.get(&path);
        r.status == 200 && r.json()["metadata"]["uid"] != uid
    });
    assert_eq!(s.get(&path).json()["spec"]["clusterIP"], "10.40.0.1");
}

#[test]
fn kubectl_apply_keeps_what_was_allocated() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start(&[]);
    let manifest = |label: &str| {
        format!(
            "apiVersion: v1\nkind: Service\nmetadata: {{name: web, labels: {{tier: {label}}}}}\nspec:\n  type: NodePort\n  selector: {{app: web}}\n  ports: [{{port: 80, targetPort: 8080}}]\n"
        )
    };
    let (ok, out) = kubectl(&s, &["apply", "-f", "-"], Some(&manifest("a")));
    assert!(ok, "{out}");
    let first = s.get(&format!("{SERVICES}/web")).json();
    let (ok, out) = kubectl(&s, &["apply", "-f", "-"], Some(&manifest("b")));
    assert!(ok, "{out}");
    let second = s.get(&format!("{SERVICES}/web")).json();
    assert_eq!(second["metadata"]["labels"]["tier"], "b");
    assert_eq!(second["spec"]["clusterIP"], first["spec"]["clusterIP"]);
    assert_eq!(
        second["spec"]["ports"][0]["nodePort"],
        first["spec"]["ports"][0]["nodePort"]
    );
    // kubectl replace sends the object without the allocated values.
    let (ok, out) = kubectl(&s, &["replace", "-f", "-"], Some(&manifest("c")));
    assert!(ok, "{out}");
    let third = s.get(&format!("{SERVICES}/web")).json();
    assert_eq!(third["spec"]["clusterIP"], first["spec"]["clusterIP"]);
    assert_eq!(
        third["spec"]["ports"][0]["nodePort"],
        first["spec"]["ports"][0]["nodePort"]
    );
}

#[test]
fn bad_ranges_stop_the_start_with_one_line() {
    for (flag, value) in [
        ("--service-cluster-ip-range", "10.0.0.0/8"),
        ("--service-cluster-ip-range", "10.0.0.1/24"),
        ("--service-node-port-range", "32767-30000"),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = std::process::Command::new(cairn_tests::binary())
            .arg("--data-dir")
            .arg(dir.path().join("data"))
            .args(["--secure-port", "0", "--insecure-port", "0", flag, value])
            .output()
            .expect("run cairn-apiserver");
        assert!(!out.status.success(), "{flag} {value} accepted");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(flag), "{stderr}");
        assert!(!dir.path().join("data").exists(), "nothing written");
    }
}
