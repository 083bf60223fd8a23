//! kube-apiserver's certificate admission plugins: CertificateApproval
//! (an `/approval` write needs `approve` on the request's signer),
//! CertificateSigning (issuing `status.certificate` needs `sign` on it),
//! ClusterTrustBundleAttest (a trust bundle naming a signer needs `attest`
//! on it) and CertificateSubjectRestriction (no `system:masters`
//! certificates through the `kubernetes.io/kube-apiserver-client` signer). Signers are
//! authorized as resource `signers` in group `certificates.{domain}`, by
//! their name or by `<signer domain>/*`.

use std::sync::Arc;

use serde_json::Value;

use crate::api::error::ApiError;
use crate::api::kinds::checks::str_at;
use crate::api::kinds::csr_rules::parse_request;
use crate::request::admission::{Attributes, Operation, Pins, ValidatingAdmission};
use crate::request::authz::{self, Authorizers};
use crate::request::info::RequestInfo;
use crate::util::maybe_async::MaybeAsync;

pub const CERTIFICATE_APPROVAL: &str = "CertificateApproval";
pub const CERTIFICATE_SIGNING: &str = "CertificateSigning";
pub const CERTIFICATE_SUBJECT_RESTRICTION: &str = "CertificateSubjectRestriction";
pub const CLUSTER_TRUST_BUNDLE_ATTEST: &str = "ClusterTrustBundleAttest";

/// The signer whose certificates authenticate to the API server.
pub const KUBE_APISERVER_CLIENT: &str = "kubernetes.io/kube-apiserver-client";

const MASTERS: &str = "system:masters";

/// Which of the three plugins this is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Check {
    Approval,
    Signing,
    Attest,
    SubjectRestriction,
}

pub struct CertificateAdmission {
    check: Check,
    authorizers: Arc<Authorizers>,
}

impl CertificateAdmission {
    #[must_use]
    pub fn approval(authorizers: Arc<Authorizers>) -> CertificateAdmission {
        CertificateAdmission {
            check: Check::Approval,
            authorizers,
        }
    }

    #[must_use]
    pub fn signing(authorizers: Arc<Authorizers>) -> CertificateAdmission {
        CertificateAdmission {
            check: Check::Signing,
            authorizers,
        }
    }

    #[must_use]
    pub fn attest(authorizers: Arc<Authorizers>) -> CertificateAdmission {
        CertificateAdmission {
            check: Check::Attest,
            authorizers,
        }
    }

    #[must_use]
    pub fn subject_restriction(authorizers: Arc<Authorizers>) -> CertificateAdmission {
        CertificateAdmission {
            check: Check::SubjectRestriction,
            authorizers,
        }
    }

    /// Whether the writer may `verb` the signer `signer`.
    async fn may(&self, attrs: &Attributes<'_>, verb: &'static str, signer: &str) -> bool {
        let group = &attrs.kind.group;
        let mut names = vec![signer.to_string()];
        if let Some((domain, _)) = signer.split_once('/') {
            names.push(format!("{domain}/*"));
        }
        for name in names {
            let info = RequestInfo::resource_request(verb, group, "signers", "", &name);
            let asked = authz::Attributes {
                user: attrs.user,
                info: &info,
            };
            if self.authorizers.decide(&asked).await.allowed {
                return true;
            }
        }
        false
    }

    fn refuse(attrs: &Attributes<'_>, reason: String) -> ApiError {
        ApiError::Forbidden {
            group: attrs.kind.group.clone(),
            resource: attrs.kind.qualified_resource(),
            name: attrs.name.to_string(),
            reason,
            causes: Vec::new(),
        }
    }

    async fn decide(&self, attrs: &Attributes<'_>, object: &Value) -> Result<(), ApiError> {
        let signer = str_at(object, "/spec/signerName");
        let verb = match self.check {
            Check::Approval => "approve",
            Check::Signing => "sign",
            Check::Attest => "attest",
            Check::SubjectRestriction => return Self::restrict_subject(attrs, object, signer),
        };
        if self.may(attrs, verb, signer).await {
            return Ok(());
        }
        let reason = if self.check == Check::Attest {
            format!("user not permitted to attest for signerName {signer:?}")
        } else {
            format!("user not permitted to {verb} requests with signerName {signer:?}")
        };
        Err(Self::refuse(attrs, reason))
    }

