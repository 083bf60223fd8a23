//! More of issue #25's corrections, on the real binary: a list's
//! `timeoutSeconds` bounds it (504 Timeout), CEL rules see set and map
//! lists as Kubernetes does, and behaviour nothing checked before: dry-run
//! PUT, pretty-printing chosen by the User-Agent, a CRD's selectable
//! fields, CBOR bodies for custom resources, `--livez-grace-period`, a
//! watch from a resourceVersion not reached yet, and removed API versions.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use cairn_tests::{Server, wait_until};
use serde_json::{Value, json};

const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";
const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const GADGETS: &str = "/apis/example.com/v1/namespaces/default/gadgets";

/// An authorization webhook allowing everyone, whose reviews for user
/// `slow` are held until `release`.
struct Gate {
    url: String,
    released: Arc<(Mutex<bool>, Condvar)>,
}

impl Gate {
    fn start() -> Gate {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!(
            "http://127.0.0.1:{}/authorize",
            listener.local_addr().expect("addr").port()
        );
        let released = Arc::new((Mutex::new(false), Condvar::new()));
        let shared = Arc::clone(&released);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || review(stream, &shared));
            }
        });
        Gate { url, released }
    }

    fn release(&self) {
        let (lock, changed) = &*self.released;
        *lock.lock().expect("lock") = true;
        changed.notify_all();
    }
}

fn review(stream: TcpStream, released: &(Mutex<bool>, Condvar)) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut writer = stream;
    loop {
        let mut length = 0usize;
        let mut line = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let asked: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        if asked["spec"]["user"] == "slow" {
            let (lock, changed) = released;
            let mut open = lock.lock().expect("lock");
            while !*open {
                open = changed.wait(open).expect("wait");
            }
        }
        let answer = json!({"apiVersion": asked["apiVersion"], "kind": "SubjectAccessReview",
            "status": {"allowed": true}})
        .to_string();
        let response = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{answer}",
            answer.len()
        );
        if writer.write_all(response.as_bytes()).is_err() {
            return;
        }
    }
}

/// A secure server authorizing through `gate` (never cached), with users
/// `slow` and `alice`.
fn gated_server(dir: &Path, gate: &Gate) -> Server {
    let tokens = dir.join("tokens.csv");
    std::fs::write(&tokens, "slow-token,slow,1\nalice-token,alice,2\n").expect("tokens");
    let kubeconfig = dir.join("gate.kubeconfig");
    let doc = json!({
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "gate", "cluster": {"server": gate.url}}],
        "contexts": [{"name": "gate", "context": {"cluster": "gate"}}],
        "current-context": "gate"
    });
    std::fs::write(&kubeconfig, doc.to_string()).expect("kubeconfig");
    // The webhook's own timeout is far beyond the lists' timeoutSeconds: a
    // list not bounded by it would end 403 (failure policy), not 504.
    let config = json!({
        "apiVersion": "apiserver.config.k8s.io/v1",
        "kind": "AuthorizationConfiguration",
        "authorizers": [{
            "type": "Webhook", "name": "gate",
            "webhook": {
                "timeout": "30s", "authorizedTTL": "1ns", "unauthorizedTTL": "1ns",
                "cacheAuthorizedRequests": false, "cacheUnauthorizedRequests": false,
                "subjectAccessReviewVersion": "v1",
                "matchConditionSubjectAccessReviewVersion": "v1",
                "failurePolicy": "Deny",
                "connectionInfo": {"type": "KubeConfigFile",
                                   "kubeConfigFile": kubeconfig.to_str().expect("path")}
            }
        }]
    });
    let file = dir.join("authz.json");
    std::fs::write(&file, config.to_string()).expect("config");
    Server::start_secure(&[
        "--token-auth-file",
        tokens.to_str().expect("path"),
        "--authorization-config",
        file.to_str().expect("path"),
    ])
}

