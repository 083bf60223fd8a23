//! API aggregation on the real binary: local APIServices for every served
//! group version, and an extension API server the test runs (HTTPS with a
//! CA of its own, requiring cairn's `--proxy-client-cert-file`) behind an
//! APIService: Available once its discovery answers, listed in `/apis`
//! and `kubectl api-resources`, its resources served through cairn with
//! the caller's identity in `X-Remote-*` headers; an APIService whose
//! service is missing is unavailable and its requests are 503s.

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use cairn_tests::clients::{kubectl, kubectl_present};
use cairn_tests::echo_server::{Answer, EchoServer, Seen};
use cairn_tests::tls::make;
use cairn_tests::{Server, wait_until};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConfig};
use serde_json::{Value, json};

const GROUP: &str = "widgets.example.io";

/// The extension server: its discovery document and a list of widgets.
fn extension(seen: &Seen) -> Answer {
    let body = if seen.target == format!("/apis/{GROUP}/v1") {
        json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": format!("{GROUP}/v1"),
            "resources": [
                {"name": "widgets", "singularName": "widget", "namespaced": true, "kind": "Widget",
                 "verbs": ["get", "list"], "shortNames": ["wdg"]},
                {"name": "widgets/status", "singularName": "", "namespaced": true, "kind": "Widget",
                 "verbs": ["get"]}]})
    } else if seen
        .target
        .starts_with(&format!("/apis/{GROUP}/v1/namespaces/default/widgets"))
    {
        json!({"kind": "WidgetList", "apiVersion": format!("{GROUP}/v1"), "metadata": {},
            "items": [{"metadata": {"name": "w1", "namespace": "default"}}]})
    } else {
        return (404, "text/plain", b"not here".to_vec());
    };
    (200, "application/json", body.to_string().into_bytes())
}

struct Setup {
    server: Server,
    backend: EchoServer,
    _dir: tempfile::TempDir,
}

fn pem_chain(pem: &str) -> Vec<CertificateDer<'static>> {
    CertificateDer::pem_slice_iter(pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .expect("chain")
}

/// cairn with a proxy client certificate, and the extension server
/// trusting only that certificate's CA, serving as `ext.default.svc`.
fn setup() -> (Setup, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let client_ca = make::ca("front-proxy-ca");
    let client = make::signed(&client_ca, &make::Leaf::client("front-proxy-client"));
    let (cert, key) = (dir.path().join("proxy.crt"), dir.path().join("proxy.key"));
    std::fs::write(&cert, &client.cert_pem).expect("cert");
    std::fs::write(&key, &client.key_pem).expect("key");

    let serving_ca = make::ca("extension-ca");
    let serving = make::signed(
        &serving_ca,
        &make::Leaf {
            dns_or_ip: &["ext.default.svc"],
            ..make::Leaf::client("ext")
        },
    );
    let mut roots = RootCertStore::empty();
    for c in pem_chain(&client_ca.cert_pem) {
        roots.add(c).expect("root");
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier =
        WebPkiClientVerifier::builder_with_provider(Arc::new(roots), Arc::clone(&provider))
            .build()
            .expect("client verifier");
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_client_cert_verifier(verifier)
        .with_single_cert(
            pem_chain(&serving.cert_pem),
            PrivateKeyDer::from_pem_slice(serving.key_pem.as_bytes()).expect("key"),
        )
        .expect("serving cert");
    let backend = EchoServer::start(Some(Arc::new(config)), extension);
    let server = Server::start(&[
        "--api-domain",
        "k8s.io",
        "--proxy-client-cert-file",
        cert.to_str().expect("utf-8"),
        "--proxy-client-key-file",
        key.to_str().expect("utf-8"),
    ]);
    let ca_bundle = STANDARD.encode(&serving_ca.cert_pem);
    (
        Setup {
            server,
            backend,
            _dir: dir,
        },
        ca_bundle,
    )
}

fn create(s: &Server, path: &str, body: &Value) {
    let r = s.post(path, body);
    assert_eq!(r.status, 201, "POST {path}: {}", r.text());
}

fn api_service(version_group: &str, service: &str, ca_bundle: &str) -> Value {
    let (version, group) = version_group.split_once('.').expect("version.group");
    json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
        "metadata": {"name": version_group},
        "spec": {"group": group, "version": version, "groupPriorityMinimum": 17450,
            "versionPriority": 15, "caBundle": ca_bundle,
            "service": {"namespace": "default", "name": service}}})
}

