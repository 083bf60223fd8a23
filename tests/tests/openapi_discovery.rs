//! OpenAPI documents (`/openapi/v2`, `/openapi/v3` and its per group/version
//! documents) and aggregated discovery against the real binary: every kind
//! with its extensions, CRDs coming and going, ETag/304, and kubectl using
//! them (default validation, `explain`, `api-resources`).

use cairn_tests::{Server, kubectl, kubectl_present, wait_until};
use serde_json::{Value, json};

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const KUBECTL_DISCOVERY: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
const CONFIG_MAP: &str = "io.k8s.api.core.v1.ConfigMap";
const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
const CRON_TAB: &str = "com.example.stable.v1.CronTab";

fn server() -> Server {
    Server::start(&["--api-domain", "k8s.io"])
}

fn crontab_crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "crontabs.stable.example.com"},
        "spec": {
            "group": "stable.example.com",
            "scope": "Namespaced",
            "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab", "shortNames": ["ct"]},
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {
                        "spec": {"type": "object", "properties": {
                            "cronSpec": {"type": "string", "description": "The cron schedule."},
                            "replicas": {"type": "integer", "default": 1},
                            "ports": {
                                "type": "array",
                                "x-kubernetes-list-type": "map",
                                "x-kubernetes-list-map-keys": ["port"],
                                "items": {"type": "object", "required": ["port"], "properties": {"port": {"type": "integer"}}}
                            },
                            "target": {"x-kubernetes-int-or-string": true}
                        }},
                        "status": {"type": "object", "properties": {"phase": {"type": "string"}}}
                    }
                }}
            }]
        }
    })
}

fn established(s: &Server) -> bool {
    let crd = s.get(&format!("{CRDS}/crontabs.stable.example.com")).json();
    crd["status"]["conditions"].as_array().is_some_and(|cs| {
        cs.iter()
            .any(|c| c["type"] == "Established" && c["status"] == "True")
    })
}

fn get_with(s: &Server, path: &str, headers: &[(&str, &str)]) -> cairn_tests::Response {
    s.request("GET", path, headers, None)
}

/// The document the v3 index lists for `key`, if listed (and still there:
/// a CRD may come or go between the two requests).
fn v3_document(s: &Server, key: &str) -> Option<Value> {
    let index = s.get("/openapi/v3").json();
    let url = index["paths"][key]["serverRelativeURL"]
        .as_str()?
        .to_string();
    let mut r = s.get(&url);
    if r.status == 301 {
        // The group/version changed since the index was read.
        r = s.get(r.header("location").expect("a Location"));
    }
    if r.status == 404 {
        return None;
    }
    assert_eq!(r.status, 200, "{url}: {}", r.text());
    Some(r.json())
}

fn gvk(group: &str, version: &str, kind: &str) -> Value {
    json!({"group": group, "version": version, "kind": kind})
}

/// A 304 for the tag the first response carried.
fn assert_etag_revalidates(s: &Server, path: &str, headers: &[(&str, &str)]) -> String {
    let first = get_with(s, path, headers);
    assert_eq!(first.status, 200, "{path}: {}", first.text());
    let tag = first.header("etag").expect("an ETag").to_string();
    assert!(tag.starts_with('"') && tag.ends_with('"'), "{tag}");
    let mut with_tag = headers.to_vec();
    with_tag.push(("If-None-Match", &tag));
    let again = get_with(s, path, &with_tag);
    assert_eq!(again.status, 304, "{path}");
    assert!(again.body.is_empty());
    assert_eq!(again.header("etag"), Some(tag.as_str()));
    let mut other = headers.to_vec();
    other.push(("If-None-Match", "\"something-else\""));
    assert_eq!(get_with(s, path, &other).status, 200);
    tag
}

