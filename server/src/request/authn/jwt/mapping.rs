//! From verified claims to a user, as kube-apiserver's JWT authenticator
//! maps them: claim validation rules, then username (claim with prefix and
//! the `email_verified` rule, or CEL), groups (string or list; absent means
//! none), uid, extra, then the user validation rules over `user`. All CEL
//! evaluations of one token share one cost budget.

use std::collections::BTreeMap;

use cel::Value as Cel;
use serde_json::{Value, json};

use crate::api::cel::RUNTIME_CEL_COST_BUDGET;
use crate::config::authn::{ClaimRule, JwtIssuerConfig, Mapping, PrefixedMapping};
use crate::request::user::{AUTHENTICATED, UserInfo};

/// The user `claims` map to under `config`; the error says why not (for
/// the log).
pub fn user_from_claims(config: &JwtIssuerConfig, claims: &Value) -> Result<UserInfo, String> {
    let mut budget = RUNTIME_CEL_COST_BUDGET;
    let vars = [("claims", claims)];
    for rule in &config.claim_rules {
        match rule {
            ClaimRule::Equals { claim, value } => {
                let got = claims
                    .get(claim)
                    .ok_or_else(|| format!("oidc: required claim {claim} not present in ID token"))?
                    .as_str()
                    .ok_or_else(|| format!("oidc: parse claim {claim}: not a string"))?;
                if got != value {
                    return Err(format!(
                        "oidc: required claim {claim} value does not match. Got = {got}, want = {value}"
                    ));
                }
            }
            ClaimRule::Expression {
                expression,
                message,
            } => match expression.evaluate(&vars, &mut budget) {
                Ok(Cel::Bool(true)) => {}
                Ok(Cel::Bool(false)) => {
                    return Err(format!(
                        "oidc: error evaluating claim validation expression: {message}"
                    ));
                }
                Ok(_) => {
                    return Err(
                        "oidc: error evaluating claim validation expression: expected bool".into(),
                    );
                }
                Err(e) => {
                    return Err(format!(
                        "oidc: error evaluating claim validation expression: {e}"
                    ));
                }
            },
        }
    }
    let name = username(config, claims, &mut budget)?;
    let groups = groups(config, claims, &mut budget)?;
    let uid = match &config.uid {
        None => String::new(),
        Some(Mapping::Claim(claim)) => claims
            .get(claim)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("oidc: parse uid claim {claim:?}: not a string"))?
            .to_owned(),
        Some(Mapping::Expression(e)) => match e.evaluate(&vars, &mut budget) {
            Ok(Cel::String(s)) => s.to_string(),
            Ok(_) => return Err("oidc: error evaluating uid claim expression: not a string".into()),
            Err(e) => return Err(format!("oidc: error evaluating uid claim expression: {e}")),
        },
    };
    let mut extra = BTreeMap::new();
    for mapping in &config.extra {
        let value = mapping
            .value
            .evaluate(&vars, &mut budget)
            .map_err(|e| format!("oidc: error evaluating extra claim expression: {e}"))?;
        let values = strings(&value).ok_or_else(|| {
            format!(
                "oidc: error evaluating extra claim expression for key {}: not a string or list of strings",
                mapping.key
            )
        })?;
        let values: Vec<String> = values.into_iter().filter(|v| !v.is_empty()).collect();
        if !values.is_empty() {
            extra.insert(mapping.key.clone(), values);
        }
    }
    let mut user = UserInfo {
        name,
        uid,
        groups,
        extra,
    };
    // The rules see the user as the authenticator made it; the
    // authenticated group is added after, as Kubernetes' union does.
    user_rules(config, &user, &mut budget)?;
    if !user.in_group(AUTHENTICATED) {
        user.groups.push(AUTHENTICATED.to_owned());
    }
    Ok(user)
}

fn username(config: &JwtIssuerConfig, claims: &Value, budget: &mut u64) -> Result<String, String> {
    match &config.username {
        PrefixedMapping::Claim { claim, prefix } => {
            let name = claims
                .get(claim)
                .ok_or_else(|| format!("oidc: parse username claims {claim:?}: claim not present"))?
                .as_str()
                .ok_or_else(|| format!("oidc: parse username claims {claim:?}: not a string"))?;
            if claim == "email"
                && let Some(verified) = claims.get("email_verified")
            {
                match verified {
                    Value::Bool(true) => {}
                    Value::Bool(false) => return Err("oidc: email not verified".into()),
                    _ => return Err("oidc: parse 'email_verified' claim: not a bool".into()),
                }
            }
            if name.is_empty() {
                return Err(format!("oidc: username claim {claim:?} is empty"));
            }
            Ok(format!("{prefix}{name}"))
        }
        PrefixedMapping::Expression(e) => match e.evaluate(&[("claims", claims)], budget) {
            Ok(Cel::String(s)) if s.is_empty() => {
                Err("oidc: empty username via CEL expression is not allowed".into())
            }
            Ok(Cel::String(s)) => Ok(s.to_string()),
            Ok(_) => Err("oidc: error evaluating username claim expression: not a string".into()),
            Err(e) => Err(format!(
                "oidc: error evaluating username claim expression: {e}"
            )),
        },
    }
}

fn groups(
    config: &JwtIssuerConfig,
    claims: &Value,
    budget: &mut u64,
) -> Result<Vec<String>, String> {
    match &config.groups {
        None => Ok(Vec::new()),
        Some(PrefixedMapping::Claim { claim, prefix }) => {
            let found = match claims.get(claim) {
                None | Some(Value::Null) => return Ok(Vec::new()),
                Some(Value::String(s)) => vec![s.clone()],
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|i| i.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| {
                        format!("oidc: parse groups claim {claim:?}: not a list of strings")
                    })?,
                Some(_) => {
                    return Err(format!(
                        "oidc: parse groups claim {claim:?}: not a string or a list of strings"
                    ));
                }
            };
            Ok(found.into_iter().map(|g| format!("{prefix}{g}")).collect())
        }
        Some(PrefixedMapping::Expression(e)) => {
            let value = e
                .evaluate(&[("claims", claims)], budget)
                .map_err(|e| format!("oidc: error evaluating group claim expression: {e}"))?;
            let found = strings(&value).ok_or(
                "oidc: error evaluating group claim expression: not a string or list of strings",
            )?;
            Ok(found.into_iter().filter(|g| !g.is_empty()).collect())
        }
    }
}

/// A CEL string (one value), list of strings or null (none).
fn strings(value: &Cel) -> Option<Vec<String>> {
    match value {
        Cel::Null => Some(Vec::new()),
        Cel::String(s) => Some(vec![s.to_string()]),
        Cel::List(items) => items
            .iter()
            .map(|i| match i {
                Cel::String(s) => Some(s.to_string()),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

fn user_rules(config: &JwtIssuerConfig, user: &UserInfo, budget: &mut u64) -> Result<(), String> {
    if config.user_rules.is_empty() {
        return Ok(());
    }
    let user_value = json!({
        "username": user.name,
        "uid": user.uid,
        "groups": user.groups,
        "extra": user.extra,
    });
    for rule in &config.user_rules {
        match rule.expression.evaluate(&[("user", &user_value)], budget) {
            Ok(Cel::Bool(true)) => {}
            Ok(Cel::Bool(false)) => {
                return Err(format!(
                    "oidc: error evaluating user info validation rule: {}",
                    rule.message
                ));
            }
            Ok(_) => return Err("oidc: user validation rule did not return a bool".into()),
            Err(e) => {
                return Err(format!(
                    "oidc: error evaluating user info validation rule: {e}"
                ));
            }
        }
    }
    Ok(())
}
