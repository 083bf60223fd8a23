//! Field ownership over HTTP (spec 2.3, 4.6): managedFields recorded by
//! create, update and patch; server-side apply with conflicts, force,
//! sharing and dropped fields, for built-in kinds and custom resources; and
//! the same through kubectl and the Python client.

use cairn_tests::{Server, kubectl, kubectl_present, run_python_script, wait_until};
use serde_json::{Value, json};

const CMS: &str = "/api/v1/namespaces/default/configmaps";
const APPLY: &str = "application/apply-patch+yaml";
const MERGE: &str = "application/merge-patch+json";

fn server() -> Server {
    Server::start(&["--api-domain", "k8s.io"])
}

fn apply(s: &Server, path: &str, query: &str, body: &str) -> cairn_tests::Response {
    s.request(
        "PATCH",
        &format!("{path}?{query}"),
        &[("Content-Type", APPLY)],
        Some(body.as_bytes()),
    )
}

/// A 400 whose Status message is exactly `message`.
fn refused(r: &cairn_tests::Response, message: &str) {
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["message"], message);
}

fn patch_as(s: &Server, path: &str, ct: &str, ua: &str, body: &str) -> cairn_tests::Response {
    s.request(
        "PATCH",
        path,
        &[("Content-Type", ct), ("User-Agent", ua)],
        Some(body.as_bytes()),
    )
}

