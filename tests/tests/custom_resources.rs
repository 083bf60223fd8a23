//! CustomResourceDefinitions against the real binary: establishment and
//! discovery, schema errors, pruning, defaults, multi-version serving,
//! `/status` and `/scale`, name conflicts, and deletion of instances.

use cairn_tests::{Server, wait_until};
use serde_json::{Value, json};

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

fn server() -> Server {
    Server::start(&["--api-domain", "k8s.io"])
}

/// A namespaced `widgets.example.com` CRD serving v1 (storage) and v1beta1.
fn widget_crd() -> Value {
    let schema = json!({
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "required": ["size"],
                "properties": {
                    "size": {"type": "string", "enum": ["small", "large"]},
                    "replicas": {"type": "integer", "default": 1},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
                }
            },
            "status": {
                "type": "object",
                "properties": {"replicas": {"type": "integer"}, "phase": {"type": "string"}}
            }
        }
    });
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"], "categories": ["all"]},
            "versions": [
                {"name": "v1beta1", "served": true, "storage": false, "schema": {"openAPIV3Schema": schema.clone()}},
                {"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": schema},
                 "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
                 "additionalPrinterColumns": [{"name": "Size", "type": "string", "jsonPath": ".spec.size"}]}
            ]
        }
    })
}

fn established(s: &Server, name: &str) -> bool {
    let crd = s.get(&format!("{CRDS}/{name}")).json();
    crd["status"]["conditions"].as_array().is_some_and(|cs| {
        cs.iter()
            .any(|c| c["type"] == "Established" && c["status"] == "True")
    })
}

fn install(s: &Server, crd: &Value) {
    let r = s.post(CRDS, crd);
    assert_eq!(r.status, 201, "{}", r.text());
    let name = crd["metadata"]["name"].as_str().expect("name").to_string();
    wait_until("the CRD to be established", || established(s, &name));
}

fn widget(name: &str, size: &str) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name}, "spec": {"size": size}})
}

const WIDGETS: &str = "/apis/example.com/v1/namespaces/default/widgets";

