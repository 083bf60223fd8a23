//! The rules of a `jwt[]` entry beyond its issuer: claim validation rules,
//! claim mappings (claim or expression, prefixes, extra keys), user
//! validation rules, the `email_verified` rule; CEL expressions compiled
//! over `claims` (or `user`).

use serde_json::Value;

use super::decode::{RawJwt, RawMapping};
use super::{
    ClaimRule, Context, ExtraMapping, JwtIssuerConfig, Mapping, PrefixedMapping, UserRule, issuer,
};
use crate::api::cel::{Evident, Expression};
use crate::api::meta::is_subdomain;
use crate::api::schema::FieldError;

const SUBDOMAIN_ERR: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const HTTP_PATH_ERR: &str =
    "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')";

/// Validates one entry; `None` when it has errors (appended to `errors`).
pub fn jwt_authenticator(
    raw: RawJwt,
    at: &str,
    ctx: &Context,
    errors: &mut Vec<FieldError>,
) -> Option<JwtIssuerConfig> {
    let before = errors.len();
    issuer::validate(
        &raw.issuer,
        &format!("{at}.issuer"),
        &ctx.disallowed_issuers,
        errors,
    );
    let mut email_verified_used = false;
    let claim_rules = claim_rules(&raw, at, errors, &mut email_verified_used);
    let mappings_at = format!("{at}.claimMappings");
    let username = prefixed(
        &raw.username,
        &format!("{mappings_at}.username"),
        true,
        errors,
    );
    let groups = prefixed(&raw.groups, &format!("{mappings_at}.groups"), false, errors);
    let uid = uid(&raw.uid, &format!("{mappings_at}.uid"), errors);
    let extra = extra(&raw, &mappings_at, errors);
    if let Some(Some(PrefixedMapping::Expression(e))) = &username {
        email_verified_used |= e.selects("claims", "email_verified");
        email_verified_used |= extra
            .iter()
            .any(|x| x.value.selects("claims", "email_verified"));
        if e.selects("claims", "email") && !email_verified_used {
            errors.push(FieldError::invalid(
                format!("{mappings_at}.username.expression"),
                Value::from(raw.username.expression.as_str()),
                "claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression",
            ));
        }
    }
    let user_rules = user_rules(&raw, at, errors);
    if errors.len() > before {
        return None;
    }
    let issuer = raw.issuer;
    Some(JwtIssuerConfig {
        url: issuer.url,
        discovery_url: Some(issuer.discovery_url).filter(|s| !s.is_empty()),
        certificate_authority: Some(issuer.certificate_authority).filter(|s| !s.is_empty()),
        audiences: issuer.audiences,
        egress_selector: Some(issuer.egress_selector_type).filter(|s| !s.is_empty()),
        claim_rules,
        username: username.flatten()?,
        groups: groups.flatten(),
        uid: uid.flatten(),
        extra,
        user_rules,
    })
}

/// Compiles `source` over `variable`; a type the expression evidently has
/// that is not `wants` is refused as Kubernetes' type checker would.
fn compile(
    source: &str,
    variable: &str,
    wants: Option<Evident>,
    at: &str,
    errors: &mut Vec<FieldError>,
) -> Option<Expression> {
    match Expression::compile(source, &[variable]) {
        Ok(e) => match (wants, e.evident_type()) {
            (Some(want), Some(got)) if got != want => {
                errors.push(FieldError::invalid(
                    at,
                    Value::from(source),
                    format!("must evaluate to {}", want.name()),
                ));
                None
            }
            _ => Some(e),
        },
        Err(detail) => {
            errors.push(FieldError::invalid(
                at,
                Value::from(source),
                format!("compilation failed: {detail}"),
            ));
            None
        }
    }
}

