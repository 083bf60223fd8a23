//! The alpha and beta kinds Kubernetes 1.32 still has in these groups
//! (networking.k8s.io/v1beta1 IPAddress and ServiceCIDR, storage.k8s.io
//! v1beta1/v1alpha1 VolumeAttributesClass, certificates.k8s.io/v1alpha1
//! ClusterTrustBundle): turned on by `--runtime-config` (the bundles by
//! their feature gate too), printed by kubectl, spoken in protobuf, and
//! ClusterTrustBundle's resourceVersion and attestation rules (protobuf in
//! `prerelease_protobuf`).

use cairn_tests::{Server, kubectl, kubectl_present, wait_until};
use serde_json::{Value, json};

use super::{header, json_of, line_cells, ok};

pub(crate) const CTB: &str = "/apis/certificates.k8s.io/v1alpha1/clustertrustbundles";

pub(crate) fn start() -> Server {
    Server::start(&[
        "--api-domain",
        "k8s.io",
        "--runtime-config",
        "networking.k8s.io/v1beta1=true,storage.k8s.io/v1beta1=true,storage.k8s.io/v1alpha1=true,certificates.k8s.io/v1alpha1=true",
        "--feature-gates",
        "ClusterTrustBundle=true",
    ])
}

pub(crate) fn ca_certificate() -> String {
    let mut params =
        rcgen::CertificateParams::new(vec!["anchor.example.com".into()]).expect("params");
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let key = rcgen::KeyPair::generate().expect("key");
    params.self_signed(&key).expect("self-signed").pem()
}

fn manifest(pem: &str) -> String {
    json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "networking.k8s.io/v1beta1", "kind": "IPAddress",
         "metadata": {"name": "10.96.0.10"},
         "spec": {"parentRef": {"resource": "services", "namespace": "default", "name": "kubernetes"}}},
        {"apiVersion": "networking.k8s.io/v1beta1", "kind": "ServiceCIDR",
         "metadata": {"name": "extra"}, "spec": {"cidrs": ["10.97.0.0/16", "fd00:10:97::/112"]}},
        {"apiVersion": "storage.k8s.io/v1beta1", "kind": "VolumeAttributesClass",
         "metadata": {"name": "gold", "annotations": {"volumeattributesclass.alpha.kubernetes.io/is-default-class": "true"}},
         "driverName": "csi.example.com", "parameters": {"iops": "3000"}},
        {"apiVersion": "certificates.k8s.io/v1alpha1", "kind": "ClusterTrustBundle",
         "metadata": {"name": "example.com:signer:roots"},
         "spec": {"signerName": "example.com/signer", "trustBundle": pem}},
        {"apiVersion": "certificates.k8s.io/v1alpha1", "kind": "ClusterTrustBundle",
         "metadata": {"name": "unsigned"}, "spec": {"trustBundle": pem}},
    ]})
    .to_string()
}

/// The first data row's cells.
fn row(table: &str) -> Vec<String> {
    line_cells(table, 1)
}