#[test]
fn a_crd_is_served_with_its_names_and_in_discovery() {
    let s = server();
    install(&s, &widget_crd());
    wait_until("instances to be creatable", || s.get(WIDGETS).status == 200);
    let crd = s.get(&format!("{CRDS}/widgets.example.com")).json();
    assert_eq!(crd["status"]["acceptedNames"]["kind"], "Widget");
    assert_eq!(crd["status"]["storedVersions"], json!(["v1"]));
    let names_accepted = crd["status"]["conditions"]
        .as_array()
        .expect("conditions")
        .iter()
        .any(|c| c["type"] == "NamesAccepted" && c["status"] == "True");
    assert!(names_accepted, "{crd}");
    // Discovery: the group prefers v1; the resource carries names and subresources.
    let group = s.get("/apis/example.com").json();
    assert_eq!(group["preferredVersion"]["version"], "v1", "{group}");
    let resources = s.get("/apis/example.com/v1").json();
    let names: Vec<&str> = resources["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert_eq!(names, ["widgets", "widgets/status", "widgets/scale"]);
    assert_eq!(resources["resources"][0]["shortNames"], json!(["wd"]));
    assert_eq!(resources["resources"][0]["categories"], json!(["all"]));
    assert_eq!(resources["resources"][0]["namespaced"], json!(true));
    assert!(
        s.get("/apis").json()["groups"]
            .as_array()
            .expect("groups")
            .iter()
            .any(|g| g["name"] == "example.com")
    );
}

#[test]
fn invalid_crds_are_rejected_with_reasons() {
    let s = server();
    let mut bad = widget_crd();
    bad["metadata"]["name"] = json!("gadgets.example.com");
    bad["spec"]["versions"][1]["storage"] = json!(false);
    bad["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["untyped"] =
        json!({"description": "no type"});
    let r = s.post(CRDS, &bad);
    assert_eq!(r.status, 422, "{}", r.text());
    let status = r.json();
    let fields: Vec<&str> = status["details"]["causes"]
        .as_array()
        .expect("causes")
        .iter()
        .filter_map(|c| c["field"].as_str())
        .collect();
    assert!(fields.contains(&"metadata.name"), "{fields:?}");
    assert!(fields.contains(&"spec.versions"), "{fields:?}");
    assert!(
        fields.iter().any(|f| f.starts_with(
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[untyped].type"
        )),
        "{fields:?}"
    );
    let mut no_schema = widget_crd();
    no_schema["spec"]["versions"][0]["schema"] = json!(null);
    assert_eq!(s.post(CRDS, &no_schema).status, 422);
    assert_eq!(s.get(&format!("{CRDS}/widgets.example.com")).status, 404);
}

#[test]
fn instances_are_validated_pruned_and_defaulted() {
    let s = server();
    install(&s, &widget_crd());
    let r = s.post(WIDGETS, &widget("w1", "huge"));
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("spec.size"), "{}", r.text());
    // An omitted required field is a bad request (spec section 7), a
    // value the schema refuses is invalid.
    let r = s.post(WIDGETS, &json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w0"}, "spec": {}}));
    assert_eq!(r.status, 400, "{}", r.text());
    assert!(r.text().contains("Required value"), "{}", r.text());
    let mut w = widget("w1", "small");
    w["spec"]["unknown"] = json!(1);
    w["spec"]["free"] = json!({"anything": {"goes": true}});
    let r = s.post(WIDGETS, &w);
    assert_eq!(r.status, 201, "{}", r.text());
    let created = r.json();
    assert!(
        created["spec"].get("unknown").is_none(),
        "pruned: {created}"
    );
    assert_eq!(created["spec"]["free"], json!({"anything": {"goes": true}}));
    assert_eq!(
        created["spec"]["replicas"],
        json!(1),
        "defaulted: {created}"
    );
    assert_eq!(created["metadata"]["generation"], json!(1));
    let warning = r.header_all("warning").join(" ");
    assert!(
        warning.contains("unknown field") && warning.contains("spec.unknown"),
        "{warning}"
    );
    // Strict field validation turns the unknown field into a 400.
    let mut strict = widget("w2", "small");
    strict["spec"]["unknown"] = json!(1);
    let r = s.send_json(
        "POST",
        &format!("{WIDGETS}?fieldValidation=Strict"),
        &strict,
    );
    assert_eq!(r.status, 400, "{}", r.text());
    // The wrong kind or apiVersion in the body is refused.
    let mut wrong = widget("w3", "small");
    wrong["kind"] = json!("Gadget");
    assert_eq!(s.post(WIDGETS, &wrong).status, 400);
}

#[test]
fn versions_share_storage_and_convert_api_version() {
    let s = server();
    install(&s, &widget_crd());
    assert_eq!(s.post(WIDGETS, &widget("w1", "small")).status, 201);
    let old = s.get("/apis/example.com/v1beta1/namespaces/default/widgets/w1");
    assert_eq!(old.status, 200);
    assert_eq!(old.json()["apiVersion"], "example.com/v1beta1");
    let mut via_beta = json!({"apiVersion": "example.com/v1beta1", "kind": "Widget", "metadata": {"name": "w2"}, "spec": {"size": "large"}});
    let r = s.post(
        "/apis/example.com/v1beta1/namespaces/default/widgets",
        &via_beta,
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["apiVersion"], "example.com/v1beta1");
    let list = s.get(WIDGETS).json();
    let versions: Vec<&str> = list["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|i| i["apiVersion"].as_str())
        .collect();
    assert_eq!(versions, ["example.com/v1", "example.com/v1"]);
    // A watch through v1beta1 sees objects written through v1 in its own version.
    let mut watch = s
        .watch("/apis/example.com/v1beta1/namespaces/default/widgets?watch=true&resourceVersion=0");
    for _ in 0..2 {
        let ev = watch.next_event().expect("initial event");
        assert_eq!(ev["object"]["apiVersion"], "example.com/v1beta1");
    }
    assert_eq!(s.post(WIDGETS, &widget("w3", "small")).status, 201);
    let ev = watch.next_event().expect("added");
    assert_eq!(
        (ev["type"].as_str(), ev["object"]["apiVersion"].as_str()),
        (Some("ADDED"), Some("example.com/v1beta1"))
    );
    // Updates through either version keep one object.
    via_beta = s
        .get("/apis/example.com/v1beta1/namespaces/default/widgets/w2")
        .json();
    via_beta["spec"]["size"] = json!("small");
    let r = s.put(
        "/apis/example.com/v1beta1/namespaces/default/widgets/w2",
        &via_beta,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        s.get(&format!("{WIDGETS}/w2")).json()["spec"]["size"],
        "small"
    );
}

#[test]
fn status_and_scale_subresources_split_writes() {
    let s = server();
    install(&s, &widget_crd());
    // Status is dropped on create when it is a subresource.
    let mut w = widget("w1", "small");
    w["status"] = json!({"phase": "Ready"});
    let created = s.post(WIDGETS, &w).json();
    assert!(created.get("status").is_none(), "{created}");
    // The main resource ignores status; spec changes bump generation.
    let mut cur = created.clone();
    cur["spec"]["size"] = json!("large");
    cur["status"] = json!({"phase": "Ignored"});
    let upd = s.put(&format!("{WIDGETS}/w1"), &cur).json();
    assert_eq!(upd["spec"]["size"], "large");
    assert!(upd.get("status").is_none(), "{upd}");
    assert_eq!(upd["metadata"]["generation"], json!(2));
    // /status changes only status and leaves generation alone.
    let mut cur = upd.clone();
    cur["status"] = json!({"phase": "Ready", "replicas": 3});
    cur["spec"]["size"] = json!("small");
    let r = s.put(&format!("{WIDGETS}/w1/status"), &cur);
    assert_eq!(r.status, 200, "{}", r.text());
    let st = r.json();
    assert_eq!(st["status"]["phase"], "Ready");
    assert_eq!(st["spec"]["size"], "large");
    assert_eq!(st["metadata"]["generation"], json!(2));
    let r = s.patch(
        &format!("{WIDGETS}/w1/status"),
        "application/merge-patch+json",
        r#"{"status":{"phase":"Done"}}"#,
    );
    assert_eq!(r.json()["status"]["phase"], "Done");
    assert_eq!(
        s.get(&format!("{WIDGETS}/w1/status")).json()["status"]["phase"],
        "Done"
    );
    // /scale reads and writes the replica paths.
    let scale = s.get(&format!("{WIDGETS}/w1/scale")).json();
    assert_eq!(scale["kind"], "Scale");
    assert_eq!(scale["apiVersion"], "autoscaling/v1");
    assert_eq!(
        (
            scale["spec"]["replicas"].clone(),
            scale["status"]["replicas"].clone()
        ),
        (json!(1), json!(3))
    );
    let r = s.patch(
        &format!("{WIDGETS}/w1/scale"),
        "application/merge-patch+json",
        r#"{"spec":{"replicas":7}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["spec"]["replicas"], json!(7));
    let after = s.get(&format!("{WIDGETS}/w1")).json();
    assert_eq!(after["spec"]["replicas"], json!(7));
    assert_eq!(after["metadata"]["generation"], json!(3));
    let bad = s.patch(
        &format!("{WIDGETS}/w1/scale"),
        "application/merge-patch+json",
        r#"{"spec":{"replicas":-1}}"#,
    );
    assert_eq!(bad.status, 422, "{}", bad.text());
    // A stale resourceVersion on a Scale PUT conflicts.
    let mut stale = s.get(&format!("{WIDGETS}/w1/scale")).json();
    stale["metadata"]["resourceVersion"] = json!("1");
    assert_eq!(s.put(&format!("{WIDGETS}/w1/scale"), &stale).status, 409);
    // Unknown subresources are not found.
    assert_eq!(s.get(&format!("{WIDGETS}/w1/nope")).status, 404);
}

#[test]
fn conflicting_names_are_not_accepted() {
    let s = server();
    install(&s, &widget_crd());
    let mut clash = widget_crd();
    clash["metadata"]["name"] = json!("gizmos.example.com");
    clash["spec"]["names"] = json!({"plural": "gizmos", "kind": "Gizmo", "shortNames": ["wd"]});
    let r = s.post(CRDS, &clash);
    assert_eq!(r.status, 201, "{}", r.text());
    wait_until("NamesAccepted=False", || {
        s.get(&format!("{CRDS}/gizmos.example.com")).json()["status"]["conditions"]
            .as_array()
            .is_some_and(|cs| {
                cs.iter()
                    .any(|c| c["type"] == "NamesAccepted" && c["status"] == "False")
            })
    });
    assert_eq!(
        s.get("/apis/example.com/v1/namespaces/default/gizmos")
            .status,
        404
    );
}

#[test]
fn deleting_a_crd_removes_its_instances_and_endpoints() {
    let s = server();
    install(&s, &widget_crd());
    for i in 0..3 {
        assert_eq!(
            s.post(WIDGETS, &widget(&format!("w{i}"), "small")).status,
            201
        );
    }
    let mut watch = s.watch(&format!(
        "{WIDGETS}?watch=true&resourceVersion={}",
        s.get(WIDGETS).json()["metadata"]["resourceVersion"]
            .as_str()
            .expect("rv")
    ));
    let r = s.delete(&format!("{CRDS}/widgets.example.com"));
    assert_eq!(r.status, 200, "{}", r.text());
    for _ in 0..3 {
        let ev = watch.next_event().expect("deleted event");
        assert_eq!(ev["type"], "DELETED");
    }
    wait_until("the CRD to go", || {
        s.get(&format!("{CRDS}/widgets.example.com")).status == 404
    });
    wait_until("the endpoints to go", || s.get(WIDGETS).status == 404);
    assert_eq!(s.get("/apis/example.com/v1").status, 404);
    // Re-creating the CRD serves an empty collection.
    install(&s, &widget_crd());
    wait_until("instances to be listable", || s.get(WIDGETS).status == 200);
    assert_eq!(s.get(WIDGETS).json()["items"], json!([]));
}

#[test]
fn crds_survive_a_restart() {
    let mut s = server();
    install(&s, &widget_crd());
    assert_eq!(s.post(WIDGETS, &widget("w1", "small")).status, 201);
    s.stop();
    let s2 = Server::start_on(&s.data_dir, &["--api-domain", "k8s.io"]);
    let r = s2.get(&format!("{WIDGETS}/w1"));
    assert_eq!(r.status, 200, "served right after start: {}", r.text());
}

#[test]
fn a_terminating_crd_waits_for_instance_finalizers_and_refuses_creates() {
    let s = server();
    install(&s, &widget_crd());
    let mut held = widget("held", "small");
    held["metadata"]["finalizers"] = json!(["example.com/hold"]);
    assert_eq!(s.post(WIDGETS, &held).status, 201);
    assert_eq!(s.delete(&format!("{CRDS}/widgets.example.com")).status, 200);
    wait_until("the instance to be terminating", || {
        s.get(&format!("{WIDGETS}/held")).json()["metadata"]["deletionTimestamp"].is_string()
    });
    let crd = s.get(&format!("{CRDS}/widgets.example.com")).json();
    assert!(crd["metadata"]["deletionTimestamp"].is_string(), "{crd}");
    assert_eq!(
        crd["metadata"]["finalizers"],
        json!(["customresourcecleanup.apiextensions.k8s.io"])
    );
    let r = s.post(WIDGETS, &widget("late", "small"));
    assert_eq!(r.status, 405, "{}", r.text());
    assert!(r.text().contains("terminating"), "{}", r.text());
    let r = s.patch(
        &format!("{WIDGETS}/held"),
        "application/merge-patch+json",
        r#"{"metadata":{"finalizers":null}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    wait_until("the CRD to go", || {
        s.get(&format!("{CRDS}/widgets.example.com")).status == 404
    });
}

fn rules_crd(rules_at_spec: Value, extra_props: Value) -> Value {
    let mut props = json!({
        "replicas": {"type": "integer"},
        "minReplicas": {"type": "integer"},
        "mode": {"type": "string"},
        "items": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 10}},
        "x-prop": {"type": "string"}
    });
    for (k, v) in extra_props.as_object().expect("props") {
        props[k] = v.clone();
    }
    json!({
        "metadata": {"name": "ruled.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "ruled", "singular": "ruled", "kind": "Ruled"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": props, "x-kubernetes-validations": rules_at_spec}}}}}]}
    })
}