fn claim_rules(
    raw: &RawJwt,
    at: &str,
    errors: &mut Vec<FieldError>,
    email_verified_used: &mut bool,
) -> Vec<ClaimRule> {
    let mut rules = Vec::new();
    let mut seen_claims: Vec<&str> = Vec::new();
    let mut seen_expressions: Vec<&str> = Vec::new();
    for (i, rule) in raw.claim_validation_rules.iter().enumerate() {
        let here = format!("{at}.claimValidationRules[{i}]");
        match (rule.claim.is_empty(), rule.expression.is_empty()) {
            (false, false) => errors.push(FieldError::invalid(
                &here,
                Value::from(rule.claim.as_str()),
                "claim and expression can't both be set",
            )),
            (true, true) => errors.push(FieldError::required(
                &here,
                "claim or expression is required",
            )),
            (false, true) => {
                if !rule.message.is_empty() {
                    errors.push(FieldError::invalid(
                        format!("{here}.message"),
                        Value::from(rule.message.as_str()),
                        "may not be specified when claim is set",
                    ));
                }
                if seen_claims.contains(&rule.claim.as_str()) {
                    errors.push(FieldError::duplicate(
                        format!("{here}.claim"),
                        Value::from(rule.claim.as_str()),
                    ));
                }
                seen_claims.push(&rule.claim);
                rules.push(ClaimRule::Equals {
                    claim: rule.claim.clone(),
                    value: rule.required_value.clone(),
                });
            }
            (true, false) => {
                if !rule.required_value.is_empty() {
                    errors.push(FieldError::invalid(
                        format!("{here}.requiredValue"),
                        Value::from(rule.required_value.as_str()),
                        "may not be specified when expression is set",
                    ));
                }
                if seen_expressions.contains(&rule.expression.as_str()) {
                    errors.push(FieldError::duplicate(
                        format!("{here}.expression"),
                        Value::from(rule.expression.as_str()),
                    ));
                    continue;
                }
                seen_expressions.push(&rule.expression);
                let expr_at = format!("{here}.expression");
                if let Some(expression) = compile(
                    &rule.expression,
                    "claims",
                    Some(Evident::Bool),
                    &expr_at,
                    errors,
                ) {
                    *email_verified_used |= expression.selects("claims", "email_verified");
                    rules.push(ClaimRule::Expression {
                        expression,
                        message: rule.message.clone(),
                    });
                }
            }
        }
    }
    rules
}

/// `Some(None)` when the mapping is absent (and optional), `None` on error.
fn prefixed(
    raw: &RawMapping,
    at: &str,
    required: bool,
    errors: &mut Vec<FieldError>,
) -> Option<Option<PrefixedMapping>> {
    match (raw.claim.is_empty(), raw.expression.is_empty()) {
        (false, false) => {
            errors.push(FieldError::invalid(
                at,
                Value::from(""),
                "claim and expression can't both be set",
            ));
            None
        }
        (true, true) if required => {
            errors.push(FieldError::required(at, "claim or expression is required"));
            None
        }
        (true, true) => Some(None),
        (true, false) => {
            let mut ok = true;
            if let Some(prefix) = &raw.prefix {
                errors.push(FieldError::invalid(
                    format!("{at}.prefix"),
                    Value::from(prefix.as_str()),
                    "may not be specified when expression is set",
                ));
                ok = false;
            }
            let expression = compile(
                &raw.expression,
                "claims",
                None,
                &format!("{at}.expression"),
                errors,
            )?;
            ok.then_some(Some(PrefixedMapping::Expression(expression)))
        }
        (false, true) => match &raw.prefix {
            Some(prefix) => Some(Some(PrefixedMapping::Claim {
                claim: raw.claim.clone(),
                prefix: prefix.clone(),
            })),
            None => {
                errors.push(FieldError::required(
                    format!("{at}.prefix"),
                    "prefix is required when claim is set. It can be set to an empty string to disable prefixing",
                ));
                None
            }
        },
    }
}

