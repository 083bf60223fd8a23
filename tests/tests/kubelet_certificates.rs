//! The kubelet signers and kube-controller-manager's approver: a node's
//! bootstrap identity bound to `system:node-bootstrapper` and
//! `…:certificatesigningrequests:nodeclient` gets its kubelet client
//! certificate approved (`AutoApproved`) and signed, and that certificate
//! is the node's; requests breaking the kubelet rules are neither
//! auto-approved nor signed (`Failed` once a person approves them); a
//! requester without `nodeclient` waits; a `kubelet-serving` request,
//! approved by hand, is signed for server auth with its names.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use cairn_tests::tls::make::{self, Leaf};
use cairn_tests::{Identity, Server, TlsClient, wait_until};
use rcgen::KeyPair;
use serde_json::{Value, json};

const CSRS: &str = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
const CLIENT_KUBELET: &str = "kubernetes.io/kube-apiserver-client-kubelet";

fn request(cn: &str, org: &str, names: &[&str]) -> (KeyPair, String) {
    make::request(cn, Some(org), names)
}

fn csr(name: &str, pem: &str, signer: &str, usages: &[&str]) -> Vec<u8> {
    serde_json::to_vec(&json!({"apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest", "metadata": {"name": name},
        "spec": {"request": STANDARD.encode(pem), "signerName": signer, "usages": usages}}))
    .expect("json")
}

struct Cluster {
    s: Server,
    admin: TlsClient,
    ca: Identity,
}

impl Cluster {
    fn start() -> Cluster {
        let s = Server::start_secure(&["--api-domain", "k8s.io"]);
        let admin = s.admin_client();
        let read = |f: &str| std::fs::read_to_string(s.data_dir.join("pki").join(f)).expect(f);
        let ca = Identity {
            cert_pem: read("ca.crt"),
            key_pem: read("ca.key"),
        };
        Cluster { s, admin, ca }
    }

    /// A client of the cluster CA for `cn` in group `org`.
    fn user(&self, cn: &str, org: &str) -> TlsClient {
        let leaf = Leaf {
            organization: Some(org),
            ..Leaf::client(cn)
        };
        self.s.tls_client(Some(&make::signed(&self.ca, &leaf)))
    }

    fn send(
        &self,
        client: &TlsClient,
        method: &str,
        path: &str,
        body: Option<&[u8]>,
    ) -> (u16, Value) {
        let r = self.s.https(
            client,
            method,
            path,
            &[("Content-Type", "application/json")],
            body,
        );
        (
            r.status,
            serde_json::from_slice(&r.body).unwrap_or(Value::Null),
        )
    }

    fn get(&self, name: &str) -> Value {
        let (status, got) = self.send(&self.admin, "GET", &format!("{CSRS}/{name}"), None);
        assert_eq!(status, 200, "{got}");
        got
    }