    fn restrict_subject(
        attrs: &Attributes<'_>,
        object: &Value,
        signer: &str,
    ) -> Result<(), ApiError> {
        if signer != KUBE_APISERVER_CLIENT {
            return Ok(());
        }
        // An unreadable request is validation's to refuse, already done.
        let Ok(request) = parse_request(object) else {
            return Ok(());
        };
        let masters = request
            .params
            .distinguished_name
            .iter()
            .any(|(kind, value)| {
                *kind == rcgen::DnType::OrganizationName && dn_text(value) == MASTERS
            });
        if masters {
            return Err(Self::refuse(
                attrs,
                format!("use of {signer} signer with system:masters group is not allowed"),
            ));
        }
        Ok(())
    }

    /// Whether this write is one the plugin looks at.
    fn applies(&self, attrs: &Attributes<'_>, object: &Value) -> bool {
        if !attrs.kind.group.starts_with("certificates.") {
            return false;
        }
        let requests = attrs.kind.resource == "certificatesigningrequests";
        match self.check {
            Check::Approval => requests && attrs.subresource == Some("approval"),
            Check::Signing => {
                requests
                    && attrs.subresource == Some("status")
                    && attrs
                        .old_object
                        .map(|old| str_at(old, "/status/certificate"))
                        != Some(str_at(object, "/status/certificate"))
            }
            Check::SubjectRestriction => requests && attrs.operation == Operation::Create,
            // A bundle without a signer needs no attestation; nor does an
            // update that leaves the bundle as it was (storage migration).
            Check::Attest => {
                attrs.kind.resource == "clustertrustbundles"
                    && attrs.subresource.is_none()
                    && !str_at(object, "/spec/signerName").is_empty()
                    && attrs.old_object.map(|old| old.get("spec")) != Some(object.get("spec"))
            }
        }
    }
}

/// A subject attribute's text.
fn dn_text(value: &rcgen::DnValue) -> String {
    match value {
        rcgen::DnValue::Utf8String(s) => s.clone(),
        rcgen::DnValue::PrintableString(s) => s.as_str().to_string(),
        rcgen::DnValue::Ia5String(s) => s.as_str().to_string(),
        rcgen::DnValue::TeletexString(s) => s.as_str().to_string(),
        rcgen::DnValue::BmpString(s) => String::from_utf8_lossy(s.as_bytes()).into_owned(),
        rcgen::DnValue::UniversalString(s) => String::from_utf8_lossy(s.as_bytes()).into_owned(),
        _ => String::new(),
    }
}

impl ValidatingAdmission for CertificateAdmission {
    fn name(&self) -> &'static str {
        match self.check {
            Check::Approval => CERTIFICATE_APPROVAL,
            Check::Signing => CERTIFICATE_SIGNING,
            Check::Attest => CLUSTER_TRUST_BUNDLE_ATTEST,
            Check::SubjectRestriction => CERTIFICATE_SUBJECT_RESTRICTION,
        }
    }

    fn handles(&self, operation: Operation) -> bool {
        match self.check {
            Check::SubjectRestriction => operation == Operation::Create,
            Check::Approval | Check::Signing => operation == Operation::Update,
            Check::Attest => matches!(operation, Operation::Create | Operation::Update),
        }
    }

    fn validate<'a>(
        &'a self,
        attrs: &'a Attributes<'a>,
        object: Option<&'a Value>,
        _pins: &'a mut Pins,
    ) -> MaybeAsync<'a, Result<(), ApiError>> {
        match object {
            Some(object) if self.applies(attrs, object) => {
                MaybeAsync::pending(self.decide(attrs, object))
            }
            _ => MaybeAsync::Ready(Ok(())),
        }
    }
}