fn available(s: &Server, name: &str) -> Value {
    let r = s.get(&format!(
        "/apis/apiregistration.k8s.io/v1/apiservices/{name}"
    ));
    r.json()["status"]["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == "Available").cloned())
        .unwrap_or(Value::Null)
}

#[test]
fn local_apiservices_cover_every_served_group_version() {
    let s = Server::start(&[
        "--api-domain",
        "k8s.io",
        "--runtime-config",
        "batch/v1=false",
    ]);
    let r = s.get("/apis/apiregistration.k8s.io/v1/apiservices");
    assert_eq!(r.status, 200, "{}", r.text());
    let names: Vec<String> = r.json()["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| {
            i["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    for want in [
        "v1.",
        "v1.apps",
        "v2.autoscaling",
        "v1.apiregistration.k8s.io",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
    }
    assert!(!names.iter().any(|n| n == "v1.batch"), "{names:?}");
    let core = available(&s, "v1.");
    assert_eq!(core["status"], "True");
    assert_eq!(core["reason"], "Local");

    // Deleted, it comes back; a CRD's group version comes and goes with it.
    let r = s.delete("/apis/apiregistration.k8s.io/v1/apiservices/v1.apps");
    assert_eq!(r.status, 200, "{}", r.text());
    wait_until("v1.apps to be recreated", || {
        s.get("/apis/apiregistration.k8s.io/v1/apiservices/v1.apps")
            .status
            == 200
    });
    create(
        &s,
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        &json!({"metadata": {"name": "gadgets.crd.example.io"}, "spec": {
            "group": "crd.example.io", "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object"}}}]}}),
    );
    let crd_service = "/apis/apiregistration.k8s.io/v1/apiservices/v1.crd.example.io";
    wait_until("the CRD's APIService", || s.get(crd_service).status == 200);
    let doc = s.get(crd_service).json();
    assert_eq!(doc["spec"]["groupPriorityMinimum"], 1000);
    assert_eq!(
        doc["metadata"]["labels"]["kube-aggregator.kubernetes.io/automanaged"],
        "true"
    );
    let r =
        s.delete("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.crd.example.io");
    assert!(r.status == 200 || r.status == 202, "{}", r.text());
    wait_until("the CRD's APIService to go", || {
        s.get(crd_service).status == 404
    });

    // Invalid APIServices are refused as kube-aggregator refuses them.
    let mut bad = api_service("v1.x.example.io", "ext", "");
    bad["metadata"]["name"] = json!("wrong");
    bad["spec"]["versionPriority"] = json!(0);
    let r = s.post("/apis/apiregistration.k8s.io/v1/apiservices", &bad);
    assert_eq!(r.status, 422, "{}", r.text());
    let causes: Vec<String> = r.json()["details"]["causes"]
        .as_array()
        .expect("causes")
        .iter()
        .map(|c| c["field"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(causes, ["metadata.name", "spec.versionPriority"]);
}

#[test]
fn an_extension_server_serves_its_group_through_cairn() {
    let (setup, ca_bundle) = setup();
    let s = &setup.server;
    create(
        s,
        "/api/v1/namespaces/default/services",
        &json!({"metadata": {"name": "ext"}, "spec": {"ports": [{"port": 443}]}}),
    );
    create(
        s,
        "/api/v1/namespaces/default/endpoints",
        &json!({"metadata": {"name": "ext"}, "subsets": [{
            "addresses": [{"ip": "127.0.0.1"}], "ports": [{"port": setup.backend.port}]}]}),
    );
    let name = format!("v1.{GROUP}");
    create(
        s,
        "/apis/apiregistration.k8s.io/v1/apiservices",
        &api_service(&name, "ext", &ca_bundle),
    );
    wait_until("the APIService to be Available", || {
        available(s, &name)["status"] == "True"
    });
    assert_eq!(available(s, &name)["reason"], "Passed");

    let groups = s.get("/apis").json();
    let listed = groups["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .any(|g| g["name"] == GROUP && g["preferredVersion"]["version"] == "v1");
    assert!(listed, "{groups}");
    // Placed by its priority among the built-in groups, as kube-aggregator
    // orders them: 17450 comes between autoscaling (17500) and batch
    // (17400), in both discovery forms.
    let names = |items: &Value, pointer: &str| -> Vec<String> {
        items
            .as_array()
            .expect("entries")
            .iter()
            .map(|g| {
                g.pointer(pointer)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            })
            .collect()
    };
    let legacy = names(&groups["groups"], "/name");
    let at = legacy.iter().position(|g| g == GROUP).expect("listed");
    assert_eq!(
        legacy[at - 1..=at + 1],
        ["autoscaling", GROUP, "batch"],
        "{legacy:?}"
    );
    assert_eq!(legacy[0], "apiregistration.k8s.io");
    let v2 = s.request(
        "GET",
        "/apis",
        &[(
            "Accept",
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
        )],
        None,
    );
    assert_eq!(names(&v2.json()["items"], "/metadata/name"), legacy);
    let group = s.get(&format!("/apis/{GROUP}"));
    assert_eq!(group.status, 200);
    assert_eq!(group.json()["kind"], "APIGroup");

    // Resources come from the extension server, with the caller's identity.
    let r = s.get(&format!(
        "/apis/{GROUP}/v1/namespaces/default/widgets?limit=5"
    ));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["items"][0]["metadata"]["name"], "w1");
    let seen = setup
        .backend
        .seen_at(&format!("/apis/{GROUP}/v1/namespaces/default/widgets"));
    let last = seen
        .last()
        .expect("the request reached the extension server");
    assert_eq!(
        last.target,
        format!("/apis/{GROUP}/v1/namespaces/default/widgets?limit=5")
    );
    assert_eq!(last.header_values("x-remote-user"), ["system:admin"]);
    assert!(
        last.header_values("x-remote-group")
            .contains(&"system:masters")
    );
    // kube-aggregator's forwarding headers: the client, the path asked,
    // and the extension server as the host reached over https.
    assert_eq!(last.header_values("x-forwarded-for"), ["127.0.0.1"]);
    assert_eq!(
        last.header_values("x-forwarded-uri"),
        [format!("/apis/{GROUP}/v1/namespaces/default/widgets").as_str()]
    );
    assert_eq!(last.header_values("x-forwarded-proto"), ["https"]);
    assert_eq!(
        last.header_values("x-forwarded-host"),
        [format!("127.0.0.1:{}", setup.backend.port).as_str()]
    );

    if kubectl_present() {
        let (ok, out) = kubectl(s, &["get", "--raw", "/apis"], None);
        assert!(ok && out.contains(GROUP), "{out}");
        let (ok, out) = kubectl(s, &["api-resources", "--api-group", GROUP], None);
        assert!(ok, "{out}");
        assert!(out.contains("widgets") && out.contains("wdg"), "{out}");
        let (ok, out) = kubectl(s, &["get", "apiservices"], None);
        assert!(ok, "{out}");
        let line = out
            .lines()
            .find(|l| l.starts_with(&name))
            .unwrap_or_else(|| panic!("{name} in {out}"));
        assert!(
            line.contains("default/ext") && line.contains("True"),
            "{line}"
        );
        assert!(
            out.lines()
                .any(|l| l.starts_with("v1.apps ") && l.contains("Local")),
            "{out}"
        );
    }

    // A missing service: unavailable, and its group's requests are 503s.
    let missing = "v1.missing.example.io";
    create(
        s,
        "/apis/apiregistration.k8s.io/v1/apiservices",
        &api_service(missing, "nothere", &ca_bundle),
    );
    wait_until("the missing service's APIService to be judged", || {
        available(s, missing)["reason"] == "ServiceNotFound"
    });
    assert_eq!(available(s, missing)["status"], "False");
    let r = s.get("/apis/missing.example.io/v1/things");
    assert_eq!(r.status, 503, "{}", r.text());

    // The service appearing is noticed at once; its server does not serve
    // that group, so the discovery check fails.
    create(
        s,
        "/api/v1/namespaces/default/services",
        &json!({"metadata": {"name": "nothere"}, "spec": {"ports": [{"port": 443}]}}),
    );
    create(
        s,
        "/api/v1/namespaces/default/endpoints",
        &json!({"metadata": {"name": "nothere"}, "subsets": [{
            "addresses": [{"ip": "127.0.0.1"}], "ports": [{"port": setup.backend.port}]}]}),
    );
    wait_until("the discovery check to run", || {
        available(s, missing)["reason"] == "FailedDiscoveryCheck"
    });
    let message = available(s, missing)["message"].to_string();
    assert!(
        message.contains("failing or missing response from https://127.0.0.1:"),
        "{message}"
    );
}

#[test]
fn bad_proxy_client_credentials_stop_the_start() {
    let line = cairn_tests::start_refused("--proxy-client-cert-file", "not a certificate", &[]);
    assert!(
        line.contains("--proxy-client-key-file: required with --proxy-client-cert-file"),
        "{line}"
    );
    let line = cairn_tests::start_refused(
        "--proxy-client-cert-file",
        "not a certificate",
        &["--proxy-client-key-file", "/dev/null"],
    );
    assert!(
        line.contains("--proxy-client-cert-file:") && line.contains("no PEM certificate"),
        "{line}"
    );
}