#[test]
fn openapi_v2_and_v3_describe_every_kind() {
    let s = server();

    let r = s.get("/openapi/v2");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let v2 = r.json();
    assert_eq!(v2["swagger"], "2.0");
    let defs = &v2["definitions"];
    let cm = &defs[CONFIG_MAP];
    assert_eq!(
        cm["x-kubernetes-group-version-kind"],
        json!([gvk("", "v1", "ConfigMap")])
    );
    assert_eq!(
        cm["properties"]["metadata"]["$ref"],
        format!("#/definitions/{OBJECT_META}")
    );
    assert_eq!(
        cm["properties"]["data"]["additionalProperties"]["type"],
        "string"
    );
    let meta = &defs[OBJECT_META]["properties"];
    assert_eq!(meta["ownerReferences"]["x-kubernetes-list-type"], "map");
    assert_eq!(
        meta["ownerReferences"]["x-kubernetes-list-map-keys"],
        json!(["uid"])
    );
    assert_eq!(
        meta["ownerReferences"]["items"]["x-kubernetes-map-type"],
        "atomic"
    );
    assert_eq!(meta["finalizers"]["x-kubernetes-list-type"], "set");
    assert_eq!(meta["creationTimestamp"]["format"], "date-time");
    assert_eq!(
        defs["io.k8s.api.core.v1.ConfigMapList"]["properties"]["items"]["items"]["$ref"],
        format!("#/definitions/{CONFIG_MAP}")
    );
    // Every served kind has its definition, named as Kubernetes names it.
    for (name, kind) in [
        ("io.k8s.api.core.v1.Namespace", gvk("", "v1", "Namespace")),
        ("io.k8s.api.core.v1.Pod", gvk("", "v1", "Pod")),
        (
            "io.k8s.api.events.v1.Event",
            gvk("events.k8s.io", "v1", "Event"),
        ),
        (
            "io.k8s.api.coordination.v1.Lease",
            gvk("coordination.k8s.io", "v1", "Lease"),
        ),
        (
            "io.k8s.api.rbac.v1.ClusterRole",
            gvk("rbac.authorization.k8s.io", "v1", "ClusterRole"),
        ),
        (
            "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
            gvk("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
        ),
    ] {
        assert_eq!(
            defs[name]["x-kubernetes-group-version-kind"],
            json!([kind]),
            "{name}"
        );
    }
    let item = &v2["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"];
    let patch = &item["patch"];
    assert_eq!(patch["x-kubernetes-action"], "patch");
    assert_eq!(
        patch["x-kubernetes-group-version-kind"],
        gvk("", "v1", "ConfigMap")
    );
    let params: Vec<&str> = patch["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(
        params.contains(&"fieldValidation") && params.contains(&"fieldManager"),
        "{params:?}"
    );
    assert_eq!(item["get"]["x-kubernetes-action"], "get");
    assert_eq!(item["delete"]["x-kubernetes-action"], "delete");
    let collection = &v2["paths"]["/api/v1/namespaces/{namespace}/configmaps"];
    assert_eq!(collection["get"]["x-kubernetes-action"], "list");
    assert_eq!(collection["post"]["x-kubernetes-action"], "post");
    assert_eq!(
        collection["delete"]["x-kubernetes-action"],
        "deletecollection"
    );
    assert_eq!(
        v2["paths"]["/api/v1/watch/namespaces/{namespace}/configmaps/{name}"]["get"]["x-kubernetes-action"],
        "watch"
    );
    assert!(v2["paths"]["/api/v1/namespaces/{name}/finalize"]["put"].is_object());
    assert_etag_revalidates(&s, "/openapi/v2", &[]);
    // The protobuf form is offered too (openapi_v2_protobuf.rs covers it);
    // a form neither is refused.
    let proto = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
    assert_eq!(
        get_with(&s, "/openapi/v2", &[("Accept", proto)]).status,
        200
    );
    assert_eq!(
        get_with(&s, "/openapi/v2", &[("Accept", "text/html")]).status,
        406
    );

    let index = s.get("/openapi/v3").json();
    for key in [
        "api/v1",
        "apis/rbac.authorization.k8s.io/v1",
        "apis/events.k8s.io/v1",
    ] {
        let url = index["paths"][key]["serverRelativeURL"]
            .as_str()
            .expect(key);
        assert!(
            url.starts_with(&format!("/openapi/v3/{key}?hash=")),
            "{url}"
        );
    }
    assert_etag_revalidates(&s, "/openapi/v3", &[]);
    let url = index["paths"]["api/v1"]["serverRelativeURL"]
        .as_str()
        .expect("url");
    let r = s.get(url);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("cache-control"), Some("public, immutable"));
    assert!(r.header("expires").is_some_and(|e| e.ends_with("GMT")));
    let v3 = r.json();
    assert_eq!(v3["openapi"], "3.0.0");
    let schemas = &v3["components"]["schemas"];
    assert_eq!(
        schemas[CONFIG_MAP]["x-kubernetes-group-version-kind"],
        json!([gvk("", "v1", "ConfigMap")])
    );
    assert_eq!(
        schemas[CONFIG_MAP]["properties"]["metadata"]["allOf"][0]["$ref"],
        format!("#/components/schemas/{OBJECT_META}")
    );
    assert_eq!(
        schemas[OBJECT_META]["properties"]["finalizers"]["x-kubernetes-list-type"],
        "set"
    );
    assert!(
        schemas.get("io.k8s.api.rbac.v1.Role").is_none(),
        "only the group/version's kinds"
    );
    let patch = &v3["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"]["patch"];
    assert_eq!(
        patch["x-kubernetes-group-version-kind"],
        gvk("", "v1", "ConfigMap")
    );
    assert!(
        patch["parameters"]
            .as_array()
            .expect("parameters")
            .iter()
            .any(|p| p["name"] == "fieldValidation"),
        "{patch}"
    );
    assert!(patch["requestBody"]["content"]["application/merge-patch+json"].is_object());
    assert_etag_revalidates(&s, url, &[]);
    let stale = s.get("/openapi/v3/api/v1?hash=0123");
    assert_eq!(stale.status, 301);
    assert_eq!(stale.header("location"), Some(url));
    assert_eq!(s.get("/openapi/v3/apis/nothing.example.com/v1").status, 404);
    assert_eq!(
        s.get("/openapi/v3/api/v1").json(),
        v3,
        "without a hash: the same document"
    );
}