fn uid(raw: &RawMapping, at: &str, errors: &mut Vec<FieldError>) -> Option<Option<Mapping>> {
    match (raw.claim.is_empty(), raw.expression.is_empty()) {
        (false, false) => {
            errors.push(FieldError::invalid(
                at,
                Value::from(""),
                "claim and expression can't both be set",
            ));
            None
        }
        (true, true) => Some(None),
        (false, true) => Some(Some(Mapping::Claim(raw.claim.clone()))),
        (true, false) => compile(
            &raw.expression,
            "claims",
            None,
            &format!("{at}.expression"),
            errors,
        )
        .map(|e| Some(Mapping::Expression(e))),
    }
}

fn extra(raw: &RawJwt, mappings_at: &str, errors: &mut Vec<FieldError>) -> Vec<ExtraMapping> {
    let mut out = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (i, mapping) in raw.extra.iter().enumerate() {
        let here = format!("{mappings_at}.extra[{i}]");
        let key_at = format!("{here}.key");
        let key = mapping.key.as_str();
        domain_prefixed_path(&key_at, key, errors);
        if key != key.to_lowercase() {
            errors.push(FieldError::invalid(
                &key_at,
                Value::from(key),
                "must be lowercase",
            ));
        }
        if is_kubernetes_domain(key) {
            errors.push(FieldError::invalid(
                &key_at,
                Value::from(key),
                "k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use",
            ));
        }
        if seen.contains(&key) {
            errors.push(FieldError::duplicate(&key_at, Value::from(key)));
            continue;
        }
        seen.push(key);
        if mapping.value_expression.is_empty() {
            errors.push(FieldError::required(format!("{here}.valueExpression"), ""));
            continue;
        }
        if let Some(value) = compile(
            &mapping.value_expression,
            "claims",
            None,
            &format!("{here}.valueExpression"),
            errors,
        ) {
            out.push(ExtraMapping {
                key: key.to_owned(),
                value,
            });
        }
    }
    out
}

fn user_rules(raw: &RawJwt, at: &str, errors: &mut Vec<FieldError>) -> Vec<UserRule> {
    let mut out = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (i, rule) in raw.user_validation_rules.iter().enumerate() {
        let expr_at = format!("{at}.userValidationRules[{i}].expression");
        if rule.expression.is_empty() {
            errors.push(FieldError::required(&expr_at, ""));
            continue;
        }
        if seen.contains(&rule.expression.as_str()) {
            errors.push(FieldError::duplicate(
                &expr_at,
                Value::from(rule.expression.as_str()),
            ));
            continue;
        }
        seen.push(&rule.expression);
        if let Some(expression) = compile(
            &rule.expression,
            "user",
            Some(Evident::Bool),
            &expr_at,
            errors,
        ) {
            out.push(UserRule {
                expression,
                message: rule.message.clone(),
            });
        }
    }
    out
}

/// Kubernetes' `IsDomainPrefixedPath`: `<RFC 1123 subdomain>/<HTTP path>`.
fn domain_prefixed_path(at: &str, key: &str, errors: &mut Vec<FieldError>) {
    if key.is_empty() {
        errors.push(FieldError::required(at, ""));
        return;
    }
    let Some((host, path)) = key
        .split_once('/')
        .filter(|(h, p)| !h.is_empty() && !p.is_empty())
    else {
        errors.push(FieldError::invalid(
            at,
            Value::from(key),
            "must be a domain-prefixed path (such as \"acme.io/foo\")",
        ));
        return;
    };
    if host.len() > 253 {
        errors.push(FieldError::invalid(
            at,
            Value::from(host),
            "must be no more than 253 characters",
        ));
    }
    if !is_subdomain(host) {
        errors.push(FieldError::invalid(at, Value::from(host), SUBDOMAIN_ERR));
    }
    let path_ok = path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/-._~%!$&'()*+,;=:".contains(c));
    if !path_ok {
        errors.push(FieldError::invalid(at, Value::from(path), HTTP_PATH_ERR));
    }
}

fn is_kubernetes_domain(key: &str) -> bool {
    let Some((domain, _)) = key.split_once('/') else {
        return false;
    };
    ["kubernetes.io", "k8s.io"]
        .iter()
        .any(|d| domain == *d || domain.ends_with(&format!(".{d}")))
}
