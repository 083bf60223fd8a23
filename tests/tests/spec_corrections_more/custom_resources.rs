//! Custom resources: CEL rules over set and map lists, field selectors on
//! `selectableFields`, and CBOR bodies.

use std::time::Duration;

use cairn_tests::{Server, wait_until};
use serde_json::{Value, json};

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const GADGETS: &str = "/apis/example.com/v1/namespaces/default/gadgets";

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
