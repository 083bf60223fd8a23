//! Kubernetes' validation of `certificates.k8s.io/v1`
//! CertificateSigningRequests: a request that is one verified PEM
//! `CERTIFICATE REQUEST`, a qualified signer name (not the legacy one),
//! known and unique usages, a duration of at least ten minutes, condition
//! types unique with Approved and Denied exclusive, and a certificate of
//! PEM `CERTIFICATE` blocks only.

use std::collections::BTreeSet;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rcgen::CertificateSigningRequestParams;
use serde_json::Value;

use super::checks::{items_at, str_at};
use super::csr_pem::blocks;
use crate::api::error::Cause;
use crate::api::meta::is_subdomain;

/// The signer v1 refuses to create requests for.
pub const LEGACY_UNKNOWN: &str = "kubernetes.io/legacy-unknown";

/// Every usage Kubernetes knows, as `spec.usages` spells them.
pub const KNOWN_USAGES: &[&str] = &[
    "signing",
    "digital signature",
    "content commitment",
    "key encipherment",
    "key agreement",
    "data encipherment",
    "cert sign",
    "crl sign",
    "encipher only",
    "decipher only",
    "any",
    "server auth",
    "client auth",
    "code signing",
    "email protection",
    "s/mime",
    "ipsec end system",
    "ipsec tunnel",
    "ipsec user",
    "timestamping",
    "ocsp signing",
    "microsoft sgc",
    "netscape sgc",
];

/// The shortest duration a request may ask for.
pub const MIN_EXPIRATION_SECONDS: i64 = 600;

/// A bytes field's PEM text (JSON carries bytes as base64).
pub fn pem_text(obj: &Value, pointer: &str) -> Option<String> {
    let encoded = obj.pointer(pointer)?.as_str()?;
    let bytes = STANDARD.decode(encoded).ok()?;
    String::from_utf8(bytes).ok()
}

/// The request's parameters, its signature checked.
pub fn parse_request(obj: &Value) -> Result<CertificateSigningRequestParams, String> {
    CertificateSigningRequestParams::from_der(&request_der(obj)?.into()).map_err(|e| e.to_string())
}

/// The DER of the request's `CERTIFICATE REQUEST` block (unchecked).
pub fn request_der(obj: &Value) -> Result<Vec<u8>, String> {
    let text = pem_text(obj, "/spec/request").unwrap_or_default();
    let parsed = blocks(&text).map_err(str::to_string)?;
    let block = parsed
        .into_iter()
        .find(|b| b.label == "CERTIFICATE REQUEST")
        .ok_or("PEM block type must be CERTIFICATE REQUEST")?;
    Ok(block.der)
}

/// Checks of an object, on create and on every update.
pub fn checks(obj: &Value) -> Vec<Cause> {
    let mut out = Vec::new();
    if obj.pointer("/spec/request").is_none_or(Value::is_null) {
        out.push(Cause::required("spec.request"));
    } else if let Err(problem) = parse_request(obj) {
        out.push(Cause::invalid("spec.request", "<request data>", &problem));
    }
    signer_name(str_at(obj, "/spec/signerName"), &mut out);
    usages(items_at(obj, "/spec/usages"), &mut out);
    if let Some(seconds) = obj
        .pointer("/spec/expirationSeconds")
        .and_then(Value::as_i64)
        && seconds < MIN_EXPIRATION_SECONDS
    {
        out.push(Cause::invalid(
            "spec.expirationSeconds",
            &seconds.to_string(),
            "may not specify a duration less than 600 seconds (10 minutes)",
        ));
    }
    conditions(items_at(obj, "/status/conditions"), &mut out);
    certificate(obj, &mut out);
    out
}

/// Checks of an update beyond `checks`: the spec is fixed, and a
/// certificate once issued stays.
pub fn update_checks(new: &Value, old: &Value) -> Vec<Cause> {
    let mut out = Vec::new();
    if new.get("spec") != old.get("spec") {
        out.push(Cause::invalid("spec", "", "field is immutable"));
    }
    let issued = str_at(old, "/status/certificate");
    if !issued.is_empty() && str_at(new, "/status/certificate") != issued {
        out.push(Cause::forbidden(
            "status.certificate",
            "updates may not modify existing certificate content",
        ));
    }
    out
}

fn signer_name(name: &str, out: &mut Vec<Cause>) {
    if name.is_empty() {
        out.push(Cause::required("spec.signerName"));
        return;
    }
    if name == LEGACY_UNKNOWN {
        out.push(Cause::invalid(
            "spec.signerName",
            name,
            "the legacy signerName is not allowed via this API version",
        ));
        return;
    }
    signer_shape(name, out);
}