/// managedFields as (manager, operation, subresource, fieldsV1).
fn entries(obj: &Value) -> Vec<(String, String, String, Value)> {
    obj["metadata"]["managedFields"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|e| {
                    (
                        e["manager"].as_str().unwrap_or_default().to_owned(),
                        e["operation"].as_str().unwrap_or_default().to_owned(),
                        e["subresource"].as_str().unwrap_or_default().to_owned(),
                        e["fieldsV1"].clone(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn entry(manager: &str, op: &str, fields: Value) -> (String, String, String, Value) {
    (manager.into(), op.into(), String::new(), fields)
}

fn is_second_precision_utc(t: &str) -> bool {
    t.len() == 20 && t.ends_with('Z') && t.as_bytes()[10] == b'T'
}

#[test]
fn every_write_records_managed_fields() {
    let s = server();
    let cm = json!({"metadata": {"name": "cm", "labels": {"app": "web"}}, "data": {"a": "1"}});
    let created = s.post(CMS, &cm);
    assert_eq!(created.status, 201, "{}", created.text());
    let created = created.json();
    let list = created["metadata"]["managedFields"]
        .as_array()
        .expect("managedFields");
    assert_eq!(list.len(), 1);
    let e = &list[0];
    assert_eq!(
        (
            &e["manager"],
            &e["operation"],
            &e["apiVersion"],
            &e["fieldsType"]
        ),
        (
            &json!("cairn-tests"),
            &json!("Update"),
            &json!("v1"),
            &json!("FieldsV1")
        )
    );
    assert!(e.get("subresource").is_none());
    assert!(
        is_second_precision_utc(e["time"].as_str().expect("time")),
        "{e}"
    );
    assert_eq!(
        e["fieldsV1"],
        json!({"f:data": {".": {}, "f:a": {}}, "f:metadata": {"f:labels": {".": {}, "f:app": {}}}})
    );
    // The key order on the wire: `.` first, then fields by name.
    let keys: Vec<&String> = e["fieldsV1"]["f:data"]
        .as_object()
        .expect("object")
        .keys()
        .collect();
    assert_eq!(keys, [".", "f:a"]);

    // PUT by a named manager: the value it changed moves to it.
    let mut current = created.clone();
    current["data"]["a"] = json!("2");
    let put = s.put(&format!("{CMS}/cm?fieldManager=editor"), &current);
    assert_eq!(put.status, 200, "{}", put.text());
    assert_eq!(
        entries(&put.json()),
        [
            entry(
                "cairn-tests",
                "Update",
                json!({"f:data": {}, "f:metadata": {"f:labels": {".": {}, "f:app": {}}}})
            ),
            entry("editor", "Update", json!({"f:data": {"f:a": {}}})),
        ]
    );

    // Merge patch: the manager is the User-Agent's product name.
    let merged = patch_as(
        &s,
        &format!("{CMS}/cm"),
        MERGE,
        "kubectl/v1.32.0 (linux/amd64) kubernetes/abc",
        r#"{"data":{"b":"x"}}"#,
    );
    assert_eq!(merged.status, 200, "{}", merged.text());
    let merged = merged.json();
    assert!(
        entries(&merged).contains(&entry("kubectl", "Update", json!({"f:data": {"f:b": {}}}))),
        "{merged}"
    );
    // JSON patch with fieldManager; an update by the same manager unions.
    let jp = s.request(
        "PATCH",
        &format!("{CMS}/cm?fieldManager=editor"),
        &[("Content-Type", "application/json-patch+json")],
        Some(br#"[{"op":"add","path":"/data/c","value":"y"}]"#),
    );
    assert_eq!(jp.status, 200, "{}", jp.text());
    assert!(entries(&jp.json()).contains(&entry(
        "editor",
        "Update",
        json!({"f:data": {"f:a": {}, "f:c": {}}})
    )));
    // A write that changes nothing keeps the entries as they are.
    let same = s.request(
        "PATCH",
        &format!("{CMS}/cm?fieldManager=idle"),
        &[("Content-Type", MERGE)],
        Some(b"{}"),
    );
    assert_eq!(
        same.json()["metadata"]["managedFields"],
        jp.json()["metadata"]["managedFields"]
    );

    // Rule 15: a client may write managedFields itself.
    let own = json!([{"manager": "hand", "operation": "Update", "apiVersion": "v1", "time": "2024-05-01T10:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:a": {}}}}]);
    let edited = s.request(
        "PATCH",
        &format!("{CMS}/cm"),
        &[("Content-Type", MERGE)],
        Some(
            json!({"metadata": {"managedFields": own}})
                .to_string()
                .as_bytes(),
        ),
    );
    assert_eq!(edited.json()["metadata"]["managedFields"], own);
    // An empty list changes nothing.
    let kept = s.request(
        "PATCH",
        &format!("{CMS}/cm"),
        &[("Content-Type", MERGE)],
        Some(br#"{"metadata":{"managedFields":[]}}"#),
    );
    assert_eq!(kept.json()["metadata"]["managedFields"], own);
    // Rule 14: one empty entry strips them; reset first, so a change in the
    // same request is owned by its writer.
    let reset = s.request(
        "PATCH",
        &format!("{CMS}/cm?fieldManager=resetter"),
        &[("Content-Type", MERGE)],
        Some(br#"{"metadata":{"managedFields":[{}]},"data":{"d":"z"}}"#),
    );
    assert_eq!(reset.status, 200, "{}", reset.text());
    assert_eq!(
        entries(&reset.json()),
        [entry("resetter", "Update", json!({"f:data": {"f:d": {}}}))]
    );
    let stripped = s.request(
        "PATCH",
        &format!("{CMS}/cm"),
        &[("Content-Type", MERGE)],
        Some(br#"{"metadata":{"managedFields":[{}]}}"#),
    );
    assert!(
        stripped.json()["metadata"].get("managedFields").is_none(),
        "{}",
        stripped.text()
    );
    // An object without managedFields stays untracked by updates.
    let untracked = s.request(
        "PATCH",
        &format!("{CMS}/cm"),
        &[("Content-Type", MERGE)],
        Some(br#"{"data":{"e":"w"}}"#),
    );
    assert!(untracked.json()["metadata"].get("managedFields").is_none());

    // fieldManager: fewer than 128 printable characters (400 as the issue
    // asks, with Kubernetes' message naming the options object).
    let long = "m".repeat(128);
    let r = s.post(
        &format!("{CMS}?fieldManager={long}"),
        &json!({"metadata": {"name": "long"}}),
    );
    refused(
        &r,
        "CreateOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long: may not be more than 128 bytes",
    );
    let r = s.post(
        &format!("{CMS}?fieldManager=a%01b"),
        &json!({"metadata": {"name": "ctl"}}),
    );
    assert_eq!(r.status, 400, "{}", r.text());
    let ok = s.post(
        &format!("{CMS}?fieldManager={}", "m".repeat(127)),
        &json!({"metadata": {"name": "ok"}}),
    );
    assert_eq!(ok.status, 201, "{}", ok.text());
    assert_eq!(
        entries(&ok.json()).len(),
        0,
        "an empty ConfigMap owns nothing"
    );
}

#[test]
fn apply_creates_shares_conflicts_and_forces() {
    let s = server();
    let cm = |data: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ap\ndata:\n{data}")
    };
    let path = format!("{CMS}/ap");
    // Parameter checks, as Kubernetes words them.
    let r = apply(&s, &path, "", &cm("  x: \"1\"\n"));
    refused(
        &r,
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch",
    );
    let r = s.request(
        "PATCH",
        &format!("{path}?force=true"),
        &[("Content-Type", MERGE)],
        Some(b"{}"),
    );
    refused(
        &r,
        "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch",
    );
    let r = apply(
        &s,
        &path,
        "fieldManager=a",
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"ap\",\"managedFields\":[{\"manager\":\"x\"}]}}",
    );
    assert_eq!(r.status, 400, "{}", r.text());

    // The configuration must name its version and kind.
    let r = apply(&s, &path, "fieldManager=a", "metadata:\n  name: ap\n");
    refused(
        &r,
        "Incorrect version specified in apply patch. Specified patch version: , expected: v1",
    );
    let r = apply(
        &s,
        &path,
        "fieldManager=a",
        "apiVersion: v1\nmetadata:\n  name: ap\n",
    );
    assert_eq!(r.status, 400, "{}", r.text());
    // Dry run creates nothing.
    let r = apply(&s, &path, "fieldManager=a&dryRun=All", &cm("  x: \"1\"\n"));
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(s.get(&path).status, 404);
    // Apply to a missing object creates it (JSON is YAML too).
    let r = apply(
        &s,
        &path,
        "fieldManager=a",
        r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ap"},"data":{"x":"1","yy":"2"}}"#,
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let created = r.json();
    assert_eq!(created["data"], json!({"x": "1", "yy": "2"}));
    let e = &created["metadata"]["managedFields"][0];
    assert_eq!(
        (&e["manager"], &e["operation"]),
        (&json!("a"), &json!("Apply"))
    );
    assert_eq!(e["fieldsV1"], json!({"f:data": {"f:x": {}, "f:yy": {}}}));

    // Same value from another applier: shared, no conflict.
    let r = apply(&s, &path, "fieldManager=b", &cm("  x: \"1\"\n"));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        entries(&r.json()),
        [
            entry("a", "Apply", json!({"f:data": {"f:x": {}, "f:yy": {}}})),
            entry("b", "Apply", json!({"f:data": {"f:x": {}}})),
        ]
    );
    // A different value conflicts: 409 naming the field and its owner.
    let r = apply(&s, &path, "fieldManager=c", &cm("  x: \"9\"\n"));
    assert_eq!(r.status, 409, "{}", r.text());
    let status = r.json();
    assert_eq!(status["reason"], "Conflict");
    assert_eq!(
        status["message"],
        "Apply failed with 2 conflicts: conflicts with \"a\":\n- .data.x\nconflicts with \"b\":\n- .data.x"
    );
    assert_eq!(
        status["details"],
        json!({"causes": [
            {"reason": "FieldManagerConflict", "message": "conflict with \"a\"", "field": ".data.x"},
            {"reason": "FieldManagerConflict", "message": "conflict with \"b\"", "field": ".data.x"}
        ]})
    );
    assert_eq!(s.get(&path).json()["data"]["x"], "1", "nothing changed");
    // force takes it from both.
    let r = apply(&s, &path, "fieldManager=c&force=true", &cm("  x: \"9\"\n"));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["data"], json!({"x": "9", "yy": "2"}));
    assert_eq!(
        entries(&r.json()),
        [
            entry("a", "Apply", json!({"f:data": {"f:yy": {}}})),
            entry("c", "Apply", json!({"f:data": {"f:x": {}}})),
        ]
    );
    // An update takes what it changes; an applier then conflicts with it.
    let r = s.request(
        "PATCH",
        &format!("{path}?fieldManager=editor"),
        &[("Content-Type", MERGE)],
        Some(br#"{"data":{"yy":"3"}}"#),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = apply(&s, &path, "fieldManager=a", &cm("  yy: \"2\"\n"));
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(
        r.json()["message"],
        "Apply failed with 1 conflict: conflict with \"editor\" using v1: .data.yy"
    );
    // Dropping a field nobody else owns removes it; a has nothing left.
    let r = apply(&s, &path, "fieldManager=c", &cm("  x: \"9\"\n  z: \"4\"\n"));
    assert_eq!(r.status, 200, "{}", r.text());
    let r = apply(&s, &path, "fieldManager=c", &cm("  x: \"9\"\n"));
    assert_eq!(
        r.json()["data"],
        json!({"x": "9", "yy": "3"}),
        "{}",
        r.text()
    );

    // Preconditions in the body, unknown fields, and invalid results.
    let stale = apply(
        &s,
        &path,
        "fieldManager=c",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ap\n  resourceVersion: \"1\"\ndata:\n  x: \"9\"\n",
    );
    assert_eq!(stale.status, 409, "{}", stale.text());
    let uid = apply(
        &s,
        &path,
        "fieldManager=c",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ap\n  uid: not-this-one\n",
    );
    assert_eq!(uid.status, 409, "{}", uid.text());
    let strict = apply(
        &s,
        &path,
        "fieldManager=c&fieldValidation=Strict",
        &format!("{}bogus: 1\n", cm("  x: \"9\"\n")),
    );
    assert_eq!(strict.status, 400, "{}", strict.text());
    let warned = apply(
        &s,
        &path,
        "fieldManager=c",
        &format!("{}bogus: 1\n", cm("  x: \"9\"\n")),
    );
    assert_eq!(warned.status, 200, "{}", warned.text());
    assert!(
        warned
            .header("Warning")
            .is_some_and(|w| w.contains("bogus"))
    );
    let invalid = apply(&s, &path, "fieldManager=c", &cm("  \"bad key!\": v\n"));
    assert_eq!(invalid.status, 422, "{}", invalid.text());
    let dry = apply(
        &s,
        &path,
        "fieldManager=c&dryRun=All",
        &cm("  x: \"9\"\n  w: \"5\"\n"),
    );
    assert_eq!(dry.status, 200, "{}", dry.text());
    assert_eq!(dry.json()["data"]["w"], "5");
    assert!(s.get(&path).json()["data"].get("w").is_none());
}

#[test]
fn apply_to_pods_merges_containers_by_name() {
    let s = server();
    let path = "/api/v1/namespaces/default/pods/web";
    let pod = |image: &str| {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "labels": {"app": "web"}},
               "spec": {"containers": [{"name": "c1", "image": image}]}})
        .to_string()
    };
    let r = apply(&s, path, "fieldManager=a", &pod("nginx:1"));
    assert_eq!(r.status, 201, "{}", r.text());
    let fields = &r.json()["metadata"]["managedFields"][0]["fieldsV1"];
    assert_eq!(
        fields["f:spec"]["f:containers"],
        json!({"k:{\"name\":\"c1\"}": {".": {}, "f:image": {}, "f:name": {}}})
    );
    let r = apply(&s, path, "fieldManager=b", &pod("nginx:2"));
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(
        r.json()["details"]["causes"][0]["field"],
        ".spec.containers[name=\"c1\"].image"
    );
    let r = apply(&s, path, "fieldManager=b&force=true", &pod("nginx:2"));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["spec"]["containers"][0]["image"], "nginx:2");
    // Status through its subresource is recorded with `subresource`.
    let status = s.request(
        "PATCH",
        &format!("{path}/status?fieldManager=kubelet"),
        &[("Content-Type", MERGE)],
        Some(br#"{"status":{"message":"up"}}"#),
    );
    assert_eq!(status.status, 200, "{}", status.text());
    let got = entries(&status.json());
    assert!(
        got.iter().any(|(m, op, sub, f)| m == "kubelet"
            && op == "Update"
            && sub == "status"
            && f["f:status"].get("f:message").is_some()),
        "{got:?}"
    );
}

fn gadget_crd() -> Value {
    let schema = json!({
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {
                    "items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                              "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "size": {"type": "integer"}}}},
                    "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                    "args": {"type": "array", "items": {"type": "string"}},
                    "mode": {"type": "string", "default": "auto"},
                    "replicas": {"type": "integer"}
                }
            },
            "status": {"type": "object", "properties": {"phase": {"type": "string"}, "replicas": {"type": "integer"}}}
        }
    });
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                          "schema": {"openAPIV3Schema": schema}, "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}}}]
        }
    })
}