#[test]
fn a_list_is_bounded_by_its_timeout_seconds() {
    let gate = Gate::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let server = gated_server(dir.path(), &gate);
    let client = server.tls_client(None);
    let list = |token: &str, query: &str| {
        let bearer = format!("Bearer {token}");
        server.https(
            &client,
            "GET",
            &format!("{CONFIGMAPS}?{query}"),
            &[("Authorization", bearer.as_str())],
            None,
        )
    };
    assert_eq!(list("alice-token", "timeoutSeconds=1").status, 200);

    // The review of `slow` is held: the list's own time runs out first.
    let r = list("slow-token", "timeoutSeconds=1");
    assert_eq!(r.status, 504, "{}", r.text());
    let status = r.json();
    assert_eq!(status["kind"], "Status");
    assert_eq!(status["reason"], "Timeout");
    assert_eq!(status["code"], 504);
    assert_eq!(
        status["message"],
        "Timeout: request did not complete within the allotted timeout"
    );

    gate.release();
    assert_eq!(list("slow-token", "timeoutSeconds=30").status, 200);
    assert_eq!(list("slow-token", "timeoutSeconds=0").status, 200);
}

#[test]
fn a_dry_run_put_answers_as_if_stored_and_stores_nothing() {
    let s = Server::start(&[]);
    let created = s.post(
        CONFIGMAPS,
        &json!({"metadata": {"name": "dry"}, "data": {"a": "1"}}),
    );
    assert_eq!(created.status, 201, "{}", created.text());
    let before = created.json();
    let rv = before["metadata"]["resourceVersion"].clone();
    let mut watch = s.watch(&format!(
        "{CONFIGMAPS}?watch=true&resourceVersion={}&fieldSelector=metadata.name%3Ddry&timeoutSeconds=2",
        rv.as_str().expect("rv")
    ));
    watch.set_timeout(Duration::from_secs(30));

    let mut changed = before.clone();
    changed["data"] = json!({"a": "2", "b": "3"});
    changed["metadata"]["labels"] = json!({"l": "v"});
    let r = s.put(&format!("{CONFIGMAPS}/dry?dryRun=All"), &changed);
    assert_eq!(r.status, 200, "{}", r.text());
    let answer = r.json();
    assert_eq!(answer["data"], json!({"a": "2", "b": "3"}));
    assert_eq!(answer["metadata"]["labels"], json!({"l": "v"}));
    assert_eq!(answer["metadata"]["uid"], before["metadata"]["uid"]);
    assert_eq!(answer["metadata"]["resourceVersion"], rv);

    let stored = s.get(&format!("{CONFIGMAPS}/dry")).json();
    assert_eq!(stored["data"], json!({"a": "1"}));
    assert_eq!(stored["metadata"]["resourceVersion"], rv);
    assert!(stored["metadata"]["labels"].is_null());
    assert_eq!(watch.next_event(), None, "watchers see nothing");

    // A dry-run PUT is still validated and checked for conflicts.
    let mut stale = changed.clone();
    stale["metadata"]["resourceVersion"] = json!("1");
    assert_eq!(
        s.put(&format!("{CONFIGMAPS}/dry?dryRun=All"), &stale)
            .status,
        409
    );
    let mut invalid = changed;
    invalid["data"] = json!({"bad key!": "x"});
    assert_eq!(
        s.put(&format!("{CONFIGMAPS}/dry?dryRun=All"), &invalid)
            .status,
        422
    );
}

#[test]
fn pretty_printing_follows_the_user_agent_unless_asked() {
    let s = Server::start(&[]);
    let get = |ua: &str, query: &str| {
        s.request(
            "GET",
            &format!("/api/v1/namespaces/default{query}"),
            &[("User-Agent", ua)],
            None,
        )
        .text()
    };
    let pretty = |body: &str| body.starts_with("{\n  \"kind\": \"Namespace\"");
    for ua in [
        "curl/8.5.0",
        "Wget/1.21.4",
        "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0",
    ] {
        assert!(pretty(&get(ua, "")), "{ua}: {}", get(ua, ""));
        assert!(!pretty(&get(ua, "?pretty=false")), "{ua} with pretty=false");
        assert!(!pretty(&get(ua, "?pretty=0")), "{ua} with pretty=0");
        assert!(
            pretty(&get(ua, "?pretty=")),
            "{ua}: an empty pretty is no answer"
        );
    }
    for ua in [
        "kubectl/v1.32.0 (linux/amd64) kubernetes/abc",
        "python-requests/2.32",
        "mozilla/5.0",
        "",
    ] {
        let body = get(ua, "");
        assert!(
            !pretty(&body) && body.starts_with("{\"kind\":\"Namespace\""),
            "{ua}: {body}"
        );
        assert!(pretty(&get(ua, "?pretty=true")), "{ua} with pretty=true");
        assert!(pretty(&get(ua, "?pretty=1")), "{ua} with pretty=1");
        assert!(pretty(&get(ua, "?pretty=True")), "{ua} with pretty=True");
    }
    // The same object either way.
    let compact: Value = serde_json::from_str(&get("kubectl", "")).expect("json");
    let indented: Value = serde_json::from_str(&get("curl/8", "")).expect("json");
    assert_eq!(compact, indented);
}

