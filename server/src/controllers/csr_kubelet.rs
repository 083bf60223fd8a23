//! The kubelet signers' rules, as kube-controller-manager checks them
//! before signing (and its approver before auto-approving):
//! `kubernetes.io/kube-apiserver-client-kubelet` takes a subject of
//! organization exactly `system:nodes` and a common name `system:node:…`,
//! no subject alternative names, and the client usages;
//! `kubernetes.io/kubelet-serving` the same subject, at least one DNS or IP
//! name (no email or URI), and the serving usages.

use std::collections::BTreeSet;

use x509_parser::certification_request::X509CertificationRequest;
use x509_parser::extensions::{GeneralName, ParsedExtension};
use x509_parser::prelude::FromDer;

pub const KUBELET_CLIENT: &str = "kubernetes.io/kube-apiserver-client-kubelet";
pub const KUBELET_SERVING: &str = "kubernetes.io/kubelet-serving";

const NODE_PREFIX: &str = "system:node:";

/// What the rules look at in a request.
#[derive(Debug, Default)]
pub struct Subject {
    pub common_name: String,
    pub organizations: Vec<String>,
    pub dns: usize,
    pub ips: usize,
    pub emails: usize,
    pub uris: usize,
}

/// The subject Name of a DER request, as its DER bytes.
#[must_use]
pub fn raw_subject(der: &[u8]) -> Option<Vec<u8>> {
    let (_, request) = X509CertificationRequest::from_der(der).ok()?;
    Some(request.certification_request_info.subject.as_raw().to_vec())
}

impl Subject {
    /// Reads a DER request; `None` when it does not parse.
    #[must_use]
    pub fn of(der: &[u8]) -> Option<Subject> {
        let (_, request) = X509CertificationRequest::from_der(der).ok()?;
        let name = &request.certification_request_info.subject;
        let text = |attr: &x509_parser::x509::AttributeTypeAndValue<'_>| {
            attr.as_str().map(str::to_string).unwrap_or_default()
        };
        let mut subject = Subject {
            common_name: name.iter_common_name().next().map(text).unwrap_or_default(),
            organizations: name.iter_organization().map(text).collect(),
            ..Subject::default()
        };
        for extension in request.requested_extensions().into_iter().flatten() {
            let ParsedExtension::SubjectAlternativeName(names) = extension else {
                continue;
            };
            for name in &names.general_names {
                match name {
                    GeneralName::DNSName(_) => subject.dns += 1,
                    GeneralName::IPAddress(_) => subject.ips += 1,
                    GeneralName::RFC822Name(_) => subject.emails += 1,
                    GeneralName::URI(_) => subject.uris += 1,
                    _ => {}
                }
            }
        }
        Some(subject)
    }

    fn is_node(&self) -> Result<(), String> {
        if self.organizations != ["system:nodes"] {
            return Err("subject organization is not system:nodes".into());
        }
        Ok(())
    }

    fn named_node(&self) -> Result<(), String> {
        if !self.common_name.starts_with(NODE_PREFIX) {
            return Err(format!(
                "subject common name does not begin with {NODE_PREFIX}"
            ));
        }
        Ok(())
    }
}

/// `usages` is `required` or `required` without `key encipherment` (the
/// non-RSA form); kube's message lists the full set, sorted.
fn exact_usages(usages: &[&str], required: &[&str]) -> Result<(), String> {
    let given: BTreeSet<&str> = usages.iter().copied().collect();
    let full: BTreeSet<&str> = required.iter().copied().collect();
    let mut without_rsa = full.clone();
    without_rsa.remove("key encipherment");
    if given == full || given == without_rsa {
        return Ok(());
    }
    let listed: Vec<&str> = full.into_iter().collect();
    Err(format!("usages did not match [{}]", listed.join(" ")))
}

/// kube's ValidateKubeletClientCSR.
pub fn kubelet_client(subject: &Subject, usages: &[&str]) -> Result<(), String> {
    subject.is_node()?;
    for (count, kind) in [
        (subject.dns, "DNS"),
        (subject.emails, "Email"),
        (subject.ips, "IP"),
        (subject.uris, "URI"),
    ] {
        if count > 0 {
            return Err(format!("{kind} subjectAltNames are not allowed"));
        }
    }
    subject.named_node()?;
    exact_usages(
        usages,
        &["digital signature", "key encipherment", "client auth"],
    )
}

/// kube's ValidateKubeletServingCSR.
pub fn kubelet_serving(subject: &Subject, usages: &[&str]) -> Result<(), String> {
    subject.is_node()?;
    if subject.dns == 0 && subject.ips == 0 {
        return Err("DNS or IP subjectAltName is required".into());
    }
    if subject.emails > 0 {
        return Err("Email subjectAltNames are not allowed".into());
    }
    if subject.uris > 0 {
        return Err("URI subjectAltNames are not allowed".into());
    }
    exact_usages(
        usages,
        &["digital signature", "key encipherment", "server auth"],
    )?;
    subject.named_node()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(cn: &str, orgs: &[&str]) -> Subject {
        Subject {
            common_name: cn.into(),
            organizations: orgs.iter().map(|o| (*o).to_string()).collect(),
            ..Subject::default()
        }
    }

    #[test]
    fn kubelet_client_requests_follow_kubes_rules() {
        let good = node("system:node:n1", &["system:nodes"]);
        let client = ["client auth", "digital signature", "key encipherment"];
        assert_eq!(kubelet_client(&good, &client), Ok(()));
        assert_eq!(
            kubelet_client(&good, &["digital signature", "client auth"]),
            Ok(())
        );
        assert_eq!(
            kubelet_client(&good, &["client auth"]).unwrap_err(),
            "usages did not match [client auth digital signature key encipherment]"
        );
        let two_orgs = node("system:node:n1", &["system:nodes", "extra"]);
        assert_eq!(
            kubelet_client(&two_orgs, &client).unwrap_err(),
            "subject organization is not system:nodes"
        );
        assert_eq!(
            kubelet_client(&node("n1", &["system:nodes"]), &client).unwrap_err(),
            "subject common name does not begin with system:node:"
        );
        let with_ip = Subject {
            ips: 1,
            ..node("system:node:n1", &["system:nodes"])
        };
        assert_eq!(
            kubelet_client(&with_ip, &client).unwrap_err(),
            "IP subjectAltNames are not allowed"
        );
    }

    #[test]
    fn kubelet_serving_requests_follow_kubes_rules() {
        let serving = ["digital signature", "key encipherment", "server auth"];
        let bare = node("system:node:n1", &["system:nodes"]);
        assert_eq!(
            kubelet_serving(&bare, &serving).unwrap_err(),
            "DNS or IP subjectAltName is required"
        );
        let named = Subject {
            dns: 1,
            ..node("system:node:n1", &["system:nodes"])
        };
        assert_eq!(kubelet_serving(&named, &serving), Ok(()));
        assert_eq!(
            kubelet_serving(&named, &["server auth"]).unwrap_err(),
            "usages did not match [digital signature key encipherment server auth]"
        );
        let mailed = Subject {
            dns: 1,
            emails: 1,
            ..node("system:node:n1", &["system:nodes"])
        };
        assert_eq!(
            kubelet_serving(&mailed, &serving).unwrap_err(),
            "Email subjectAltNames are not allowed"
        );
    }
}