const RULED: &str = "/apis/example.com/v1/namespaces/default/ruled";

fn ruled(name: &str, spec: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Ruled", "metadata": {"name": name}, "spec": spec})
}

#[test]
fn cel_rules_validate_objects_and_transitions() {
    let s = server();
    let rules = json!([
        {"rule": "self.replicas >= self.minReplicas", "message": "replicas must be at least minReplicas"},
        {"rule": "!has(self.mode) || self.mode in ['fast', 'slow']", "messageExpression": "'mode ' + self.mode + ' is not known'", "fieldPath": ".mode", "reason": "FieldValueForbidden"},
        {"rule": "self.items.all(i, i.matches('^[a-z]+$'))", "message": "items must be lower-case words"},
        {"rule": "!has(oldSelf.mode) || self.mode == oldSelf.mode", "message": "mode is immutable"},
        {"rule": "!has(self.x__dash__prop) || self.x__dash__prop.size() < 5"},
        {"rule": "self.items.size() == 0 || self.items.indexOf(self.items[0]) == 0"}
    ]);
    install(&s, &rules_crd(rules, json!({})));
    let ok = s.post(
        RULED,
        &ruled(
            "a",
            json!({"replicas": 3, "minReplicas": 1, "mode": "fast", "items": ["x"]}),
        ),
    );
    assert_eq!(ok.status, 201, "{}", ok.text());

    let r = s.post(
        RULED,
        &ruled("b", json!({"replicas": 1, "minReplicas": 2, "items": []})),
    );
    assert_eq!(r.status, 422, "{}", r.text());
    let causes = r.json()["details"]["causes"].clone();
    assert_eq!(causes[0]["field"], "spec", "{causes}");
    assert!(
        causes[0]["message"]
            .as_str()
            .expect("message")
            .contains("replicas must be at least minReplicas"),
        "{causes}"
    );

    let r = s.post(RULED, &ruled("c", json!({"replicas": 1, "minReplicas": 1, "mode": "warp", "items": ["Upper"], "x-prop": "toolong"})));
    assert_eq!(r.status, 422, "{}", r.text());
    let text = r.text();
    assert!(text.contains("mode warp is not known"), "{text}");
    assert!(text.contains("spec.mode"), "{text}");
    assert!(text.contains("FieldValueForbidden"), "{text}");
    assert!(text.contains("items must be lower-case words"), "{text}");
    assert!(
        text.contains("failed rule: !has(self.x__dash__prop)"),
        "{text}"
    );

    // Transition rule: only on update, against the stored object.
    let r = s.patch(
        &format!("{RULED}/a"),
        "application/merge-patch+json",
        r#"{"spec":{"mode":"slow"}}"#,
    );
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("mode is immutable"), "{}", r.text());
    let r = s.patch(
        &format!("{RULED}/a"),
        "application/merge-patch+json",
        r#"{"spec":{"replicas":5}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn invalid_or_too_costly_rules_are_rejected_with_the_crd() {
    let s = server();
    let r = s.post(
        CRDS,
        &rules_crd(json!([{"rule": "self.replicas >"}]), json!({})),
    );
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("compilation failed"), "{}", r.text());
    assert!(
        r.text().contains("x-kubernetes-validations[0].rule"),
        "{}",
        r.text()
    );

    let r = s.post(
        CRDS,
        &rules_crd(json!([{"rule": "self.nope == 1"}]), json!({})),
    );
    assert_eq!(r.status, 422, "{}", r.text());

    // Unbounded lists make a nested comprehension's worst case exceed the budget.
    let unbounded = json!({"big": {"type": "array", "items": {"type": "string"}}});
    let r = s.post(
        CRDS,
        &rules_crd(
            json!([{"rule": "self.big.all(a, self.big.all(b, self.big.all(c, a + b + c != '')))"}]),
            unbounded,
        ),
    );
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("budget"), "{}", r.text());
    assert_eq!(s.get(&format!("{CRDS}/ruled.example.com")).status, 404);
}