fn established(s: &Server, name: &str) -> bool {
    let crd = s.get(&format!("{CRDS}/{name}")).json();
    crd["status"]["conditions"].as_array().is_some_and(|cs| {
        cs.iter()
            .any(|c| c["type"] == "Established" && c["status"] == "True")
    })
}

/// `gadgets.example.com`: a colour to select by, a set of tags equal to a
/// set of allowed ones (rule), and ports plus extra ports merging into at
/// most two (rule).
fn install_gadgets(s: &Server) {
    let string = json!({"type": "string", "maxLength": 20});
    let set =
        json!({"type": "array", "maxItems": 10, "x-kubernetes-list-type": "set", "items": string});
    let ports = json!({"type": "array", "maxItems": 10, "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
        "items": {"type": "object", "required": ["name"],
                  "properties": {"name": string, "port": {"type": "integer"}}}});
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {
            "group": "example.com", "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "selectableFields": [{"jsonPath": ".spec.color"}],
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
                    "type": "object",
                    "x-kubernetes-validations": [
                        {"rule": "!has(self.tags) || self.tags == self.allowed",
                         "message": "tags must be the allowed ones"},
                        {"rule": "!has(self.ports) || size(self.ports + self.extraPorts) <= 2",
                         "message": "at most two ports"}
                    ],
                    "properties": {"color": string, "tags": set, "allowed": set,
                                   "ports": ports, "extraPorts": ports}
                }}}}
            }]
        }
    });
    let r = s.post(CRDS, &crd);
    assert_eq!(r.status, 201, "{}", r.text());
    wait_until("gadgets to be established", || {
        established(s, "gadgets.example.com")
    });
}

fn gadget(name: &str, spec: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": name}, "spec": spec})
}

#[test]
fn rules_compare_sets_ignoring_order_and_merge_map_lists() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    install_gadgets(&s);
    let ok = s.post(
        GADGETS,
        &gadget(
            "g1",
            json!({"tags": ["a", "b", "c"], "allowed": ["c", "a", "b"]}),
        ),
    );
    assert_eq!(ok.status, 201, "{}", ok.text());
    let bad = s.post(
        GADGETS,
        &gadget("g2", json!({"tags": ["a", "b"], "allowed": ["b", "d"]})),
    );
    assert_eq!(bad.status, 422, "{}", bad.text());
    assert!(
        bad.text().contains("tags must be the allowed ones"),
        "{}",
        bad.text()
    );

    // `+` on map lists merges by key: http is replaced, not added.
    let merged = s.post(
        GADGETS,
        &gadget(
            "g3",
            json!({
                "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}],
                "extraPorts": [{"name": "http", "port": 8080}]
            }),
        ),
    );
    assert_eq!(merged.status, 201, "{}", merged.text());
    let more = s.post(
        GADGETS,
        &gadget(
            "g4",
            json!({
                "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}],
                "extraPorts": [{"name": "metrics", "port": 9090}]
            }),
        ),
    );
    assert_eq!(more.status, 422, "{}", more.text());
    assert!(more.text().contains("at most two ports"), "{}", more.text());
}

