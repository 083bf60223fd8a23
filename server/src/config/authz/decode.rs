//! Strict decoding of an AuthorizationConfiguration document into its raw
//! fields (unknown fields refused with their path, every value checked for
//! its type), with the defaults Kubernetes' versioned types apply: the TTLs
//! 5m and 30s when absent, both caches on.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::config::authn::decode::{boolean, join, known, list, object, present, string};
use crate::util::duration;

/// How long allowed answers are cached when the file does not say.
pub const DEFAULT_AUTHORIZED_TTL: Duration = Duration::from_secs(300);
/// How long refused answers are cached when the file does not say.
pub const DEFAULT_UNAUTHORIZED_TTL: Duration = Duration::from_secs(30);

/// A duration as written, which may be negative (validation refuses it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SignedDuration {
    pub negative: bool,
    pub magnitude: Duration,
}

impl SignedDuration {
    /// Go's spelling, as validation messages quote it.
    #[must_use]
    pub fn go_string(self) -> String {
        duration::go_string(self.negative, self.magnitude)
    }
}

#[derive(Debug, Default)]
pub struct RawWebhook {
    pub timeout: SignedDuration,
    pub authorized_ttl: SignedDuration,
    pub unauthorized_ttl: SignedDuration,
    pub cache_authorized: bool,
    pub cache_unauthorized: bool,
    pub sar_version: String,
    pub match_condition_sar_version: String,
    pub failure_policy: String,
    pub connection_type: String,
    /// `None` when absent (an empty string is present).
    pub kube_config_file: Option<String>,
    pub match_conditions: Vec<String>,
}

#[derive(Debug, Default)]
pub struct RawAuthorizer {
    pub type_name: String,
    pub name: String,
    pub webhook: Option<RawWebhook>,
}

#[derive(Debug, Default)]
pub struct RawConfig {
    pub api_version: String,
    pub kind: String,
    pub authorizers: Vec<RawAuthorizer>,
}

/// Decodes `doc`; the error is one line (`strict decoding error: unknown
/// field "authorizers[0].webhook.colour"`, or a type mismatch at its path).
pub fn decode(doc: &Value) -> Result<RawConfig, String> {
    let top = object(doc, "")?;
    known(top, "", &["apiVersion", "kind", "authorizers"])?;
    let mut config = RawConfig {
        api_version: string(top, "", "apiVersion")?,
        kind: string(top, "", "kind")?,
        ..RawConfig::default()
    };
    for (i, item) in list(top, "", "authorizers")?.iter().enumerate() {
        let at = format!("authorizers[{i}]");
        let fields = object(item, &at)?;
        known(fields, &at, &["type", "name", "webhook"])?;
        config.authorizers.push(RawAuthorizer {
            type_name: string(fields, &at, "type")?,
            name: string(fields, &at, "name")?,
            webhook: match present(fields, "webhook") {
                Some(w) => Some(webhook(w, &join(&at, "webhook"))?),
                None => None,
            },
        });
    }
    Ok(config)
}

fn webhook(v: &Value, at: &str) -> Result<RawWebhook, String> {
    let fields = object(v, at)?;
    known(
        fields,
        at,
        &[
            "timeout",
            "authorizedTTL",
            "cacheAuthorizedRequests",
            "unauthorizedTTL",
            "cacheUnauthorizedRequests",
            "subjectAccessReviewVersion",
            "matchConditionSubjectAccessReviewVersion",
            "failurePolicy",
            "connectionInfo",
            "matchConditions",
        ],
    )?;
    let mut out = RawWebhook {
        timeout: signed_duration(fields, at, "timeout")?.unwrap_or_default(),
        authorized_ttl: signed_duration(fields, at, "authorizedTTL")?
            .unwrap_or(positive(DEFAULT_AUTHORIZED_TTL)),
        unauthorized_ttl: signed_duration(fields, at, "unauthorizedTTL")?
            .unwrap_or(positive(DEFAULT_UNAUTHORIZED_TTL)),
        cache_authorized: defaulted_bool(fields, at, "cacheAuthorizedRequests")?,
        cache_unauthorized: defaulted_bool(fields, at, "cacheUnauthorizedRequests")?,
        sar_version: string(fields, at, "subjectAccessReviewVersion")?,
        match_condition_sar_version: string(
            fields,
            at,
            "matchConditionSubjectAccessReviewVersion",
        )?,
        failure_policy: string(fields, at, "failurePolicy")?,
        ..RawWebhook::default()
    };
    if let Some(info) = present(fields, "connectionInfo") {
        let at = join(at, "connectionInfo");
        let f = object(info, &at)?;
        known(f, &at, &["type", "kubeConfigFile"])?;
        out.connection_type = string(f, &at, "type")?;
        out.kube_config_file = match present(f, "kubeConfigFile") {
            Some(_) => Some(string(f, &at, "kubeConfigFile")?),
            None => None,
        };
    }
    for (i, condition) in list(fields, at, "matchConditions")?.iter().enumerate() {
        let at = format!("{at}.matchConditions[{i}]");
        let f = object(condition, &at)?;
        known(f, &at, &["expression"])?;
        out.match_conditions.push(string(f, &at, "expression")?);
    }
    Ok(out)
}

fn positive(magnitude: Duration) -> SignedDuration {
    SignedDuration {
        negative: false,
        magnitude,
    }
}

/// A Go duration string; `None` when absent.
fn signed_duration(
    fields: &Map<String, Value>,
    at: &str,
    key: &str,
) -> Result<Option<SignedDuration>, String> {
    let Some(v) = present(fields, key) else {
        return Ok(None);
    };
    let Value::String(text) = v else {
        // The type's error, with the field path.
        return string(fields, at, key).map(|_| None);
    };
    let (negative, magnitude) = duration::parse_signed(text)
        .map_err(|e| format!("strict decoding error: {}: {e}", join(at, key)))?;
    Ok(Some(SignedDuration {
        negative,
        magnitude,
    }))
}

/// A boolean that is `true` unless written (Kubernetes' `*bool` defaulted to true).
fn defaulted_bool(fields: &Map<String, Value>, at: &str, key: &str) -> Result<bool, String> {
    match present(fields, key) {
        None => Ok(true),
        Some(_) => boolean(fields, at, key),
    }
}