#[test]
fn aggregated_discovery_lists_every_resource() {
    let s = server();
    let r = get_with(&s, "/api", &[("Accept", KUBECTL_DISCOVERY)]);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some(AGGREGATED));
    assert_eq!(r.header("vary"), Some("Accept"));
    let core = r.json();
    assert_eq!(core["kind"], "APIGroupDiscoveryList");
    assert_eq!(core["apiVersion"], "apidiscovery.k8s.io/v2");
    let items = core["items"].as_array().expect("items");
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["metadata"]["name"], "");
    let v1 = &items[0]["versions"][0];
    assert_eq!(v1["version"], "v1");
    assert_eq!(v1["freshness"], "Current");
    let resources = v1["resources"].as_array().expect("resources");
    let find = |name: &str| {
        resources
            .iter()
            .find(|r| r["resource"] == name)
            .unwrap_or_else(|| panic!("{name} in {resources:?}"))
            .clone()
    };
    let cm = find("configmaps");
    assert_eq!(cm["responseKind"], gvk("", "v1", "ConfigMap"));
    assert_eq!(cm["scope"], "Namespaced");
    assert_eq!(cm["singularResource"], "configmap");
    assert_eq!(cm["shortNames"], json!(["cm"]));
    assert!(
        cm["verbs"]
            .as_array()
            .expect("verbs")
            .contains(&json!("watch"))
    );
    let ns = find("namespaces");
    assert_eq!(ns["scope"], "Cluster");
    let finalize = ns["subresources"]
        .as_array()
        .expect("subresources")
        .iter()
        .find(|s| s["subresource"] == "finalize")
        .expect("finalize")
        .clone();
    assert_eq!(finalize["responseKind"], gvk("", "v1", "Namespace"));
    assert_eq!(finalize["verbs"], json!(["update"]));
    assert_etag_revalidates(&s, "/api", &[("Accept", AGGREGATED)]);

    let apis = get_with(&s, "/apis", &[("Accept", AGGREGATED)]).json();
    let groups: Vec<&str> = apis["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|g| g["metadata"]["name"].as_str())
        .collect();
    for g in [
        "events.k8s.io",
        "coordination.k8s.io",
        "rbac.authorization.k8s.io",
        "apiextensions.k8s.io",
    ] {
        assert!(groups.contains(&g), "{g} in {groups:?}");
    }
    assert_etag_revalidates(&s, "/apis", &[("Accept", AGGREGATED)]);

    // v2beta1 is echoed; without the aggregated form the plain documents remain.
    let beta = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";
    let r = get_with(&s, "/apis", &[("Accept", beta)]);
    assert_eq!(r.header("content-type"), Some(beta));
    assert_eq!(r.json()["apiVersion"], "apidiscovery.k8s.io/v2beta1");
    assert_eq!(s.get("/api").json()["kind"], "APIVersions");
    assert_eq!(s.get("/apis").json()["kind"], "APIGroupList");
}