#[test]
fn kubectl_applies_and_prints_the_alpha_and_beta_kinds() {
    if !kubectl_present() {
        return;
    }
    let s = start();
    let out = ok(
        &s,
        &["apply", "-f", "-"],
        Some(&manifest(&ca_certificate())),
    );
    assert_eq!(out.lines().count(), 5, "{out}");

    let ips = ok(&s, &["get", "ipaddresses"], None);
    assert_eq!(header(&ips), ["NAME", "PARENTREF"], "{ips}");
    assert_eq!(row(&ips), ["10.96.0.10", "services/default/kubernetes"]);
    let cidrs = ok(&s, &["get", "servicecidrs"], None);
    assert_eq!(header(&cidrs), ["NAME", "CIDRS", "AGE"], "{cidrs}");
    assert_eq!(row(&cidrs)[..2], ["extra", "10.97.0.0/16,fd00:10:97::/112"]);
    let classes = ok(&s, &["get", "vac"], None);
    assert_eq!(header(&classes), ["NAME", "DRIVERNAME", "AGE"], "{classes}");
    assert_eq!(row(&classes)[..3], ["gold", "(default)", "csi.example.com"]);
    let bundles = ok(&s, &["get", "clustertrustbundles"], None);
    assert_eq!(header(&bundles), ["NAME", "SIGNERNAME"], "{bundles}");
    let unsigned: Vec<Vec<&str>> = bundles
        .lines()
        .map(|l| l.split_whitespace().collect())
        .filter(|cells: &Vec<&str>| cells.first() == Some(&"unsigned"))
        .collect();
    assert_eq!(unsigned, [["unsigned", "<none>"]], "{bundles}");

    let signed = json_of(
        &s,
        &[
            "get",
            "clustertrustbundles",
            "--field-selector",
            "spec.signerName=example.com/signer",
        ],
    );
    let names: Vec<&Value> = signed["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| &i["metadata"]["name"])
        .collect();
    assert_eq!(names, [&json!("example.com:signer:roots")]);

    // One stored class, read through the alpha version too.
    let alpha = json_of(
        &s,
        &[
            "get",
            "volumeattributesclasses.v1alpha1.storage.k8s.io",
            "gold",
        ],
    );
    assert_eq!(alpha["apiVersion"], "storage.k8s.io/v1alpha1");
    assert_eq!(alpha["parameters"]["iops"], "3000");

    // Discovery keeps v1 preferred; each version has its local APIService.
    let groups = s.get("/apis").json();
    let storage = groups["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .find(|g| g["name"] == "storage.k8s.io")
        .expect("storage.k8s.io")
        .clone();
    let versions: Vec<&Value> = storage["versions"]
        .as_array()
        .expect("versions")
        .iter()
        .map(|v| &v["version"])
        .collect();
    assert_eq!(
        versions,
        [&json!("v1"), &json!("v1beta1"), &json!("v1alpha1")]
    );
    assert_eq!(storage["preferredVersion"]["version"], "v1");
    wait_until("local APIServices", || {
        kubectl(
            &s,
            &["get", "apiservice", "v1beta1.networking.k8s.io"],
            None,
        )
        .0 && kubectl(
            &s,
            &["get", "apiservice", "v1alpha1.certificates.k8s.io"],
            None,
        )
        .0
    });

    let explained = ok(&s, &["explain", "servicecidrs.spec.cidrs"], None);
    assert!(
        explained.contains("CIDRs defines the IP blocks"),
        "{explained}"
    );

    // Fixed fields stay fixed.
    let (changed, out) = kubectl(
        &s,
        &[
            "patch",
            "vac",
            "gold",
            "--type=merge",
            "-p",
            r#"{"driverName":"other.example.com"}"#,
        ],
        None,
    );
    assert!(!changed, "{out}");
    assert!(out.contains("updates to driverName are forbidden"), "{out}");
}

#[test]
fn without_runtime_config_or_gate_nothing_is_served() {
    let s = Server::start(&["--api-domain", "k8s.io"]);
    for path in [
        "/apis/networking.k8s.io/v1beta1",
        "/apis/storage.k8s.io/v1beta1",
        "/apis/storage.k8s.io/v1alpha1",
        "/apis/certificates.k8s.io/v1alpha1",
    ] {
        assert_eq!(s.get(path).status, 404, "{path}");
    }
    // The version is turned on, but ClusterTrustBundle storage needs its
    // gate; networking.k8s.io/v1alpha1 is known and has no resources.
    let s = Server::start(&[
        "--api-domain",
        "k8s.io",
        "--runtime-config",
        "certificates.k8s.io/v1alpha1=true,networking.k8s.io/v1alpha1=true,certificates.k8s.io/v1beta1=true",
    ]);
    for path in [
        "/apis/certificates.k8s.io/v1alpha1",
        "/apis/certificates.k8s.io/v1beta1",
        "/apis/networking.k8s.io/v1alpha1",
    ] {
        assert_eq!(s.get(path).status, 404, "{path}");
    }
    assert_eq!(s.get("/apis/certificates.k8s.io/v1").status, 200);
}

#[test]
fn a_trust_bundle_needs_a_resource_version_and_attestation_for_its_signer() {
    let s = Server::start_secure(&[
        "--runtime-config",
        "certificates.k8s.io/v1alpha1=true",
        "--feature-gates",
        "ClusterTrustBundle=true",
    ]);
    let admin = s.admin_client();
    let send = |method: &str, path: &str, body: &Value, user: Option<&str>| {
        let bytes = serde_json::to_vec(body).expect("json");
        let mut headers = vec![("Content-Type", "application/json")];
        headers.extend(user.map(|u| ("Impersonate-User", u)));
        s.https(&admin, method, path, &headers, Some(&bytes))
    };
    let pem = ca_certificate();
    let bundle = |name: &str| {
        json!({"apiVersion": "certificates.k8s.io/v1alpha1", "kind": "ClusterTrustBundle",
        "metadata": {"name": name}, "spec": {"signerName": "example.com/signer", "trustBundle": pem}})
    };
    let r = send("POST", CTB, &bundle("example.com:signer:a"), None);
    assert_eq!(r.status, 201, "{}", r.text());

    let at = format!("{CTB}/example.com:signer:a");
    let r = send("PUT", &at, &bundle("example.com:signer:a"), None);
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(
        r.text().contains(
            "metadata.resourceVersion: Invalid value: 0x0: must be specified for an update"
        ),
        "{}",
        r.text()
    );

    // bob may create bundles but attests for no signer.
    let writer = json!({"metadata": {"name": "bundle-writer"},
        "rules": [{"apiGroups": ["certificates.k8s.io"], "resources": ["clustertrustbundles"], "verbs": ["create"]}]});
    let attester = json!({"metadata": {"name": "attester"},
        "rules": [{"apiGroups": ["certificates.k8s.io"], "resources": ["signers"], "verbs": ["attest"], "resourceNames": ["example.com/*"]}]});
    for role in [&writer, &attester] {
        let r = send(
            "POST",
            "/apis/rbac.authorization.k8s.io/v1/clusterroles",
            role,
            None,
        );
        assert_eq!(r.status, 201, "{}", r.text());
    }
    let bob = json!({"kind": "User", "name": "bob"});
    s.grant(
        &bob,
        "bundle-writer",
        ("create", "clustertrustbundles.certificates.k8s.io"),
    );
    let refused = send("POST", CTB, &bundle("example.com:signer:b"), Some("bob"));
    assert_eq!(refused.status, 403, "{}", refused.text());
    assert!(
        refused
            .text()
            .contains(r#"user not permitted to attest for signerName \"example.com/signer\""#),
        "{}",
        refused.text()
    );
    let unsigned = json!({"apiVersion": "certificates.k8s.io/v1alpha1", "kind": "ClusterTrustBundle",
        "metadata": {"name": "bob-unsigned"}, "spec": {"trustBundle": pem}});
    let r = send("POST", CTB, &unsigned, Some("bob"));
    assert_eq!(r.status, 201, "no signer, no attestation: {}", r.text());

    let binding = json!({"metadata": {"name": "bob-attests"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "attester"},
        "subjects": [{"kind": "User", "name": "bob", "apiGroup": "rbac.authorization.k8s.io"}]});
    let path = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings";
    assert_eq!(send("POST", path, &binding, None).status, 201);
    // The name rule (`example.com/*`) is not one a resource-less probe
    // can see: wait for the write itself.
    cairn_tests::wait_until("bob may attest", || {
        send("POST", CTB, &bundle("example.com:signer:b"), Some("bob")).status != 403
    });
    let at = format!("{CTB}/example.com:signer:b");
    let r = s.https(&admin, "GET", &at, &[], None);
    assert_eq!(r.status, 200, "{}", r.text());
}
