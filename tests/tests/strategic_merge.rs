//! Strategic merge patch over HTTP against the real binary: built-in kinds
//! merge lists by their patch metadata, bad patches are refused and change
//! nothing, custom resources answer 415; then kubectl's and the Python
//! client's patch calls.

use cairn_tests::{Server, kubectl, kubectl_present, run_python_script, wait_until};
use serde_json::{Value, json};

const SMP: &str = "application/strategic-merge-patch+json";
const PODS: &str = "/api/v1/namespaces/default/pods";
const CMS: &str = "/api/v1/namespaces/default/configmaps";
const SERVICES: &str = "/api/v1/namespaces/default/services";
const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

fn server() -> Server {
    Server::start(&["--api-domain", "k8s.io"])
}

fn created(s: &Server, collection: &str, body: &Value) -> Value {
    let r = s.post(collection, body);
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()
}

fn patched(s: &Server, path: &str, patch: &Value) -> Value {
    let r = s.patch(path, SMP, &patch.to_string());
    assert_eq!(r.status, 200, "{patch}: {}", r.text());
    r.json()
}

fn names(list: &Value, field: &str) -> Vec<String> {
    list.as_array()
        .expect("list")
        .iter()
        .map(|i| i[field].to_string().trim_matches('"').to_owned())
        .collect()
}

#[test]
fn built_in_kinds_merge_lists_by_their_patch_metadata() {
    let s = server();

    // ConfigMap: maps merge, null deletes; metadata.finalizers is a set.
    created(
        &s,
        CMS,
        &json!({"metadata": {"name": "cm", "finalizers": ["example.com/a"]}, "data": {"a": "1", "b": "2"}}),
    );
    let cm = patched(
        &s,
        &format!("{CMS}/cm"),
        &json!({"data": {"b": null, "c": "3"}, "metadata": {"labels": {"x": "y"}, "finalizers": ["example.com/b"]}}),
    );
    assert_eq!(cm["data"], json!({"a": "1", "c": "3"}));
    assert_eq!(cm["metadata"]["labels"], json!({"x": "y"}));
    assert_eq!(
        cm["metadata"]["finalizers"],
        json!(["example.com/b", "example.com/a"])
    );
    let cm = patched(
        &s,
        &format!("{CMS}/cm"),
        &json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["example.com/a", "example.com/b"]}}),
    );
    let left = cm["metadata"].get("finalizers");
    assert!(left.is_none_or(|f| f == &json!([])), "{cm}");

    // Pod: containers merge by name; an unchanged container stays as it was.
    created(
        &s,
        PODS,
        &json!({"metadata": {"name": "p"}, "spec": {"containers": [
            {"name": "web", "image": "nginx:1.27", "env": [{"name": "A", "value": "1"}]},
            {"name": "side", "image": "busybox:1"}]}}),
    );
    let pod = patched(
        &s,
        &format!("{PODS}/p"),
        &json!({"spec": {"containers": [{"name": "side", "image": "busybox:2"}]}}),
    );
    let containers = &pod["spec"]["containers"];
    assert_eq!(names(containers, "name"), ["web", "side"]);
    assert_eq!(names(containers, "image"), ["nginx:1.27", "busybox:2"]);
    assert_eq!(containers[0]["env"], json!([{"name": "A", "value": "1"}]));

    // Pod status (the kubelet's way): conditions merge by type.
    patched(
        &s,
        &format!("{PODS}/p/status"),
        &json!({"status": {"conditions": [{"type": "PodScheduled", "status": "True"}]}}),
    );
    let pod = patched(
        &s,
        &format!("{PODS}/p/status"),
        &json!({"status": {"conditions": [{"type": "Ready", "status": "False"}, {"type": "PodScheduled", "status": "True", "reason": "Done"}]}}),
    );
    let conditions = &pod["status"]["conditions"];
    assert_eq!(names(conditions, "type"), ["Ready", "PodScheduled"]);
    assert_eq!(conditions[1]["reason"], "Done");

    // An env change merges by name, and the result is an invalid pod
    // update: refused like any other write, nothing stored.
    let before = s.get(&format!("{PODS}/p")).json();
    let r = s.patch(
        &format!("{PODS}/p"),
        SMP,
        r#"{"spec":{"containers":[{"name":"web","env":[{"name":"B","value":"2"}]}]}}"#,
    );
    assert_eq!(r.status, 422, "{}", r.text());
    assert_eq!(s.get(&format!("{PODS}/p")).json(), before);

    // Service: ports merge by port; `$patch: delete` removes one.
    created(
        &s,
        SERVICES,
        &json!({"metadata": {"name": "svc"}, "spec": {"selector": {"app": "a"}, "ports": [
            {"name": "http", "port": 80, "targetPort": 8080},
            {"name": "https", "port": 443, "targetPort": 8443}]}}),
    );
    let svc = patched(
        &s,
        &format!("{SERVICES}/svc"),
        &json!({"spec": {"ports": [{"port": 443, "targetPort": 9443}]}}),
    );
    assert_eq!(names(&svc["spec"]["ports"], "name"), ["http", "https"]);
    assert_eq!(svc["spec"]["ports"][1]["targetPort"], 9443);
    let svc = patched(
        &s,
        &format!("{SERVICES}/svc"),
        &json!({"spec": {"ports": [{"port": 80, "$patch": "delete"}]}}),
    );
    assert_eq!(names(&svc["spec"]["ports"], "name"), ["https"]);

    // ServiceAccount: secrets merge by name; `$setElementOrder` orders them.
    created(
        &s,
        "/api/v1/namespaces/default/serviceaccounts",
        &json!({"metadata": {"name": "sa"}, "secrets": [{"name": "s1"}, {"name": "s2"}]}),
    );
    let sa = patched(
        &s,
        "/api/v1/namespaces/default/serviceaccounts/sa",
        &json!({"$setElementOrder/secrets": [{"name": "s2"}, {"name": "s3"}, {"name": "s1"}],
                "secrets": [{"name": "s3"}]}),
    );
    assert_eq!(names(&sa["secrets"], "name"), ["s2", "s3", "s1"]);
}

