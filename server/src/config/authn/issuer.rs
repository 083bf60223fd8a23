//! The rules of `jwt[].issuer`: https URLs without user, query or fragment,
//! a discovery URL different from the issuer's, audiences non-empty and
//! unique with MatchAny when several, a parseable CA bundle, a known egress
//! selector type.

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use serde_json::Value;

use super::decode::RawIssuer;
use crate::api::schema::FieldError;

/// The only audience match policy.
const MATCH_ANY: &str = "MatchAny";

pub fn validate(issuer: &RawIssuer, at: &str, disallowed: &[String], errors: &mut Vec<FieldError>) {
    let url_at = format!("{at}.url");
    if issuer.url.is_empty() {
        errors.push(FieldError::required(url_at, ""));
    } else {
        validate_url(&issuer.url, disallowed, &url_at, errors);
    }
    if !issuer.discovery_url.is_empty() {
        let discovery_at = format!("{at}.discoveryURL");
        if !issuer.url.is_empty()
            && issuer.url.trim_end_matches('/') == issuer.discovery_url.trim_end_matches('/')
        {
            errors.push(FieldError::invalid(
                &discovery_at,
                Value::from(issuer.discovery_url.as_str()),
                "discoveryURL must be different from URL",
            ));
        }
        validate_url(&issuer.discovery_url, &[], &discovery_at, errors);
    }
    validate_audiences(issuer, at, errors);
    if !issuer.certificate_authority.is_empty()
        && let Err(e) = certificates(&issuer.certificate_authority)
    {
        errors.push(FieldError::invalid(
            format!("{at}.certificateAuthority"),
            Value::from("<omitted>"),
            e,
        ));
    }
    let egress = issuer.egress_selector_type.as_str();
    if !egress.is_empty() && !matches!(egress, "controlplane" | "cluster") {
        errors.push(FieldError::invalid(
            format!("{at}.egressSelectorType"),
            Value::from(egress),
            "egress selector must be either controlplane or cluster",
        ));
    }
}

fn validate_audiences(issuer: &RawIssuer, at: &str, errors: &mut Vec<FieldError>) {
    let audiences_at = format!("{at}.audiences");
    let policy_at = format!("{at}.audienceMatchPolicy");
    let audiences = &issuer.audiences;
    if audiences.is_empty() {
        errors.push(FieldError::required(
            &audiences_at,
            format!("at least one {audiences_at} is required"),
        ));
        return;
    }
    for (i, audience) in audiences.iter().enumerate() {
        let here = format!("{audiences_at}[{i}]");
        if audience.is_empty() {
            errors.push(FieldError::required(&here, ""));
        }
        if audiences[..i].contains(audience) {
            errors.push(FieldError::duplicate(here, Value::from(audience.as_str())));
        }
    }
    let policy = issuer.audience_match_policy.as_str();
    if audiences.len() > 1 && policy != MATCH_ANY {
        errors.push(FieldError::invalid(
            policy_at,
            Value::from(policy),
            "audienceMatchPolicy must be MatchAny for multiple audiences",
        ));
    } else if audiences.len() == 1 && !policy.is_empty() && policy != MATCH_ANY {
        errors.push(FieldError::invalid(
            policy_at,
            Value::from(policy),
            "audienceMatchPolicy must be empty or MatchAny for single audience",
        ));
    }
}

/// The parts of a URL the rules look at.
struct UrlParts<'a> {
    scheme: &'a str,
    has_user: bool,
    query: &'a str,
    fragment: &'a str,
}

/// Splits a URL as Go's `url.Parse` does, for what the rules need; the
/// error is Go's wording for a URL it cannot parse.
fn split_url(u: &str) -> Result<UrlParts<'_>, String> {
    if u.chars().any(|c| c.is_ascii_control() || c == ' ') {
        return Err(format!("parse {u:?}: invalid character in URL"));
    }
    let (rest, fragment) = u.split_once('#').unwrap_or((u, ""));
    let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
    let scheme_end = rest.find(':');
    let scheme = match scheme_end {
        Some(0) => return Err(format!("parse {u:?}: missing protocol scheme")),
        Some(end)
            if rest[..end]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
                && rest[..end]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) =>
        {
            &rest[..end]
        }
        _ => "",
    };
    let after_scheme = if scheme.is_empty() {
        rest
    } else {
        &rest[scheme.len() + 1..]
    };
    let has_user = after_scheme
        .strip_prefix("//")
        .map(|a| a.split('/').next().unwrap_or(""))
        .is_some_and(|authority| authority.contains('@'));
    Ok(UrlParts {
        scheme,
        has_user,
        query,
        fragment,
    })
}

fn validate_url(u: &str, disallowed: &[String], at: &str, errors: &mut Vec<FieldError>) {
    let invalid = |detail: String| FieldError::invalid(at, Value::from(u), detail);
    if disallowed.iter().any(|d| d == u) {
        let mut sorted = disallowed.to_vec();
        sorted.sort();
        errors.push(invalid(format!(
            "URL must not overlap with disallowed issuers: [{}]",
            sorted.join(" ")
        )));
    }
    let parts = match split_url(u) {
        Ok(p) => p,
        Err(e) => {
            errors.push(invalid(e));
            return;
        }
    };
    if !parts.scheme.eq_ignore_ascii_case("https") {
        errors.push(invalid("URL scheme must be https".into()));
    }
    if parts.has_user {
        errors.push(invalid(
            "URL must not contain a username or password".into(),
        ));
    }
    if !parts.query.is_empty() {
        errors.push(invalid("URL must not contain a query".into()));
    }
    if !parts.fragment.is_empty() {
        errors.push(invalid("URL must not contain a fragment".into()));
    }
}

/// The certificates of a PEM bundle; Go's `NewPoolFromBytes` wording when
/// there are none or one does not parse.
pub fn certificates(pem: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let mut certs = Vec::new();
    for item in CertificateDer::pem_slice_iter(pem.as_bytes()) {
        let der = item.map_err(|e| format!("error reading a certificate: {e}"))?;
        x509_parser::parse_x509_certificate(&der)
            .map_err(|e| format!("x509: malformed certificate: {e}"))?;
        certs.push(der);
    }
    if certs.is_empty() {
        return Err("data does not contain any valid RSA or ECDSA certificates".into());
    }
    Ok(certs)
}
