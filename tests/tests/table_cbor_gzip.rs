//! Representations beyond plain JSON: Tables (`as=Table`) for every kind and
//! a CRD, gzip-compressed large responses, and CBOR bodies and watch streams
//! behind the `CBORServingAndStorage` gate; kubectl's table output end to end.

use std::io::{BufRead, BufReader, Read};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

use cairn_tests::{Server, event, kubectl, kubectl_present, wait_until};
use serde_json::{Value, json};

const TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io";

fn get_as(s: &Server, path: &str, accept: &str) -> cairn_tests::Response {
    s.request("GET", path, &[("Accept", accept)], None)
}

fn table(s: &Server, path: &str) -> Value {
    let r = get_as(s, path, TABLE);
    assert_eq!(r.status, 200, "{path}: {}", r.text());
    assert_eq!(r.header("content-type"), Some("application/json"), "{path}");
    let t = r.json();
    assert_eq!(t["kind"], "Table", "{path}: {t}");
    assert_eq!(t["apiVersion"], "meta.k8s.io/v1", "{path}");
    t
}

fn column_names(t: &Value) -> Vec<String> {
    t["columnDefinitions"]
        .as_array()
        .expect("columnDefinitions")
        .iter()
        .map(|c| c["name"].as_str().expect("name").to_string())
        .collect()
}