/// A signer name's form, `<domain>/<path>` (`spec.signerName`).
pub(super) fn signer_shape(name: &str, out: &mut Vec<Cause>) {
    let qualified = name.split_once('/').is_some_and(|(domain, path)| {
        is_subdomain(domain) && !path.is_empty() && path.len() <= 571
    });
    if !qualified || name.len() > 571 {
        out.push(Cause::invalid(
            "spec.signerName",
            name,
            "must be a fully qualified domain and path of the form 'example.com/signer-name'",
        ));
    }
}

fn usages(list: &[Value], out: &mut Vec<Cause>) {
    if list.is_empty() {
        out.push(Cause::required("spec.usages"));
        return;
    }
    let mut seen = BTreeSet::new();
    for (i, usage) in list.iter().enumerate() {
        let usage = usage.as_str().unwrap_or_default();
        let field = format!("spec.usages[{i}]");
        if !KNOWN_USAGES.contains(&usage) {
            let allowed: Vec<String> = KNOWN_USAGES.iter().map(|u| format!("{u:?}")).collect();
            out.push(Cause::new(
                "FieldValueNotSupported",
                field,
                format!(
                    "Unsupported value: {usage:?}: supported values: {}",
                    allowed.join(", ")
                ),
            ));
        } else if !seen.insert(usage) {
            out.push(Cause::new(
                "FieldValueDuplicate",
                field,
                format!("Duplicate value: {usage:?}"),
            ));
        }
    }
}

fn conditions(list: &[Value], out: &mut Vec<Cause>) {
    let mut seen = BTreeSet::new();
    for (i, condition) in list.iter().enumerate() {
        let kind = str_at(condition, "/type");
        let field = format!("status.conditions[{i}]");
        if kind.is_empty() {
            out.push(Cause::required(format!("{field}.type")));
        } else if !seen.insert(kind) {
            out.push(Cause::new(
                "FieldValueDuplicate",
                format!("{field}.type"),
                format!("Duplicate value: {kind:?}"),
            ));
        }
        let status = str_at(condition, "/status");
        let allowed: &[&str] = match kind {
            "Approved" | "Denied" | "Failed" => &["True"],
            _ => &["True", "False", "Unknown"],
        };
        if status.is_empty() {
            out.push(Cause::required(format!("{field}.status")));
        } else if !allowed.contains(&status) {
            let quoted: Vec<String> = allowed.iter().map(|s| format!("{s:?}")).collect();
            out.push(Cause::new(
                "FieldValueNotSupported",
                format!("{field}.status"),
                format!(
                    "Unsupported value: {status:?}: supported values: {}",
                    quoted.join(", ")
                ),
            ));
        }
    }
    if seen.contains("Approved") && seen.contains("Denied") {
        out.push(Cause::invalid(
            "status.conditions",
            "Denied",
            "Approved and Denied conditions are mutually exclusive",
        ));
    }
}

fn certificate(obj: &Value, out: &mut Vec<Cause>) {
    let Some(encoded) = obj.pointer("/status/certificate").and_then(Value::as_str) else {
        return;
    };
    if encoded.is_empty() {
        return;
    }
    let problem = match pem_text(obj, "/status/certificate").map(|t| blocks(&t)) {
        None => Some("data contains non-PEM content".to_string()),
        Some(Err(problem)) => Some(problem.to_string()),
        Some(Ok(found)) if found.is_empty() => {
            Some("must contain at least one CERTIFICATE PEM block".into())
        }
        Some(Ok(found)) => found.iter().find_map(|b| {
            if b.label != "CERTIFICATE" {
                Some(format!(
                    "only CERTIFICATE PEM blocks are allowed, found {:?}",
                    b.label
                ))
            } else if b.has_headers {
                Some("no PEM block headers are permitted".into())
            } else {
                x509_parser::parse_x509_certificate(&b.der)
                    .err()
                    .map(|e| e.to_string())
            }
        }),
    };
    if let Some(problem) = problem {
        out.push(Cause::invalid(
            "status.certificate",
            "<certificate data>",
            &problem,
        ));
    }
}

/// Whether condition `kind` is present and true.
#[must_use]
pub fn has_condition(obj: &Value, kind: &str) -> bool {
    items_at(obj, "/status/conditions")
        .iter()
        .any(|c| str_at(c, "/type") == kind && str_at(c, "/status") == "True")
}

/// Appends a true condition `kind` (`reason`, `message`, both times
/// `now`) to the request's `status.conditions`, making either as needed.
pub fn push_condition(obj: &mut Value, kind: &str, reason: &str, message: &str, now: &str) {
    let condition = serde_json::json!({"type": kind, "status": "True", "reason": reason,
        "message": message, "lastUpdateTime": now, "lastTransitionTime": now});
    if !obj.get("status").is_some_and(Value::is_object) {
        obj["status"] = serde_json::json!({});
    }
    match obj["status"]["conditions"].as_array_mut() {
        Some(list) => list.push(condition),
        None => obj["status"]["conditions"] = serde_json::json!([condition]),
    }
}

#[cfg(test)]
#[path = "csr_rules_tests.rs"]
mod tests;
