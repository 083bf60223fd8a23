//! Rules of `certificates/v1alpha1` ClusterTrustBundle as Kubernetes 1.32
//! checks them: a name tied to the signer, and a bundle of distinct CA
//! certificates in plain PEM.

use std::collections::BTreeMap;

use serde_json::Value;

use super::checks::str_at;
use super::csr_pem;
use super::csr_rules::signer_shape;
use crate::api::error::Cause;
use crate::api::kind::NameRule;
use crate::api::meta::name_problem;

/// Kube's `MaxTrustBundleSize`.
const MAX_BUNDLE_BYTES: usize = 1024 * 1024;

/// The whole object's checks.
#[must_use]
pub fn checks(obj: &Value) -> Vec<Cause> {
    let mut out = Vec::new();
    let signer = str_at(obj, "/spec/signerName");
    name(str_at(obj, "/metadata/name"), signer, &mut out);
    if !signer.is_empty() {
        signer_shape(signer, &mut out);
    }
    bundle(str_at(obj, "/spec/trustBundle"), &mut out);
    out
}

/// A bundle's signer is fixed.
#[must_use]
pub fn update_checks(new: &Value, old: &Value) -> Vec<Cause> {
    let signer = str_at(new, "/spec/signerName");
    if signer == str_at(old, "/spec/signerName") {
        return Vec::new();
    }
    vec![Cause::invalid(
        "spec.signerName",
        signer,
        "field is immutable",
    )]
}

/// Without a signer the name is a DNS subdomain without `:`; with one it
/// starts with the signer name, `/` written `:`, and a `:`.
fn name(name: &str, signer: &str, out: &mut Vec<Cause>) {
    if name.is_empty() {
        return;
    }
    let field = "metadata.name";
    let rest = if signer.is_empty() {
        if name.contains(':') {
            out.push(Cause::invalid(
                field,
                name,
                "ClusterTrustBundle without signer name must not have \":\" in its name",
            ));
            return;
        }
        name
    } else {
        let prefix = format!("{}:", signer.replace('/', ":"));
        let Some(rest) = name.strip_prefix(&prefix) else {
            out.push(Cause::invalid(
                field,
                name,
                &format!(
                    "ClusterTrustBundle for signerName {signer} must be named with prefix {prefix}"
                ),
            ));
            return;
        };
        rest
    };
    if let Some(problem) = name_problem(rest, NameRule::Subdomain) {
        out.push(Cause::invalid(field, name, &problem));
    }
}

fn bundle(text: &str, out: &mut Vec<Cause>) {
    let field = "spec.trustBundle";
    if text.len() > MAX_BUNDLE_BYTES {
        out.push(Cause::new(
            "FieldValueTooLong",
            field,
            format!("Too long: may not be more than {MAX_BUNDLE_BYTES} bytes"),
        ));
        return;
    }
    // Go's pem.Decode skips what is not PEM; a bundle of none is refused below.
    let blocks = csr_pem::blocks(text).unwrap_or_default();
    let omitted = |detail: String| Cause::invalid(field, "<value omitted>", &detail);
    let before = out.len();
    for (i, block) in blocks.iter().enumerate() {
        if block.label != "CERTIFICATE" {
            out.push(omitted(format!(
                "entry {i} has bad block type: {}",
                block.label
            )));
        } else if block.has_headers {
            out.push(omitted(format!("entry {i} has PEM block headers")));
        } else if let Some(problem) = ca_problem(&block.der) {
            out.push(omitted(format!("entry {i} {problem}")));
        }
    }
    if out.len() > before {
        return;
    }
    if blocks.is_empty() {
        out.push(omitted(
            "at least one trust anchor must be provided".to_owned(),
        ));
        return;
    }
    let mut seen: BTreeMap<&[u8], Vec<usize>> = BTreeMap::new();
    for (i, block) in blocks.iter().enumerate() {
        seen.entry(&block.der).or_default().push(i);
    }
    let mut duplicates: Vec<&Vec<usize>> = seen.values().filter(|v| v.len() > 1).collect();
    duplicates.sort();
    for indices in duplicates {
        let shown: Vec<String> = indices.iter().map(ToString::to_string).collect();
        out.push(omitted(format!(
            "duplicate trust anchor (indices [{}])",
            shown.join(" ")
        )));
    }
}

/// Why a certificate cannot anchor trust, in kube's words.
fn ca_problem(der: &[u8]) -> Option<&'static str> {
    let Ok((_, cert)) = x509_parser::parse_x509_certificate(der) else {
        return Some("does not parse as X.509");
    };
    match cert.basic_constraints() {
        Ok(Some(constraints)) if constraints.value.ca => None,
        Ok(_) => Some("does not have the CA bit set"),
        Err(_) => Some("has invalid basic constraints"),
    }
}

#[cfg(test)]
#[path = "trust_bundle_rules_tests.rs"]
mod tests;