    fn bind(&self, group: &str, role: &str) {
        let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding", "metadata": {"name": format!("{group}-{role}").replace(':', "-")},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
            "subjects": [{"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": group}]});
        let body = serde_json::to_vec(&binding).expect("json");
        let path = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings";
        let (status, got) = self.send(&self.admin, "POST", path, Some(&body));
        assert_eq!(status, 201, "{got}");
    }

    /// Creates as `client`, retrying while RBAC has not yet seen a binding.
    fn create_as(&self, client: &TlsClient, body: &[u8]) {
        let mut last = Value::Null;
        wait_until("the request is created", || {
            let (status, got) = self.send(client, "POST", CSRS, Some(body));
            last = got;
            status == 201
        });
        let _ = last;
    }

    fn approve_by_hand(&self, name: &str) {
        let mut approved = self.get(name);
        approved["status"]["conditions"] = json!([{"type": "Approved", "status": "True",
            "reason": "ByHand", "message": "approved by the test"}]);
        let body = serde_json::to_vec(&approved).expect("json");
        let (status, got) = self.send(
            &self.admin,
            "PUT",
            &format!("{CSRS}/{name}/approval"),
            Some(&body),
        );
        assert_eq!(status, 200, "{got}");
    }

    fn issued(&self, name: &str) -> String {
        let mut pem = String::new();
        wait_until(&format!("{name} is signed"), || {
            let encoded = self.get(name)["status"]["certificate"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            pem =
                String::from_utf8(STANDARD.decode(encoded).unwrap_or_default()).unwrap_or_default();
            !pem.is_empty()
        });
        pem
    }

    fn failure(&self, name: &str) -> String {
        let mut message = String::new();
        wait_until(&format!("{name} fails"), || {
            let got = self.get(name);
            let conditions = got["status"]["conditions"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            match conditions.iter().find(|c| c["type"] == "Failed") {
                Some(failed) => {
                    assert_eq!(failed["reason"], "SignerValidationFailure");
                    message = failed["message"].as_str().unwrap_or_default().to_string();
                    true
                }
                None => false,
            }
        });
        message
    }
}

fn condition_types(csr: &Value) -> Vec<String> {
    csr["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["type"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn kubelet_client_certificates_are_auto_approved_for_node_bootstrappers() {
    let c = Cluster::start();
    c.bind("system:bootstrappers", "system:node-bootstrapper");
    c.bind(
        "system:bootstrappers",
        "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
    );
    c.bind("outsiders", "system:node-bootstrapper");
    let bootstrap = c.user("system:bootstrap:abcdef", "system:bootstrappers");
    let outsider = c.user("someone", "outsiders");
    let client_usages = ["digital signature", "client auth"];

    // Asked by someone who may create requests but not have them approved.
    let (_, pem) = request("system:node:n0", "system:nodes", &[]);
    c.create_as(
        &outsider,
        &csr("outsider", &pem, CLIENT_KUBELET, &client_usages),
    );
    // Breaking the kubelet rules: not recognized, so never auto-approved.
    let (_, pem) = request("system:node:n2", "other", &[]);
    c.create_as(
        &bootstrap,
        &csr("wrong-org", &pem, CLIENT_KUBELET, &client_usages),
    );
    let (key, pem) = request("system:node:n1", "system:nodes", &[]);
    c.create_as(
        &bootstrap,
        &csr("node-n1", &pem, CLIENT_KUBELET, &client_usages),
    );

    let cert_pem = c.issued("node-n1");
    let approved = c.get("node-n1");
    let condition = &approved["status"]["conditions"][0];
    assert_eq!(condition["type"], "Approved", "{approved}");
    assert_eq!(condition["reason"], "AutoApproved");
    assert_eq!(
        condition["message"],
        "Auto approving kubelet client certificate after SubjectAccessReview."
    );
    assert_eq!(approved["spec"]["username"], "system:bootstrap:abcdef");

    // The certificate is the node's.
    let node = c.s.tls_client(Some(&Identity {
        cert_pem,
        key_pem: key.serialize_pem(),
    }));
    let review = br#"{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}"#;
    let (status, me) = c.send(
        &node,
        "POST",
        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        Some(review),
    );
    assert_eq!(status, 201, "{me}");
    assert_eq!(me["status"]["userInfo"]["username"], "system:node:n1");
    assert!(
        me["status"]["userInfo"]["groups"]
            .as_array()
            .expect("groups")
            .contains(&json!("system:nodes")),
        "{me}"
    );

    // The others wait (the approver looks again every few seconds).
    std::thread::sleep(Duration::from_secs(3));
    for name in ["outsider", "wrong-org"] {
        assert!(
            condition_types(&c.get(name)).is_empty(),
            "{name} was decided"
        );
    }
    // Approved by a person, the rule breaker is refused by the signer.
    c.approve_by_hand("wrong-org");
    assert_eq!(
        c.failure("wrong-org"),
        "subject organization is not system:nodes"
    );
}

#[test]
fn kubelet_serving_certificates_are_signed_for_their_names_once_approved() {
    let c = Cluster::start();
    let serving = ["digital signature", "key encipherment", "server auth"];
    let (_, pem) = request(
        "system:node:n1",
        "system:nodes",
        &["n1.example", "10.0.0.1"],
    );
    let body = csr(
        "serving-n1",
        &pem,
        "kubernetes.io/kubelet-serving",
        &serving,
    );
    c.create_as(&c.admin, &body);
    c.approve_by_hand("serving-n1");
    let cert_pem = c.issued("serving-n1");
    let (_, pem) = x509_parser::pem::parse_x509_pem(cert_pem.as_bytes()).expect("PEM");
    let cert = pem.parse_x509().expect("certificate");
    let eku = cert
        .extended_key_usage()
        .expect("extension")
        .expect("extended key usage");
    assert!(eku.value.server_auth && !eku.value.client_auth);
    let names = cert
        .subject_alternative_name()
        .expect("extension")
        .expect("names");
    let text = format!("{:?}", names.value.general_names);
    assert!(text.contains("n1.example"), "{text}");

    // No names: the signer refuses it once approved.
    let (_, pem) = request("system:node:n2", "system:nodes", &[]);
    c.create_as(
        &c.admin,
        &csr(
            "serving-bare",
            &pem,
            "kubernetes.io/kubelet-serving",
            &serving,
        ),
    );
    c.approve_by_hand("serving-bare");
    assert_eq!(
        c.failure("serving-bare"),
        "DNS or IP subjectAltName is required"
    );
    // A kubelet client request with an IP name, approved by hand: refused.
    let (_, pem) = request("system:node:n3", "system:nodes", &["10.0.0.3"]);
    c.create_as(
        &c.admin,
        &csr(
            "client-ip",
            &pem,
            CLIENT_KUBELET,
            &["digital signature", "client auth"],
        ),
    );
    c.approve_by_hand("client-ip");
    assert_eq!(c.failure("client-ip"), "IP subjectAltNames are not allowed");
}