fn widget_crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {"spec": {"type": "object", "properties": {"size": {"type": "string"}}}}
            }}}]
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

#[test]
fn bad_patches_are_refused_and_custom_resources_answer_415() {
    let s = server();
    created(
        &s,
        CMS,
        &json!({"metadata": {"name": "cm"}, "data": {"a": "1"}}),
    );
    let path = format!("{CMS}/cm");
    let before = s.get(&path).json();
    for (patch, message) in [
        (r#"{"$foo":{}}"#, "unknown directive"),
        (r#"{"data":{"$patch":"swap"}}"#, "unknown patch type"),
        (
            r#"{"metadata":{"$retainKeys":["name"],"labels":{"a":"b"}}}"#,
            "invalid patch format of retainKeys",
        ),
        (
            r#"{"metadata":{"$deleteFromPrimitiveList/finalizers":"x"}}"#,
            "invalid patch format of primitive list",
        ),
        (r#"["not","an","object"]"#, "must be a JSON object"),
        ("{", "invalid strategic merge patch"),
    ] {
        let r = s.patch(&path, SMP, patch);
        assert_eq!(r.status, 400, "{patch}: {}", r.text());
        let status = r.json();
        assert_eq!(status["reason"], "BadRequest", "{status}");
        let text = status["message"].as_str().unwrap_or_default();
        assert!(text.contains(message), "{patch}: {text}");
    }
    assert_eq!(s.get(&path).json(), before);

    // A patch whose result breaks the kind's rules fails like any write.
    let r = s.patch(&path, SMP, r#"{"data":{"bad key!":"x"}}"#);
    assert_eq!(r.status, 422, "{}", r.text());
    // dryRun answers with the result and stores nothing.
    let r = s.patch(&format!("{path}?dryRun=All"), SMP, r#"{"data":{"b":"2"}}"#);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["data"], json!({"a": "1", "b": "2"}));
    // A stale resourceVersion in the patch is a precondition that fails.
    let r = s.patch(
        &path,
        SMP,
        r#"{"metadata":{"resourceVersion":"1"},"data":{"b":"2"}}"#,
    );
    assert_eq!(r.status, 409, "{}", r.text());
    // fieldValidation=Strict refuses fields the kind does not have.
    let r = s.patch(
        &format!("{path}?fieldValidation=Strict"),
        SMP,
        r#"{"nonsense":1}"#,
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(s.get(&path).json(), before);

    // Custom resources carry no patch metadata: 415, naming the types
    // they accept; merge patch still works.
    let r = s.post(CRDS, &widget_crd());
    assert_eq!(r.status, 201, "{}", r.text());
    wait_until("the CRD to be established", || {
        established(&s, "widgets.example.com")
    });
    let widgets = "/apis/example.com/v1/namespaces/default/widgets";
    created(
        &s,
        widgets,
        &json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": "s"}}),
    );
    let r = s.patch(&format!("{widgets}/w"), SMP, r#"{"spec":{"size":"l"}}"#);
    assert_eq!(r.status, 415, "{}", r.text());
    let status = r.json();
    assert_eq!(status["reason"], "UnsupportedMediaType");
    assert_eq!(
        status["message"],
        "the body of the request was in an unknown format - accepted media types include: \
         application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
    );
    let r = s.patch(
        &format!("{widgets}/w"),
        "application/merge-patch+json",
        r#"{"spec":{"size":"l"}}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn kubectl_patch_types() {
    if !kubectl_present() {
        return;
    }
    let s = server();
    let run = |args: &[&str]| {
        let (ok, out) = kubectl(&s, args, None);
        assert!(ok, "kubectl {args:?}: {out}");
        out
    };
    let cm = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"kc"},"data":{"a":"1"}}"#;
    let (ok, out) = kubectl(&s, &["create", "--validate=false", "-f", "-"], Some(cm));
    assert!(ok, "{out}");
    run(&[
        "patch",
        "configmap",
        "kc",
        "--type",
        "strategic",
        "-p",
        r#"{"data":{"b":"2"}}"#,
    ]);
    run(&[
        "patch",
        "configmap",
        "kc",
        "--type",
        "merge",
        "-p",
        r#"{"data":{"a":null}}"#,
    ]);
    run(&[
        "patch",
        "configmap",
        "kc",
        "--type",
        "json",
        "-p",
        r#"[{"op":"add","path":"/data/c","value":"3"}]"#,
    ]);
    let cm: Value =
        serde_json::from_str(&run(&["get", "configmap", "kc", "-o", "json"])).expect("json");
    assert_eq!(cm["data"], json!({"b": "2", "c": "3"}));

    let pod = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"kp"},"spec":{"containers":[{"name":"web","image":"nginx:1.27"},{"name":"side","image":"busybox:1"}]}}"#;
    let (ok, out) = kubectl(&s, &["create", "--validate=false", "-f", "-"], Some(pod));
    assert!(ok, "{out}");
    // kubectl's default patch type is strategic.
    run(&[
        "patch",
        "pod",
        "kp",
        "-p",
        r#"{"spec":{"containers":[{"name":"web","image":"nginx:1.28"}]}}"#,
    ]);
    let images = run(&[
        "get",
        "pod",
        "kp",
        "-o",
        "jsonpath={.spec.containers[*].image}",
    ]);
    assert_eq!(images.trim(), "nginx:1.28 busybox:1");

    let crd = widget_crd().to_string();
    let (ok, out) = kubectl(&s, &["create", "--validate=false", "-f", "-"], Some(&crd));
    assert!(ok, "{out}");
    wait_until("the CRD to be established", || {
        established(&s, "widgets.example.com")
    });
    let widget = r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"kw"},"spec":{"size":"s"}}"#;
    let (ok, out) = kubectl(&s, &["create", "--validate=false", "-f", "-"], Some(widget));
    assert!(ok, "{out}");
    let (ok, out) = kubectl(
        &s,
        &[
            "patch",
            "widget",
            "kw",
            "--type",
            "strategic",
            "-p",
            r#"{"spec":{"size":"l"}}"#,
        ],
        None,
    );
    assert!(
        !ok && out.contains("the body of the request was in an unknown format"),
        "{out}"
    );
    run(&[
        "patch",
        "widget",
        "kw",
        "--type",
        "merge",
        "-p",
        r#"{"spec":{"size":"l"}}"#,
    ]);
}

#[test]
fn python_client_patch_calls() {
    run_python_script("strategic_patch.py", &["--api-domain", "k8s.io"]);
}