const GADGETS: &str = "/apis/example.com/v1/namespaces/default/gadgets";

#[test]
fn custom_resources_apply_by_their_list_types() {
    let s = server();
    let r = s.post(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        &gadget_crd(),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    wait_until("gadgets to be served", || s.get(GADGETS).status == 200);
    let path = format!("{GADGETS}/g");
    let gadget = |spec: Value| {
        json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": spec})
            .to_string()
    };
    let r = apply(
        &s,
        &path,
        "fieldManager=a",
        &gadget(json!({"items": [{"name": "x", "size": 1}], "tags": ["t1"], "args": ["a1"]})),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["spec"]["mode"], "auto", "defaults apply");
    assert_eq!(
        r.json()["metadata"]["managedFields"][0]["fieldsV1"],
        json!({"f:spec": {
            "f:args": {},
            "f:items": {"k:{\"name\":\"x\"}": {".": {}, "f:name": {}, "f:size": {}}},
            "f:tags": {"v:\"t1\"": {}}
        }})
    );
    let r = apply(
        &s,
        &path,
        "fieldManager=b",
        &gadget(json!({"items": [{"name": "y"}], "tags": ["t2"]})),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let spec = &r.json()["spec"];
    assert_eq!(
        spec["items"],
        json!([{"name": "x", "size": 1}, {"name": "y"}])
    );
    assert_eq!(spec["tags"], json!(["t1", "t2"]));
    // Lists without a list type are atomic for custom resources.
    let r = apply(
        &s,
        &path,
        "fieldManager=b",
        &gadget(json!({"args": ["b1"]})),
    );
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(r.json()["details"]["causes"][0]["field"], ".spec.args");
    // a drops its map-list item and set value; b's stay.
    let r = apply(
        &s,
        &path,
        "fieldManager=a",
        &gadget(json!({"args": ["a1"]})),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let spec = &r.json()["spec"];
    assert_eq!(spec["items"], json!([{"name": "y"}]));
    assert_eq!(spec["tags"], json!(["t2"]));
    // A dropped field nobody else owns goes back to its default.
    let r = apply(
        &s,
        &path,
        "fieldManager=a",
        &gadget(json!({"args": ["a1"], "mode": "manual"})),
    );
    assert_eq!(r.json()["spec"]["mode"], "manual", "{}", r.text());
    let r = apply(
        &s,
        &path,
        "fieldManager=a",
        &gadget(json!({"args": ["a1"]})),
    );
    assert_eq!(r.json()["spec"]["mode"], "auto", "{}", r.text());
    // An update creating a custom resource owns its objects as nodes.
    let r = s.post(
        &format!("{GADGETS}?fieldManager=maker"),
        &json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "h"}, "spec": {"tags": ["q"]}}),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(
        r.json()["metadata"]["managedFields"][0]["fieldsV1"],
        json!({"f:spec": {".": {}, "f:mode": {}, "f:tags": {".": {}, "v:\"q\"": {}}}})
    );
    // Apply through /status owns status only, recorded with its subresource.
    let r = apply(
        &s,
        &format!("{path}/status"),
        "fieldManager=ctl",
        &json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "status": {"phase": "Ready"}}).to_string(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let got = entries(&r.json());
    assert!(
        got.contains(&(
            "ctl".into(),
            "Apply".into(),
            "status".into(),
            json!({"f:status": {"f:phase": {}}})
        )),
        "{got:?}"
    );
    // A /scale write owns spec.replicas under the `scale` subresource.
    let r = s.request(
        "PATCH",
        &format!("{path}/scale?fieldManager=scaler"),
        &[("Content-Type", MERGE)],
        Some(br#"{"spec":{"replicas":3}}"#),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let got = entries(&s.get(&path).json());
    assert!(
        got.contains(&(
            "scaler".into(),
            "Update".into(),
            "scale".into(),
            json!({"f:spec": {"f:replicas": {}}})
        )),
        "{got:?}"
    );
}

/// kubectl's apply and patch output as JSON with managed fields.
fn kubectl_json(s: &Server, args: &[&str], stdin: Option<&str>) -> Value {
    let (ok, out) = kubectl(s, args, stdin);
    assert!(ok, "kubectl {args:?}: {out}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn kubectl_server_side_apply_and_patch() {
    if !kubectl_present() {
        return;
    }
    let s = server();
    let manifest = |value: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kc\n  namespace: default\ndata:\n  k: {value}\n"
        )
    };
    let base = [
        "apply",
        "--server-side",
        "--validate=false",
        "-o",
        "json",
        "--show-managed-fields",
        "-f",
        "-",
    ];
    let mut args = base.to_vec();
    args.push("--field-manager=one");
    let obj = kubectl_json(&s, &args, Some(&manifest("a")));
    assert_eq!(
        entries(&obj),
        [entry("one", "Apply", json!({"f:data": {"f:k": {}}}))]
    );
    let mut args = base.to_vec();
    args.push("--field-manager=two");
    let (ok, out) = kubectl(&s, &args, Some(&manifest("b")));
    assert!(!ok, "{out}");
    assert!(
        out.contains("conflict with \"one\"") && out.contains(".data.k"),
        "{out}"
    );
    args.push("--force-conflicts");
    let obj = kubectl_json(&s, &args, Some(&manifest("b")));
    assert_eq!(obj["data"]["k"], "b");
    assert_eq!(
        entries(&obj),
        [entry("two", "Apply", json!({"f:data": {"f:k": {}}}))]
    );
    let obj = kubectl_json(
        &s,
        &[
            "patch",
            "configmap",
            "kc",
            "-n",
            "default",
            "--type",
            "merge",
            "-p",
            r#"{"data":{"m":"1"}}"#,
            "-o",
            "json",
            "--show-managed-fields",
        ],
        None,
    );
    assert!(
        entries(&obj).contains(&entry(
            "kubectl-patch",
            "Update",
            json!({"f:data": {"f:m": {}}})
        )),
        "{obj}"
    );
    let obj = kubectl_json(
        &s,
        &[
            "patch",
            "configmap",
            "kc",
            "-n",
            "default",
            "--type",
            "json",
            "-p",
            r#"[{"op":"replace","path":"/data/k","value":"c"}]"#,
            "-o",
            "json",
            "--show-managed-fields",
        ],
        None,
    );
    assert_eq!(obj["data"]["k"], "c");
    assert!(
        entries(&obj).contains(&entry(
            "kubectl-patch",
            "Update",
            json!({"f:data": {"f:k": {}, "f:m": {}}})
        )),
        "{obj}"
    );
    // The field moved to kubectl-patch: `two` kept nothing.
    assert!(!entries(&obj).iter().any(|e| e.0 == "two"), "{obj}");
}

#[test]
fn python_client_patches_record_managed_fields() {
    run_python_script("managed_fields.py", &["--api-domain", "k8s.io"]);
}