#[test]
fn objects_stored_in_an_older_storage_version_are_served_in_the_requested_one() {
    let s = server();
    let mut crd = widget_crd();
    crd["spec"]["versions"][0]["storage"] = json!(true);
    crd["spec"]["versions"][1]["storage"] = json!(false);
    install(&s, &crd);
    let beta = "/apis/example.com/v1beta1/namespaces/default/widgets";
    let mut old = widget("old", "small");
    old["apiVersion"] = json!("example.com/v1beta1");
    assert_eq!(s.post(beta, &old).status, 201);
    // Move storage to v1; v1beta1 stays in storedVersions.
    let mut current = s.get(&format!("{CRDS}/widgets.example.com")).json();
    current["spec"]["versions"][0]["storage"] = json!(false);
    current["spec"]["versions"][1]["storage"] = json!(true);
    let r = s.put(&format!("{CRDS}/widgets.example.com"), &current);
    assert_eq!(r.status, 200, "{}", r.text());
    wait_until("storedVersions to list both", || {
        s.get(&format!("{CRDS}/widgets.example.com")).json()["status"]["storedVersions"]
            == json!(["v1beta1", "v1"])
    });
    assert_eq!(s.post(WIDGETS, &widget("new", "large")).status, 201);
    for name in ["old", "new"] {
        assert_eq!(
            s.get(&format!("{WIDGETS}/{name}")).json()["apiVersion"],
            "example.com/v1",
            "{name}"
        );
        assert_eq!(
            s.get(&format!("{beta}/{name}")).json()["apiVersion"],
            "example.com/v1beta1",
            "{name}"
        );
    }
    let listed = s.get(WIDGETS).json();
    for item in listed["items"].as_array().expect("items") {
        assert_eq!(item["apiVersion"], "example.com/v1", "{item}");
    }
    // A stored version cannot disappear from spec.versions.
    let mut current = s.get(&format!("{CRDS}/widgets.example.com")).json();
    current["spec"]["versions"] = json!([current["spec"]["versions"][1].clone()]);
    assert_eq!(
        s.put(&format!("{CRDS}/widgets.example.com"), &current)
            .status,
        422
    );
}

#[test]
fn the_runtime_budget_is_shared_by_an_objects_rules() {
    let s = server();
    // Each rule fits the per-call limit on a full list; fourteen of them
    // together exceed the per-object runtime budget.
    let rules: Vec<Value> = (0..14)
        .map(|i| json!({"rule": format!("self.items.all(a, self.items.all(b, a.size() >= -{i}))")}))
        .collect();
    let list = json!({"items": {"type": "array", "maxItems": 400, "items": {"type": "string", "maxLength": 4}}});
    let mut crd = rules_crd(json!(rules), list);
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        .as_object_mut()
        .expect("props")
        .retain(|k, _| k == "items");
    install(&s, &crd);
    let small: Vec<String> = (0..10).map(|i| format!("i{i}")).collect();
    assert_eq!(
        s.post(RULED, &ruled("small", json!({"items": small})))
            .status,
        201
    );
    let full: Vec<String> = (0..400).map(|i| format!("{}", i % 1000)).collect();
    let r = s.post(RULED, &ruled("full", json!({"items": full})));
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(
        r.text().contains("running out of cost budget"),
        "{}",
        r.text()
    );
}
