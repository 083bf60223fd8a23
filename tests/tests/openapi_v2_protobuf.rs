//! `/openapi/v2` in gnostic's protobuf form, as kubectl fetches it for
//! client-side validation of `List` documents: the documented key-rotation
//! pipeline `kubectl get secrets -A -o json | kubectl replace -f -` with
//! validation on, typos in Lists of built-in and custom kinds refused with
//! kubectl's own message, and the negotiation/`ETag` of the two forms.

use cairn_tests::{Server, kubectl_present, kubectl_with_kubeconfig, wait_until};
use prost::Message;
use serde_json::{Value, json};

const PROTOBUF_OLD: &str = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
const PROTOBUF: &str = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

/// Just enough of gnostic's `openapi.v2` messages to read definitions and
/// their vendor extensions back (unknown fields are skipped).
#[derive(Clone, PartialEq, Message)]
struct Document {
    #[prost(string, tag = "1")]
    swagger: String,
    #[prost(message, optional, tag = "9")]
    definitions: Option<Definitions>,
}

#[derive(Clone, PartialEq, Message)]
struct Definitions {
    #[prost(message, repeated, tag = "1")]
    additional_properties: Vec<NamedSchema>,
}

#[derive(Clone, PartialEq, Message)]
struct NamedSchema {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(message, optional, tag = "2")]
    value: Option<Schema>,
}

#[derive(Clone, PartialEq, Message)]
struct Schema {
    #[prost(message, repeated, tag = "31")]
    vendor_extension: Vec<NamedAny>,
}

#[derive(Clone, PartialEq, Message)]
struct NamedAny {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(message, optional, tag = "2")]
    value: Option<Any>,
}

#[derive(Clone, PartialEq, Message)]
struct Any {
    #[prost(string, tag = "2")]
    yaml: String,
}

fn get(s: &Server, path: &str, accept: &str) -> cairn_tests::Response {
    let client = s.admin_client();
    let mut headers = vec![("Accept", accept)];
    if accept.is_empty() {
        headers.clear();
    }
    s.https(&client, "GET", path, &headers, None)
}

fn kubectl(s: &Server, args: &[&str], stdin: Option<&str>) -> (bool, String) {
    kubectl_with_kubeconfig(&s.admin_kubeconfig(), args, stdin)
}

#[test]
fn protobuf_form_is_negotiated_and_shares_the_json_etag() {
    let s = Server::start_secure(&[]);
    let json = get(&s, "/openapi/v2", "application/json");
    assert_eq!(json.status, 200);
    let etag = json.header("etag").expect("an ETag").to_string();
    for accept in [
        PROTOBUF_OLD,
        PROTOBUF,
        &format!("{PROTOBUF_OLD}, application/json"),
    ] {
        let r = get(&s, "/openapi/v2", accept);
        assert_eq!(r.status, 200, "{accept}");
        assert_eq!(r.header("content-type"), Some(PROTOBUF), "{accept}");
        assert_eq!(r.header("etag"), Some(etag.as_str()), "{accept}");
        assert_eq!(r.header("vary"), Some("Accept"));
        let doc = Document::decode(r.body.as_slice()).expect("an openapi.v2.Document");
        assert_eq!(doc.swagger, "2.0");
        let definitions = doc.definitions.expect("definitions").additional_properties;
        let secret = definitions
            .iter()
            .find(|d| d.name == "io.k8s.api.core.v1.Secret")
            .and_then(|d| d.value.as_ref())
            .expect("the Secret definition");
        let gvk = secret
            .vendor_extension
            .iter()
            .find(|e| e.name == "x-kubernetes-group-version-kind")
            .and_then(|e| e.value.as_ref())
            .expect("x-kubernetes-group-version-kind");
        let gvk: Value = serde_saphyr::from_str(&gvk.yaml).expect("YAML");
        assert_eq!(
            gvk,
            json!([{"group": "", "kind": "Secret", "version": "v1"}])
        );
    }
    let cached = s.https(
        &s.admin_client(),
        "GET",
        "/openapi/v2",
        &[("Accept", PROTOBUF_OLD), ("If-None-Match", &etag)],
        None,
    );
    assert_eq!(cached.status, 304);
    assert_eq!(
        get(&s, "/openapi/v2", "").header("content-type"),
        Some("application/json")
    );
    assert_eq!(
        get(&s, "/openapi/v2", "*/*").header("content-type"),
        Some("application/json")
    );
    assert_eq!(get(&s, "/openapi/v2", "text/html").status, 406);
    // The v3 documents are JSON only.
    assert_eq!(get(&s, "/openapi/v3", PROTOBUF_OLD).status, 406);
}