#[test]
fn field_selectors_use_a_crds_selectable_fields() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    install_gadgets(&s);
    for (name, color) in [("red-1", "red"), ("red-2", "red"), ("blue-1", "blue")] {
        let r = s.post(GADGETS, &gadget(name, json!({"color": color})));
        assert_eq!(r.status, 201, "{}", r.text());
    }
    assert_eq!(s.post(GADGETS, &gadget("none", json!({}))).status, 201);
    let names = |selector: &str| {
        let r = s.get(&format!("{GADGETS}?fieldSelector={selector}"));
        assert_eq!(r.status, 200, "{selector}: {}", r.text());
        let mut names: Vec<String> = r.json()["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|i| i["metadata"]["name"].as_str().expect("name").to_string())
            .collect();
        names.sort();
        names
    };
    assert_eq!(names("spec.color%3Dred"), ["red-1", "red-2"]);
    assert_eq!(names("spec.color%21%3Dred"), ["blue-1", "none"]);
    assert_eq!(names("spec.color%3Dred,metadata.name%3Dred-2"), ["red-2"]);
    let r = s.get(&format!("{GADGETS}?fieldSelector=spec.size%3D1"));
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["message"], "field label not supported: spec.size");

    // A watch filtered the same way.
    let mut watch = s.watch(&format!(
        "{GADGETS}?watch=true&fieldSelector=spec.color%3Dblue&timeoutSeconds=5"
    ));
    watch.set_timeout(Duration::from_secs(30));
    let first = watch.next_event().expect("the existing blue one");
    assert_eq!(first["object"]["metadata"]["name"], "blue-1");
    assert_eq!(
        s.post(GADGETS, &gadget("red-3", json!({"color": "red"})))
            .status,
        201
    );
    assert_eq!(
        s.post(GADGETS, &gadget("blue-2", json!({"color": "blue"})))
            .status,
        201
    );
    let next = watch.next_event().expect("the new blue one");
    assert_eq!(next["object"]["metadata"]["name"], "blue-2");
}

fn to_cbor(v: &Value) -> Vec<u8> {
    let mut out = vec![0xd9, 0xd9, 0xf7];
    ciborium::into_writer(v, &mut out).expect("cbor");
    out
}

fn from_cbor(bytes: &[u8]) -> Value {
    assert_eq!(&bytes[..3], &[0xd9, 0xd9, 0xf7], "self-described CBOR");
    let item: ciborium::Value = ciborium::from_reader(&bytes[3..]).expect("cbor");
    item.deserialized().expect("a JSON-like item")
}

#[test]
fn custom_resources_take_and_give_cbor() {
    let s = Server::start(&[
        "--api-domain",
        "k8s.io",
        "--feature-gates",
        "CBORServingAndStorage=true",
    ]);
    install_gadgets(&s);
    let cbor = [
        ("Content-Type", "application/cbor"),
        ("Accept", "application/cbor"),
    ];
    let body = gadget(
        "c1",
        json!({"color": "green", "tags": ["x"], "allowed": ["x"]}),
    );
    let created = s.request("POST", GADGETS, &cbor, Some(&to_cbor(&body)));
    assert_eq!(created.status, 201, "{}", created.text());
    assert_eq!(created.header("content-type"), Some("application/cbor"));
    let created = from_cbor(&created.body);
    assert_eq!(created["spec"]["color"], "green");
    assert_eq!(created["kind"], "Gadget");

    let got = s.request(
        "GET",
        &format!("{GADGETS}/c1"),
        &[("Accept", "application/cbor")],
        None,
    );
    assert_eq!(got.status, 200);
    assert_eq!(from_cbor(&got.body), s.get(&format!("{GADGETS}/c1")).json());

    // A CBOR update, answered in JSON; then a rule still applies to CBOR.
    let mut update = created.clone();
    update["spec"]["color"] = json!("teal");
    let r = s.request(
        "PUT",
        &format!("{GADGETS}/c1"),
        &[("Content-Type", "application/cbor")],
        Some(&to_cbor(&update)),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["spec"]["color"], "teal");
    let bad = gadget("c2", json!({"tags": ["x"], "allowed": ["y"]}));
    let r = s.request("POST", GADGETS, &cbor, Some(&to_cbor(&bad)));
    assert_eq!(r.status, 422);
    let status = from_cbor(&r.body);
    assert_eq!(status["kind"], "Status");
    assert_eq!(status["reason"], "Invalid");
}

#[test]
fn livez_grace_period_is_a_duration_flag() {
    let s = Server::start(&["--livez-grace-period", "1h30m"]);
    let r = s.get("/livez?verbose");
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains("livez check passed"), "{}", r.text());
    drop(s);

    let dir = tempfile::tempdir().expect("tempdir");
    let out = Command::new(cairn_tests::binary())
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .args(["--secure-port", "0", "--insecure-port", "0"])
        .args(["--livez-grace-period", "soon"])
        .output()
        .expect("run cairn-apiserver");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--livez-grace-period"), "{stderr}");
    assert!(!dir.path().join("data").exists(), "nothing written");
}