/// The row whose `object` names `name`, as cells by column name.
fn row(t: &Value, name: &str) -> serde_json::Map<String, Value> {
    let names = column_names(t);
    let row = t["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["object"]["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no row for {name}: {t}"));
    let cells = row["cells"].as_array().expect("cells");
    assert_eq!(cells.len(), names.len(), "{row}");
    names.into_iter().zip(cells.iter().cloned()).collect()
}

fn create(s: &Server, path: &str, body: &Value) {
    let r = s.post(path, body);
    assert_eq!(r.status, 201, "{path}: {}", r.text());
}

const CRD: &str = r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
 "metadata": {"name": "widgets.x.io"},
 "spec": {"group": "x.io", "scope": "Namespaced",
  "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
  "versions": [{"name": "v1", "served": true, "storage": true,
   "additionalPrinterColumns": [
    {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
    {"name": "Ready", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Ready\")].status"},
    {"name": "Color", "type": "string", "priority": 1, "jsonPath": ".spec.color"},
    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}],
   "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}}"#;

#[test]
fn tables_for_every_kind() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    create(
        &s,
        "/api/v1/namespaces",
        &json!({"metadata": {"name": "t"}}),
    );
    s.settle_namespace("t");
    let ns = "/api/v1/namespaces/t";
    create(
        &s,
        &format!("{ns}/configmaps"),
        &json!({"metadata": {"name": "cm"}, "data": {"a": "1", "b": "2"}, "binaryData": {"c": "AA=="}}),
    );
    create(
        &s,
        &format!("{ns}/secrets"),
        &json!({"metadata": {"name": "sec"}, "type": "Opaque", "data": {"k": "dg=="}}),
    );
    create(
        &s,
        &format!("{ns}/pods"),
        &json!({"metadata": {"name": "web"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}),
    );
    create(&s, &format!("{ns}/events"), &event("ev", "Pulled"));

    let t = table(&s, "/api/v1/namespaces");
    assert_eq!(column_names(&t), ["Name", "Status", "Age"]);
    let r = row(&t, "t");
    assert_eq!(r["Status"], "Active");
    let age = r["Age"].as_str().expect("age");
    assert!(age.ends_with('s') || age.ends_with('m'), "{age}");

    let t = table(&s, &format!("{ns}/configmaps"));
    assert_eq!(column_names(&t), ["Name", "Data", "Age"]);
    assert_eq!(row(&t, "cm")["Data"], 3);

    let t = table(&s, &format!("{ns}/secrets"));
    assert_eq!(column_names(&t), ["Name", "Type", "Data", "Age"]);
    let r = row(&t, "sec");
    assert_eq!((&r["Type"], &r["Data"]), (&json!("Opaque"), &json!(1)));

    let t = table(&s, &format!("{ns}/pods"));
    assert_eq!(
        column_names(&t)[..5],
        ["Name", "Ready", "Status", "Restarts", "Age"]
    );
    let r = row(&t, "web");
    assert_eq!(
        (&r["Ready"], &r["Status"]),
        (&json!("0/1"), &json!("Pending"))
    );
    assert_eq!(t["columnDefinitions"][0]["format"], "name");
    assert_eq!(t["columnDefinitions"][5]["priority"], 1);

    for path in [
        format!("{ns}/events"),
        "/apis/events.k8s.io/v1/namespaces/t/events".to_string(),
    ] {
        let t = table(&s, &path);
        assert_eq!(
            column_names(&t),
            [
                "Last Seen",
                "Type",
                "Reason",
                "Object",
                "Subobject",
                "Source",
                "Message",
                "First Seen",
                "Count",
                "Name"
            ],
            "{path}"
        );
        let r = row(&t, "ev");
        assert_eq!(r["Object"], "pod/web-1", "{path}");
        assert_eq!(r["Source"], "kubelet, node-1", "{path}");
        assert_eq!(r["Message"], "Pulled happened", "{path}");
        assert_eq!(r["Count"], 1, "{path}");
        // Last seen in 2024: whole days or years, not a timestamp.
        let seen = r["Last Seen"].as_str().expect("last seen");
        assert!(seen.ends_with('d') || seen.ends_with('y'), "{seen}");
    }

    // Kinds without columns of their own: Name and Created At (RFC 3339).
    create(
        &s,
        "/apis/rbac.authorization.k8s.io/v1/namespaces/t/roles",
        &json!({"metadata": {"name": "reader"}, "rules": []}),
    );
    let t = table(&s, "/apis/rbac.authorization.k8s.io/v1/namespaces/t/roles");
    assert_eq!(column_names(&t), ["Name", "Created At"]);
    let created = row(&t, "reader")["Created At"].clone();
    assert!(
        created
            .as_str()
            .is_some_and(|c| c.ends_with('Z') && c.contains('T')),
        "{created}"
    );

    // Every served kind answers with a Table whose rows fit its columns.
    for path in [
        "/api/v1/namespaces/t/serviceaccounts",
        "/api/v1/namespaces/t/services",
        "/api/v1/nodes",
        "/apis/coordination.k8s.io/v1/namespaces/t/leases",
        "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        "/apis/rbac.authorization.k8s.io/v1/rolebindings",
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    ] {
        let t = table(&s, path);
        assert_eq!(column_names(&t)[0], "Name", "{path}");
        for r in t["rows"].as_array().expect("rows") {
            assert_eq!(
                r["cells"].as_array().map(Vec::len),
                Some(column_names(&t).len()),
                "{path}"
            );
        }
    }

    // A CRD's additionalPrinterColumns, JSONPath filters included.
    let crd: Value = serde_json::from_str(CRD).expect("crd");
    create(
        &s,
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        &crd,
    );
    let widgets = "/apis/x.io/v1/namespaces/t/widgets";
    wait_until("widgets served", || s.get(widgets).status == 200);
    create(
        &s,
        widgets,
        &json!({"apiVersion": "x.io/v1", "kind": "Widget", "metadata": {"name": "w"},
            "spec": {"replicas": 3, "color": "blue"},
            "status": {"conditions": [{"type": "Synced", "status": "False"}, {"type": "Ready", "status": "True"}]}}),
    );
    let t = table(&s, widgets);
    assert_eq!(
        column_names(&t),
        ["Name", "Replicas", "Ready", "Color", "Age"]
    );
    assert_eq!(t["columnDefinitions"][3]["priority"], 1);
    let r = row(&t, "w");
    assert_eq!(
        (&r["Replicas"], &r["Ready"], &r["Color"]),
        (&json!(3), &json!("True"), &json!("blue"))
    );
    assert!(r["Age"].as_str().is_some_and(|a| a.ends_with('s')), "{r:?}");

    // A single object's Table carries its resourceVersion.
    let one = table(&s, &format!("{ns}/configmaps/cm"));
    let cm = s.get(&format!("{ns}/configmaps/cm")).json();
    assert_eq!(
        one["metadata"]["resourceVersion"],
        cm["metadata"]["resourceVersion"]
    );
    assert_eq!(one["rows"].as_array().map(Vec::len), Some(1));
    let obj = &one["rows"][0]["object"];
    assert_eq!(obj["kind"], "PartialObjectMetadata");
    assert_eq!(obj["apiVersion"], "meta.k8s.io/v1");
    assert_eq!(obj["metadata"], cm["metadata"]);

    // includeObject.
    let none = table(&s, &format!("{ns}/configmaps/cm?includeObject=None"));
    assert!(
        none["rows"][0]
            .as_object()
            .is_some_and(|r| r["object"].is_null())
    );
    let whole = table(&s, &format!("{ns}/configmaps?includeObject=Object"));
    assert_eq!(whole["rows"][0]["object"], cm);
    let bad = get_as(
        &s,
        &format!("{ns}/configmaps?includeObject=Everything"),
        TABLE,
    );
    assert_eq!(bad.status, 400, "{}", bad.text());
    assert_eq!(
        bad.json()["message"],
        "Unable to convert to Table as requested: includeObject: Invalid value: \"Everything\": must be 'Metadata', 'Object', 'None', or empty"
    );

    // Fallbacks, v1beta1, and a Table nobody offers.
    let r = get_as(
        &s,
        &format!("{ns}/configmaps"),
        "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
    );
    assert_eq!(r.json()["kind"], "Table");
    let r = get_as(
        &s,
        &format!("{ns}/configmaps"),
        "application/json;as=Table;v=v1beta1;g=meta.k8s.io",
    );
    assert_eq!(r.json()["apiVersion"], "meta.k8s.io/v1beta1");
    let r = get_as(
        &s,
        &format!("{ns}/configmaps"),
        "application/json;as=Table;v=v9;g=meta.k8s.io",
    );
    assert_eq!(r.status, 406, "{}", r.text());
    let r = get_as(
        &s,
        &format!("{ns}/configmaps"),
        "application/json;as=Table;v=v9;g=meta.k8s.io, application/json",
    );
    assert_eq!(r.json()["kind"], "ConfigMapList");
    let missing = get_as(&s, &format!("{ns}/configmaps/none"), TABLE);
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json()["kind"], "Status");

    // A write answered as a Table (its status code kept).
    let r = s.request(
        "POST",
        &format!("{ns}/configmaps"),
        &[("Content-Type", "application/json"), ("Accept", TABLE)],
        Some(br#"{"metadata": {"name": "written"}, "data": {"k": "v"}}"#),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(row(&r.json(), "written")["Data"], 1);
    assert_eq!(s.delete(&format!("{ns}/configmaps/written")).status, 200);

    // Pages under Table: ListMeta carried, continue works.
    for i in 0..3 {
        create(
            &s,
            &format!("{ns}/configmaps"),
            &json!({"metadata": {"name": format!("page-{i}")}}),
        );
    }
    let mut names = Vec::new();
    let mut cont = String::new();
    loop {
        let t = table(&s, &format!("{ns}/configmaps?limit=2&continue={cont}"));
        assert!(t["metadata"]["resourceVersion"].is_string());
        for r in t["rows"].as_array().expect("rows") {
            names.push(
                r["object"]["metadata"]["name"]
                    .as_str()
                    .expect("name")
                    .to_string(),
            );
        }
        match t["metadata"]["continue"].as_str() {
            Some(c) if !c.is_empty() => {
                assert!(t["metadata"]["remainingItemCount"].is_u64());
                cont = c.to_string();
            }
            _ => break,
        }
    }
    assert_eq!(
        names,
        ["cm", "kube-root-ca.crt", "page-0", "page-1", "page-2"]
    );

    // Watch: each event a one-row Table, definitions only on the first.
    let r = get_as(
        &s,
        &format!("{ns}/configmaps?watch=true&timeoutSeconds=1"),
        TABLE,
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let events: Vec<Value> = r
        .text()
        .lines()
        .map(|l| serde_json::from_str(l).expect("event"))
        .collect();
    assert_eq!(events.len(), 5, "{}", r.text());
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["type"], "ADDED");
        assert_eq!(e["object"]["kind"], "Table");
        assert_eq!(e["object"]["rows"].as_array().map(Vec::len), Some(1));
        assert_eq!(e["object"]["columnDefinitions"].is_null(), i > 0, "{e}");
    }
    assert_eq!(column_names(&events[0]["object"]), ["Name", "Data", "Age"]);
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .expect("gzip");
    out
}

fn fill_configmaps(s: &Server) {
    let blob = "x".repeat(4096);
    for i in 0..40 {
        create(
            s,
            "/api/v1/namespaces/default/configmaps",
            &json!({"metadata": {"name": format!("big-{i}")}, "data": {"blob": blob}}),
        );
    }
}

#[test]
fn gzip_for_large_responses() {
    let s = Server::start(&[]);
    fill_configmaps(&s);
    let list = "/api/v1/namespaces/default/configmaps";
    let plain = s.get(list);
    assert!(plain.body.len() > 128 * 1024);
    assert_eq!(plain.header("content-encoding"), None);
    let gz = s.request("GET", list, &[("Accept-Encoding", "gzip")], None);
    assert_eq!(gz.status, 200);
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    assert_eq!(gz.header("vary"), Some("Accept-Encoding"));
    assert!(gz.body.len() < plain.body.len() / 4);
    let unzipped: Value = serde_json::from_slice(&gunzip(&gz.body)).expect("json");
    assert_eq!(unzipped, plain.json());

    // Tables and YAML of a large list are compressed too.
    let t = s.request(
        "GET",
        &format!("{list}?includeObject=Object"),
        &[("Accept-Encoding", "gzip"), ("Accept", TABLE)],
        None,
    );
    assert_eq!(t.header("content-encoding"), Some("gzip"));
    let t: Value = serde_json::from_slice(&gunzip(&t.body)).expect("json");
    // The 40 ConfigMaps and the namespace's kube-root-ca.crt.
    assert_eq!(t["rows"].as_array().map(Vec::len), Some(41));

    // Small bodies and watch streams are not.
    let small = s.request(
        "GET",
        &format!("{list}/big-0"),
        &[("Accept-Encoding", "gzip")],
        None,
    );
    assert_eq!(small.status, 200);
    assert_eq!(small.header("content-encoding"), None);
    let watch = s.request(
        "GET",
        &format!("{list}?watch=true&timeoutSeconds=1"),
        &[("Accept-Encoding", "gzip")],
        None,
    );
    assert_eq!(watch.header("content-encoding"), None);
    assert_eq!(watch.text().lines().count(), 41);
}

#[test]
fn gzip_off_with_its_gate() {
    let s = Server::start(&["--feature-gates", "APIResponseCompression=false"]);
    fill_configmaps(&s);
    let r = s.request(
        "GET",
        "/api/v1/namespaces/default/configmaps",
        &[("Accept-Encoding", "gzip")],
        None,
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-encoding"), None);
    assert_eq!(r.json()["items"].as_array().map(Vec::len), Some(41));
}

fn to_cbor(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    ciborium::into_writer(v, &mut out).expect("cbor");
    out
}

/// Reads one CBOR item: it must carry the self-described tag.
fn from_cbor(bytes: &[u8]) -> Value {
    assert_eq!(&bytes[..3], &[0xd9, 0xd9, 0xf7], "self-described tag");
    let item: ciborium::Value = ciborium::from_reader(bytes).expect("cbor");
    let ciborium::Value::Tag(55799, inner) = item else {
        panic!("not tagged: {item:?}")
    };
    inner.deserialized().expect("json-compatible")
}

/// Whether every map in a CBOR item has its keys in deterministic order.
fn keys_sorted(v: &ciborium::Value) -> bool {
    match v {
        ciborium::Value::Map(entries) => {
            let keys: Vec<&str> = entries.iter().filter_map(|(k, _)| k.as_text()).collect();
            keys.windows(2)
                .all(|w| (w[0].len(), w[0]) < (w[1].len(), w[1]))
                && entries.iter().all(|(_, v)| keys_sorted(v))
        }
        ciborium::Value::Array(a) => a.iter().all(keys_sorted),
        ciborium::Value::Tag(_, inner) => keys_sorted(inner),
        _ => true,
    }
}

#[test]
fn cbor_round_trips_with_the_gate_on() {
    let s = Server::start(&[
        "--api-domain",
        "k8s.io",
        "--feature-gates",
        "CBORServingAndStorage=true",
    ]);
    let cms = "/api/v1/namespaces/default/configmaps";
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "c1", "labels": {"a": "b"}}, "data": {"k": "v"}});
    let created = s.request(
        "POST",
        cms,
        &[
            ("Content-Type", "application/cbor"),
            ("Accept", "application/cbor"),
        ],
        Some(&to_cbor(&cm)),
    );
    assert_eq!(created.status, 201, "{}", created.text());
    assert_eq!(created.header("content-type"), Some("application/cbor"));
    let created = from_cbor(&created.body);
    assert_eq!(created["data"], json!({"k": "v"}));

    let got = get_as(&s, &format!("{cms}/c1"), "application/cbor");
    assert_eq!(got.status, 200);
    let item: ciborium::Value = ciborium::from_reader(got.body.as_slice()).expect("cbor");
    assert!(keys_sorted(&item));
    assert_eq!(from_cbor(&got.body), s.get(&format!("{cms}/c1")).json());

    // Numbers stay integers; byte strings arrive as base64 text.
    let lease = json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
        "metadata": {"name": "l"}, "spec": {"holderIdentity": "me", "leaseDurationSeconds": 15}});
    let r = s.request(
        "POST",
        "/apis/coordination.k8s.io/v1/namespaces/default/leases",
        &[("Content-Type", "application/cbor")],
        Some(&to_cbor(&lease)),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["spec"]["leaseDurationSeconds"], 15);
    let secret = ciborium::Value::Map(vec![
        ("apiVersion".into(), "v1".into()),
        ("kind".into(), "Secret".into()),
        (
            "metadata".into(),
            ciborium::Value::Map(vec![("name".into(), "s1".into())]),
        ),
        (
            "data".into(),
            ciborium::Value::Map(vec![(
                "pw".into(),
                ciborium::Value::Bytes(b"hunter2".to_vec()),
            )]),
        ),
    ]);
    let mut body = Vec::new();
    ciborium::into_writer(&secret, &mut body).expect("cbor");
    let r = s.request(
        "POST",
        "/api/v1/namespaces/default/secrets",
        &[("Content-Type", "application/cbor")],
        Some(&body),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["data"]["pw"], "aHVudGVyMg==");

    // Lists.
    let list = get_as(&s, cms, "application/cbor");
    assert_eq!(from_cbor(&list.body), s.get(cms).json());

    // Server-side apply in CBOR; the CBOR forms of other patches are 415.
    create(&s, cms, &json!({"metadata": {"name": "c2"}}));
    let apply = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "c2"}, "data": {"applied": "yes"}});
    // apply-patch+cbor takes the apply-patch+yaml path with the same
    // document: the same answer, and the change when apply succeeds.
    let apply_as = |ct: &str, body: &[u8]| {
        s.request(
            "PATCH",
            &format!("{cms}/c2?fieldManager=test"),
            &[("Content-Type", ct)],
            Some(body),
        )
    };
    let yaml = apply_as(
        "application/apply-patch+yaml",
        &serde_json::to_vec(&apply).expect("json"),
    );
    let cbor = apply_as("application/apply-patch+cbor", &to_cbor(&apply));
    assert_eq!(cbor.status, yaml.status, "{}", cbor.text());
    if cbor.status < 300 {
        assert_eq!(s.get(&format!("{cms}/c2")).json()["data"]["applied"], "yes");
    } else {
        assert_eq!(cbor.json()["message"], yaml.json()["message"]);
    }
    for ct in [
        "application/merge-patch+cbor",
        "application/json-patch+cbor",
        "application/strategic-merge-patch+cbor",
    ] {
        let r = s.request(
            "PATCH",
            &format!("{cms}/c1"),
            &[("Content-Type", ct)],
            Some(&to_cbor(&json!({"data": {"x": "y"}}))),
        );
        assert_eq!(r.status, 415, "{ct}: {}", r.text());
    }
    let garbage = s.request(
        "POST",
        cms,
        &[("Content-Type", "application/cbor")],
        Some(&[0xff, 0x00]),
    );
    assert_eq!(garbage.status, 400, "{}", garbage.text());

    // Watch: a CBOR sequence, one tagged item per event.
    let w = get_as(
        &s,
        &format!("{cms}?watch=true&timeoutSeconds=1"),
        "application/cbor",
    );
    assert_eq!(w.header("content-type"), Some("application/cbor-seq"));
    let mut rest = w.body.as_slice();
    let mut names = Vec::new();
    while !rest.is_empty() {
        assert_eq!(&rest[..3], &[0xd9, 0xd9, 0xf7]);
        let item: ciborium::Value = ciborium::from_reader(&mut rest).expect("item");
        let ciborium::Value::Tag(_, inner) = item else {
            panic!("untagged")
        };
        let ev: Value = inner.deserialized().expect("event");
        assert_eq!(ev["type"], "ADDED");
        names.push(
            ev["object"]["metadata"]["name"]
                .as_str()
                .expect("name")
                .to_string(),
        );
    }
    assert_eq!(names, ["c1", "c2", "kube-root-ca.crt"]);
}

