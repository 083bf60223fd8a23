//! A token's signature and registered claims: the unverified issuer (to
//! pick the authenticator), the signature by one of the issuer's keys with
//! an allowed algorithm, then `iss`, `aud` (any configured audience),
//! `exp`, `nbf` and `iat` (with a small skew for the last two).

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::Value;

use super::keys::Key;

/// The signature algorithms accepted (kube-apiserver's, less ES512 which
/// the verifier lacks).
const ALLOWED: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
];

/// Seconds a token's `nbf` and `iat` may lie in the future.
const SKEW_SECONDS: f64 = 60.0;

/// The `iss` of a token shaped like a JWT, read without verification;
/// `None` for anything else.
#[must_use]
pub fn unverified_issuer(token: &str) -> Option<String> {
    let mut parts = token.split('.');
    let (_, payload, _, None) = (parts.next()?, parts.next()?, parts.next()?, parts.next()) else {
        return None;
    };
    let bytes = URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')).ok()?;
    let claims: Value = serde_json::from_slice(&bytes).ok()?;
    claims.get("iss")?.as_str().map(str::to_owned)
}

/// The token's header algorithm and key id.
pub fn header(token: &str) -> Result<(Algorithm, Option<String>), String> {
    let header =
        jsonwebtoken::decode_header(token).map_err(|e| format!("oidc: malformed jwt: {e}"))?;
    if !ALLOWED.contains(&header.alg) {
        return Err(format!(
            "oidc: id token signed with unsupported algorithm, expected {ALLOWED:?} got {:?}",
            header.alg
        ));
    }
    Ok((header.alg, header.kid))
}

/// The claims of a token signed by one of `keys` (those with its `kid`
/// when it names one).
pub fn signed_claims(
    token: &str,
    alg: Algorithm,
    kid: Option<&str>,
    keys: &[Key],
) -> Result<Value, String> {
    let mut validation = Validation::new(alg);
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    let candidates = keys
        .iter()
        .filter(|k| kid.is_none() || k.kid.as_deref() == kid)
        .filter(|k| k.alg.is_none_or(|a| a == alg));
    for key in candidates {
        if let Ok(data) = jsonwebtoken::decode::<Value>(token, &key.key, &validation) {
            return Ok(data.claims);
        }
    }
    Err("oidc: failed to verify signature: no key of the issuer verifies the token".into())
}

/// The registered claims: issuer, audience, lifetime.
pub fn registered_claims(claims: &Value, issuer: &str, audiences: &[String]) -> Result<(), String> {
    let iss = claims.get("iss").and_then(Value::as_str).unwrap_or("");
    if iss != issuer {
        return Err(format!(
            "oidc: id token issued by a different provider, expected {issuer:?} got {iss:?}"
        ));
    }
    let aud: Vec<&str> = match claims.get("aud") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if !aud.iter().any(|a| audiences.iter().any(|want| want == a)) {
        return Err(format!(
            "oidc: expected audience in {audiences:?} got {aud:?}"
        ));
    }
    let now = now();
    let exp = claims
        .get("exp")
        .and_then(Value::as_f64)
        .ok_or("oidc: token has no exp claim")?;
    if exp < now {
        return Err(format!("oidc: token is expired (Token Expiry: {exp})"));
    }
    if let Some(nbf) = claims.get("nbf") {
        let nbf = nbf.as_f64().ok_or("oidc: malformed nbf claim")?;
        if now + SKEW_SECONDS < nbf {
            return Err(format!(
                "oidc: current time {now} before the nbf (not before) time: {nbf}"
            ));
        }
    }
    if let Some(iat) = claims.get("iat") {
        let iat = iat.as_f64().ok_or("oidc: malformed iat claim")?;
        if now + SKEW_SECONDS < iat {
            return Err(format!(
                "oidc: token issued in the future (iat {iat}, now {now})"
            ));
        }
    }
    Ok(())
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}
