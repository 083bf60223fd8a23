//! The `certificates.k8s.io` roles of Kubernetes' default policy: what a
//! node's bootstrap identity may do with CertificateSigningRequests, what
//! lets the approver auto-approve kubelet client certificates
//! (`nodeclient`, `selfnodeclient`), and one role per built-in signer that
//! may approve its requests. Kubernetes binds none of them by default.

use super::bootstrap::{Rule, on};

const CERTIFICATES: &str = "certificates.k8s.io";

/// May approve requests for the signer `name`.
fn approver(name: &'static [&'static str]) -> Vec<Rule> {
    vec![Rule::Named {
        verbs: &["approve"],
        groups: &[CERTIFICATES],
        resources: &["signers"],
        names: name,
    }]
}

/// (role name, rules), in Kubernetes' order.
pub fn certificate_roles() -> Vec<(&'static str, Vec<Rule>)> {
    vec![
        (
            "system:node-bootstrapper",
            vec![on(
                &["create", "get", "list", "watch"],
                &[CERTIFICATES],
                &["certificatesigningrequests"],
            )],
        ),
        (
            "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
            vec![on(
                &["create"],
                &[CERTIFICATES],
                &["certificatesigningrequests/nodeclient"],
            )],
        ),
        (
            "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
            vec![on(
                &["create"],
                &[CERTIFICATES],
                &["certificatesigningrequests/selfnodeclient"],
            )],
        ),
        (
            "system:certificates.k8s.io:legacy-unknown-approver",
            approver(&["kubernetes.io/legacy-unknown"]),
        ),
        (
            "system:certificates.k8s.io:kubelet-serving-approver",
            approver(&["kubernetes.io/kubelet-serving"]),
        ),
        (
            "system:certificates.k8s.io:kube-apiserver-client-approver",
            approver(&["kubernetes.io/kube-apiserver-client"]),
        ),
        (
            "system:certificates.k8s.io:kube-apiserver-client-kubelet-approver",
            approver(&["kubernetes.io/kube-apiserver-client-kubelet"]),
        ),
    ]
}