#[test]
fn cbor_not_offered_with_the_gate_off() {
    let s = Server::start(&[]);
    let cms = "/api/v1/namespaces/default/configmaps";
    let r = get_as(&s, cms, "application/cbor");
    assert_eq!(r.status, 406, "{}", r.text());
    let r = get_as(&s, cms, "application/cbor, application/json;q=0.5");
    assert_eq!(r.json()["kind"], "ConfigMapList");
    let body = to_cbor(&json!({"metadata": {"name": "c"}}));
    let r = s.request(
        "POST",
        cms,
        &[("Content-Type", "application/cbor")],
        Some(&body),
    );
    assert_eq!(r.status, 415, "{}", r.text());
    assert_eq!(s.get(&format!("{cms}/c")).status, 404);

    // Under the default domain a Table is in the group the client names.
    for (group, api_version) in [
        ("meta.svc.io", "meta.svc.io/v1"),
        ("meta.k8s.io", "meta.k8s.io/v1"),
    ] {
        let t = get_as(
            &s,
            "/api/v1/namespaces",
            &format!("application/json;as=Table;v=v1;g={group}"),
        );
        assert_eq!(t.json()["apiVersion"], api_version);
        assert_eq!(t.json()["rows"][0]["object"]["apiVersion"], api_version);
    }
}