fn resource_versions(list: &str) -> Vec<(String, String)> {
    let list: Value = serde_json::from_str(list).unwrap_or_else(|e| panic!("{e}: {list}"));
    let mut out: Vec<(String, String)> = list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| {
            let m = &i["metadata"];
            (
                format!(
                    "{}/{}",
                    m["namespace"].as_str().unwrap_or_default(),
                    m["name"].as_str().unwrap_or_default()
                ),
                m["resourceVersion"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn the_documented_pipeline_replaces_every_secret_with_validation_on() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start_secure(&[]);
    let (ok, out) = kubectl(&s, &["create", "namespace", "team-a"], None);
    assert!(ok, "{out}");
    for (ns, name) in [("default", "db-password"), ("team-a", "api-key")] {
        let (ok, out) = kubectl(
            &s,
            &[
                "create",
                "secret",
                "generic",
                name,
                "-n",
                ns,
                "--from-literal=value=hunter2",
            ],
            None,
        );
        assert!(ok, "{out}");
    }
    let (ok, before) = kubectl(&s, &["get", "secrets", "-A", "-o", "json"], None);
    assert!(ok, "{before}");
    let (ok, out) = kubectl(&s, &["replace", "-f", "-"], Some(&before));
    assert!(ok, "kubectl replace:\n{out}\nserver log:\n{}", s.log_text());
    assert!(out.contains("secret/db-password replaced"), "{out}");
    assert!(out.contains("secret/api-key replaced"), "{out}");
    let (ok, after) = kubectl(&s, &["get", "secrets", "-A", "-o", "json"], None);
    assert!(ok, "{after}");
    // Without encryption the replaced Secrets equal the stored ones: as in
    // Kubernetes the writes change nothing and are not stored again (with a
    // rotated key they are: see encryption_at_rest's rotation test).
    let (before, after) = (resource_versions(&before), resource_versions(&after));
    assert_eq!(before.len(), 2);
    assert_eq!(before, after);
}

const TYPO_LIST: &str = "apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: settings, namespace: default}
  data: {mode: fast}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: default}
  spec:
    contaners: [{name: web, image: nginx}]
";

#[test]
fn a_list_with_an_unknown_field_is_refused_before_anything_is_written() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start_secure(&[]);
    for verb in ["apply", "create"] {
        let (ok, out) = kubectl(&s, &[verb, "-f", "-"], Some(TYPO_LIST));
        assert!(!ok, "{out}");
        assert!(out.contains("error validating data"), "{out}");
        assert!(
            out.contains(r#"unknown field "contaners" in io.k8s.api.core.v1.Pod.spec"#),
            "{out}"
        );
        assert!(
            out.contains(r#"missing required field "containers""#),
            "{out}"
        );
    }
    let settings = get(
        &s,
        "/api/v1/namespaces/default/configmaps/settings",
        "application/json",
    );
    assert_eq!(settings.status, 404, "validation happens before any write");
    let fixed = TYPO_LIST.replace("contaners", "containers");
    let (ok, out) = kubectl(&s, &["apply", "-f", "-"], Some(&fixed));
    assert!(ok, "{out}");
    assert!(
        out.contains("configmap/settings created") && out.contains("pod/web created"),
        "{out}"
    );
}

fn crontab_crd() -> &'static str {
    "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              cronSpec: {type: string}
              replicas: {type: integer}
"
}

fn crontab_list(first_spec: &str) -> String {
    format!(
        "apiVersion: v1
kind: List
items:
- apiVersion: stable.example.com/v1
  kind: CronTab
  metadata: {{name: nightly, namespace: default}}
  spec: {first_spec}
- apiVersion: stable.example.com/v1
  kind: CronTab
  metadata: {{name: hourly, namespace: default}}
  spec: {{cronSpec: '0 * * * *', replicas: 1}}
"
    )
}

#[test]
fn lists_of_custom_resources_validate_against_the_crd_schema() {
    if !kubectl_present() {
        return;
    }
    let s = Server::start_secure(&[]);
    let (ok, out) = kubectl(&s, &["apply", "-f", "-"], Some(crontab_crd()));
    assert!(ok, "{out}");
    wait_until("CronTab in /openapi/v2", || {
        get(&s, "/openapi/v2", "application/json").json()["definitions"]
            .get("com.example.stable.v1.CronTab")
            .is_some()
    });
    let typo = crontab_list("{cronSpek: '0 0 * * *', replicas: two}");
    let (ok, out) = kubectl(&s, &["apply", "-f", "-"], Some(&typo));
    assert!(!ok, "{out}");
    assert!(
        out.contains(r#"unknown field "cronSpek" in com.example.stable.v1.CronTab.spec"#),
        "{out}"
    );
    assert!(
        out.contains(r#"invalid type for com.example.stable.v1.CronTab.spec.replicas: got "string", expected "integer""#),
        "{out}"
    );
    let good = crontab_list("{cronSpec: '0 0 * * *', replicas: 2}");
    let (ok, out) = kubectl(&s, &["apply", "-f", "-"], Some(&good));
    assert!(ok, "{out}");
    let (ok, list) = kubectl(&s, &["get", "crontabs", "-o", "json"], None);
    assert!(ok, "{list}");
    let (ok, out) = kubectl(&s, &["replace", "-f", "-"], Some(&list));
    assert!(ok, "{out}");
    assert!(
        out.contains("crontab.stable.example.com/nightly replaced"),
        "{out}"
    );
}