#[test]
fn crds_appear_in_and_leave_openapi_and_discovery() {
    let s = server();
    let disc_tag = |s: &Server| {
        get_with(s, "/apis", &[("Accept", AGGREGATED)])
            .header("etag")
            .expect("etag")
            .to_string()
    };
    let v2_tag_before = s
        .get("/openapi/v2")
        .header("etag")
        .expect("etag")
        .to_string();
    let disc_before = disc_tag(&s);
    assert!(v3_document(&s, "apis/stable.example.com/v1").is_none());

    assert_eq!(s.post(CRDS, &crontab_crd()).status, 201);
    wait_until("the CRD to be established", || established(&s));
    wait_until("the CRD in the OpenAPI v3 index", || {
        v3_document(&s, "apis/stable.example.com/v1").is_some()
    });
    let doc = v3_document(&s, "apis/stable.example.com/v1").expect("document");
    let def = &doc["components"]["schemas"][CRON_TAB];
    assert_eq!(
        def["x-kubernetes-group-version-kind"],
        json!([gvk("stable.example.com", "v1", "CronTab")])
    );
    let spec = &def["properties"]["spec"]["properties"];
    assert_eq!(spec["cronSpec"]["description"], "The cron schedule.");
    assert_eq!(spec["replicas"]["default"], 1);
    assert_eq!(spec["ports"]["x-kubernetes-list-type"], "map");
    assert_eq!(spec["ports"]["x-kubernetes-list-map-keys"], json!(["port"]));
    assert_eq!(spec["target"]["x-kubernetes-int-or-string"], true);
    let patch = &doc["paths"]["/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}"]
        ["patch"];
    assert_eq!(
        patch["x-kubernetes-group-version-kind"],
        gvk("stable.example.com", "v1", "CronTab")
    );
    let body_types = patch["requestBody"]["content"]
        .as_object()
        .expect("content");
    assert!(
        !body_types.contains_key("application/strategic-merge-patch+json"),
        "{body_types:?}"
    );
    assert!(doc["paths"]["/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}/status"]["put"].is_object());

    let v2 = s.get("/openapi/v2");
    assert_ne!(v2.header("etag"), Some(v2_tag_before.as_str()));
    assert!(v2.json()["definitions"][CRON_TAB].is_object());
    let stale = get_with(&s, "/openapi/v2", &[("If-None-Match", &v2_tag_before)]);
    assert_eq!(stale.status, 200, "a changed document is sent again");

    assert_ne!(disc_tag(&s), disc_before);
    let apis = get_with(&s, "/apis", &[("Accept", AGGREGATED)]).json();
    let group = apis["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|g| g["metadata"]["name"] == "stable.example.com")
        .expect("the CRD's group")
        .clone();
    let res = &group["versions"][0]["resources"][0];
    assert_eq!(res["resource"], "crontabs");
    assert_eq!(
        res["responseKind"],
        gvk("stable.example.com", "v1", "CronTab")
    );
    assert_eq!(res["shortNames"], json!(["ct"]));
    assert_eq!(res["subresources"][0]["subresource"], "status");

    assert!(
        s.delete(&format!("{CRDS}/crontabs.stable.example.com"))
            .status
            < 300
    );
    wait_until("the CRD to leave the OpenAPI v3 index", || {
        v3_document(&s, "apis/stable.example.com/v1").is_none()
    });
    assert!(
        s.get("/openapi/v2").json()["definitions"]
            .get(CRON_TAB)
            .is_none()
    );
    assert_eq!(disc_tag(&s), disc_before, "discovery is as before the CRD");
}

#[test]
fn kubectl_validates_explains_and_discovers_with_openapi() {
    if !kubectl_present() {
        return;
    }
    let s = server();
    let run = |args: &[&str], stdin: Option<&str>| {
        let (ok, out) = kubectl(&s, args, stdin);
        assert!(
            ok,
            "kubectl {args:?}:\n{out}\nserver log:\n{}",
            s.log_text()
        );
        out
    };
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\ndata:\n  a: b\n";
    assert!(run(&["apply", "-f", "-"], Some(cm)).contains("configmap/cm1 created"));
    assert!(run(&["apply", "-f", "-"], Some(cm)).contains("configmap/cm1 unchanged"));
    // A changed built-in object is re-applied with a strategic merge patch
    // computed against the last-applied annotation: `a` goes, `c` comes.
    let cm_changed = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\ndata:\n  c: d\n";
    assert!(run(&["apply", "-f", "-"], Some(cm_changed)).contains("configmap/cm1 configured"));
    assert_eq!(
        s.get("/api/v1/namespaces/default/configmaps/cm1").json()["data"],
        serde_json::json!({"c": "d"})
    );
    let cm2 = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm2\ndata:\n  a: b\n";
    assert!(run(&["create", "-f", "-"], Some(cm2)).contains("configmap/cm2 created"));
    let ns = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n";
    assert!(run(&["create", "-f", "-"], Some(ns)).contains("namespace/team created"));
    let ns2 = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team2\n";
    assert!(run(&["apply", "-f", "-"], Some(ns2)).contains("namespace/team2 created"));
    let unknown =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm3\nbogus: 1\ndata:\n  a: b\n";
    let (ok, out) = kubectl(&s, &["create", "-f", "-"], Some(unknown));
    assert!(
        !ok && out.contains("strict decoding error: unknown field \"bogus\""),
        "{out}"
    );
    assert_eq!(
        s.get("/api/v1/namespaces/default/configmaps/cm3").status,
        404
    );

    let out = run(&["explain", "configmap.data"], None);
    assert!(out.contains("FIELD: data <map[string]string>"), "{out}");

    let crd = serde_json::to_string(&crontab_crd()).expect("json");
    assert!(run(&["apply", "-f", "-"], Some(&crd)).contains("crontabs.stable.example.com created"));
    wait_until("the CRD to be established", || established(&s));
    let tab = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: t1\nspec:\n  cronSpec: '* * * * */5'\n";
    assert!(
        run(&["apply", "-f", "-"], Some(tab)).contains("crontab.stable.example.com/t1 created")
    );
    let changed = tab.replace("*/5", "*/6");
    assert!(
        run(&["apply", "-f", "-"], Some(&changed))
            .contains("crontab.stable.example.com/t1 configured")
    );
    let tab2 = tab.replace("t1", "t2");
    assert!(
        run(&["create", "-f", "-"], Some(&tab2)).contains("crontab.stable.example.com/t2 created")
    );
    let bad = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: t3\nspec:\n  bogus: 1\n";
    let (ok, out) = kubectl(&s, &["apply", "-f", "-"], Some(bad));
    assert!(!ok && out.contains("unknown field \"spec.bogus\""), "{out}");
    let out = run(&["explain", "crontab.spec.cronSpec"], None);
    assert!(
        out.contains("FIELD: cronSpec <string>") && out.contains("The cron schedule."),
        "{out}"
    );

    let out = run(&["api-resources"], None);
    let line = |name: &str| {
        out.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name} in:\n{out}"))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    assert_eq!(
        line("configmaps"),
        ["configmaps", "cm", "v1", "true", "ConfigMap"]
    );
    assert_eq!(
        line("namespaces"),
        ["namespaces", "ns", "v1", "false", "Namespace"]
    );
    assert_eq!(
        line("crontabs"),
        ["crontabs", "ct", "stable.example.com/v1", "true", "CronTab"]
    );
    let out = run(&["api-versions"], None);
    for gv in [
        "v1",
        "stable.example.com/v1",
        "rbac.authorization.k8s.io/v1",
        "apiextensions.k8s.io/v1",
    ] {
        assert!(out.lines().any(|l| l == gv), "{gv} in:\n{out}");
    }

    let v2: Value =
        serde_json::from_str(&run(&["get", "--raw", "/openapi/v2"], None)).expect("v2 JSON");
    assert!(v2["definitions"][CRON_TAB].is_object());
    let v3: Value =
        serde_json::from_str(&run(&["get", "--raw", "/openapi/v3"], None)).expect("v3 JSON");
    assert!(v3["paths"]["apis/stable.example.com/v1"]["serverRelativeURL"].is_string());
    let doc: Value =
        serde_json::from_str(&run(&["get", "--raw", "/openapi/v3/api/v1"], None)).expect("doc");
    assert!(doc["components"]["schemas"][CONFIG_MAP].is_object());
}