#[test]
fn kubectl_prints_server_tables() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start(&["--api-domain", "k8s.io"]);
    let k = |args: &[&str]| {
        let (ok, out) = kubectl(&s, args, None);
        assert!(ok, "kubectl {args:?}: {out}");
        out
    };
    // kubectl's `create <kind>` commands send protobuf bodies.
    k(&["create", "namespace", "kt"]);
    k(&[
        "create",
        "configmap",
        "cfg",
        "-n",
        "kt",
        "--from-literal=a=1",
        "--from-literal=b=2",
    ]);
    k(&[
        "create",
        "secret",
        "generic",
        "pw",
        "-n",
        "kt",
        "--from-literal=p=x",
    ]);
    create(
        &s,
        "/api/v1/namespaces/kt/pods",
        &json!({"metadata": {"name": "web"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}),
    );
    create(
        &s,
        "/api/v1/namespaces/kt/events",
        &event("ev1", "Scheduled"),
    );

    let header = |out: &str| {
        out.lines()
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let out = k(&["get", "namespaces"]);
    assert_eq!(header(&out), "NAME STATUS AGE", "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("kt ") && l.contains("Active")),
        "{out}"
    );
    let out = k(&["get", "configmaps", "-n", "kt"]);
    assert_eq!(header(&out), "NAME DATA AGE", "{out}");
    assert!(
        out.lines()
            .any(|l| l.split_whitespace().take(2).eq(["cfg", "2"])),
        "{out}"
    );
    let out = k(&["get", "secrets", "-n", "kt"]);
    assert_eq!(header(&out), "NAME TYPE DATA AGE", "{out}");
    assert!(
        out.lines()
            .any(|l| l.split_whitespace().take(3).eq(["pw", "Opaque", "1"])),
        "{out}"
    );
    let out = k(&["describe", "namespace", "kt"]);
    assert!(
        out.contains("Name:")
            && out.contains("kt")
            && out.contains("Status:")
            && out.contains("Active"),
        "{out}"
    );
    let out = k(&["get", "pods", "-n", "kt"]);
    assert_eq!(header(&out), "NAME READY STATUS RESTARTS AGE", "{out}");
    assert!(
        out.lines().any(|l| l
            .split_whitespace()
            .take(4)
            .eq(["web", "0/1", "Pending", "0"])),
        "{out}"
    );
    let out = k(&["get", "events", "-n", "kt"]);
    assert_eq!(
        header(&out),
        "LAST SEEN TYPE REASON OBJECT MESSAGE",
        "{out}"
    );
    assert!(
        out.contains("pod/web-1") && out.contains("Scheduled happened"),
        "{out}"
    );
    let out = k(&["get", "pods", "-n", "kt", "-o", "wide"]);
    assert!(
        header(&out).starts_with("NAME READY STATUS RESTARTS AGE IP NODE NOMINATED NODE"),
        "{out}"
    );
    let out = k(&["get", "events", "-n", "kt", "-o", "wide"]);
    assert!(
        header(&out).contains("SUBOBJECT SOURCE MESSAGE FIRST SEEN COUNT NAME"),
        "{out}"
    );

    // get -w: the listed table, then a change as a new row.
    let mut kubectl = cairn_tests::clients::kubectl_command(&s);
    let mut watcher = kubectl
        .args(["--server", &s.url(), "get", "configmaps", "-n", "kt", "-w"])
        .env("KUBECONFIG", "/dev/null")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("kubectl get -w");
    let stdout = watcher.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    let saw = |want: &str, seen: &mut Vec<String>| {
        wait_until(want, || {
            while let Ok(l) = rx.recv_timeout(Duration::from_millis(50)) {
                seen.push(l);
            }
            seen.iter().any(|l| l.starts_with(want))
        });
    };
    saw("cfg ", &mut seen);
    create(
        &s,
        "/api/v1/namespaces/kt/configmaps",
        &json!({"metadata": {"name": "later"}, "data": {"x": "1"}}),
    );
    saw("later ", &mut seen);
    let _ = watcher.kill();
    let _ = watcher.wait();
    assert!(
        seen.iter()
            .any(|l| l.split_whitespace().take(2).eq(["later", "1"])),
        "{seen:?}"
    );
}