#[test]
fn a_watch_from_a_resource_version_not_reached_yet_waits_until_its_timeout() {
    let s = Server::start(&[]);
    let list = s.get(CONFIGMAPS).json();
    let current: u64 = list["metadata"]["resourceVersion"]
        .as_str()
        .expect("rv")
        .parse()
        .expect("number");
    let ahead = current + 1_000_000;
    let mut watch = s.watch(&format!(
        "{CONFIGMAPS}?watch=true&resourceVersion={ahead}&timeoutSeconds=1"
    ));
    assert_eq!(watch.status, 200);
    watch.set_timeout(Duration::from_secs(60));
    let created = s.post(CONFIGMAPS, &json!({"metadata": {"name": "later"}}));
    assert_eq!(created.status, 201);
    // No error event and no event below the asked version: the stream
    // just ends when its time is up.
    assert_eq!(watch.next_event(), None);
    assert!(watch.ended(), "the server ended the stream");

    // A get or list asking for that version is refused instead.
    let r = s.get(&format!(
        "{CONFIGMAPS}?resourceVersion={ahead}&resourceVersionMatch=NotOlderThan"
    ));
    assert_eq!(r.status, 504, "{}", r.text());
    assert_eq!(
        r.json()["details"]["causes"][0]["reason"],
        "ResourceVersionTooLarge"
    );
}

#[test]
fn removed_api_versions_answer_404() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let removed = [
        "/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas",
        "/apis/flowcontrol.apiserver.k8s.io/v1beta2/prioritylevelconfigurations",
        "/apis/flowcontrol.apiserver.k8s.io/v1beta1/flowschemas",
        "/apis/storage.k8s.io/v1beta1/namespaces/default/csistoragecapacities",
        "/apis/autoscaling/v2beta2/namespaces/default/horizontalpodautoscalers",
        "/apis/autoscaling/v2beta1/namespaces/default/horizontalpodautoscalers",
        "/apis/batch/v1beta1/namespaces/default/cronjobs",
        "/apis/discovery.k8s.io/v1beta1/namespaces/default/endpointslices",
        "/apis/events.k8s.io/v1beta1/namespaces/default/events",
        "/apis/policy/v1beta1/namespaces/default/poddisruptionbudgets",
        "/apis/policy/v1beta1/podsecuritypolicies",
        "/apis/node.k8s.io/v1beta1/runtimeclasses",
        "/apis/admissionregistration.k8s.io/v1beta1/validatingwebhookconfigurations",
        "/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions",
        "/apis/apiregistration.k8s.io/v1beta1/apiservices",
        "/apis/certificates.k8s.io/v1beta1/certificatesigningrequests",
        "/apis/coordination.k8s.io/v1beta1/namespaces/default/leases",
        "/apis/extensions/v1beta1/namespaces/default/ingresses",
        "/apis/networking.k8s.io/v1beta1/namespaces/default/ingresses",
        "/apis/networking.k8s.io/v1beta1/ingressclasses",
    ];
    let groups = s.get("/apis").json();
    let served: Vec<String> = groups["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .flat_map(|g| g["versions"].as_array().cloned().unwrap_or_default())
        .filter_map(|v| v["groupVersion"].as_str().map(str::to_string))
        .collect();
    for path in removed {
        assert_eq!(s.get(path).status, 404, "GET {path}");
        let version = path.rsplit_once('/').map_or("", |p| p.0);
        let group_version = version
            .strip_prefix("/apis/")
            .and_then(|v| v.split("/namespaces").next())
            .expect("group/version");
        assert_eq!(
            s.get(&format!("/apis/{group_version}")).status,
            404,
            "{group_version}"
        );
        assert!(
            !served.contains(&group_version.to_string()),
            "{group_version} in discovery"
        );
        let r = s.post(path, &json!({"metadata": {"name": "x"}}));
        assert_eq!(r.status, 404, "POST {path}");
    }
    // Their replacements are served.
    for path in [
        "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas",
        "/apis/coordination.k8s.io/v1/namespaces/default/leases",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    ] {
        assert_eq!(s.get(path).status, 200, "GET {path}");
    }
}
