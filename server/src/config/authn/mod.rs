//! `--authentication-config`: the AuthenticationConfiguration file (spec
//! 2.7), read strictly (`decode`), validated with kube-apiserver's rules and
//! wording (`issuer`, `claims`) and compiled into typed values: the JWT
//! issuers and the anonymous section. Every problem is reported as one line.

mod claims;
/// Strict JSON reading, shared with the other configuration files.
pub(in crate::config) mod decode;
mod issuer;

#[cfg(test)]
mod tests;

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use crate::config::document;
pub use crate::config::document::Problem;

use crate::api::cel::Expression;
use crate::api::schema::FieldError;

/// The group of the configuration kinds is `apiserver.config.<domain>`;
/// these are the versions kube-apiserver 1.32 reads.
const VERSIONS: &[&str] = &["v1", "v1beta1", "v1alpha1"];
const KIND: &str = "AuthenticationConfiguration";

/// A validated configuration.
#[derive(Debug)]
pub struct AuthenticationConfig {
    /// The JWT issuers, in the order written.
    pub jwt: Vec<Arc<JwtIssuerConfig>>,
    /// The anonymous section, when written.
    pub anonymous: Option<AnonymousConfig>,
}

/// `anonymous`: whether anonymous requests are allowed, and on which paths
/// only (every path when `conditions` is empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnonymousConfig {
    pub enabled: bool,
    pub conditions: Vec<String>,
}

/// One `jwt[]` entry, validated and compiled.
#[derive(Debug)]
pub struct JwtIssuerConfig {
    pub url: String,
    /// Where discovery is fetched from when not `<url>/.well-known/openid-configuration`.
    pub discovery_url: Option<String>,
    /// PEM CA bundle for the discovery and JWKS connections (system roots when absent).
    pub certificate_authority: Option<String>,
    /// At least one must be in the token's `aud` (MatchAny).
    pub audiences: Vec<String>,
    /// Accepted and logged: this server has no egress selector, every
    /// connection is direct.
    pub egress_selector: Option<String>,
    pub claim_rules: Vec<ClaimRule>,
    pub username: PrefixedMapping,
    pub groups: Option<PrefixedMapping>,
    pub uid: Option<Mapping>,
    pub extra: Vec<ExtraMapping>,
    pub user_rules: Vec<UserRule>,
}

/// `claimValidationRules[]`.
#[derive(Debug)]
pub enum ClaimRule {
    /// The claim must be a string equal to `value` (`""` when no
    /// `requiredValue` was written).
    Equals { claim: String, value: String },
    /// A CEL condition over `claims`; `message` is what the log says when false.
    Expression {
        expression: Expression,
        message: String,
    },
}

/// `claimMappings.username` / `groups`.
#[derive(Debug)]
pub enum PrefixedMapping {
    Claim { claim: String, prefix: String },
    Expression(Expression),
}

/// `claimMappings.uid`.
#[derive(Debug)]
pub enum Mapping {
    Claim(String),
    Expression(Expression),
}

/// `claimMappings.extra[]`.
#[derive(Debug)]
pub struct ExtraMapping {
    pub key: String,
    pub value: Expression,
}

/// `userValidationRules[]`: a CEL condition over `user`.
#[derive(Debug)]
pub struct UserRule {
    pub expression: Expression,
    pub message: String,
}

/// What validation needs besides the file.
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// The server's `--api-domain` (the group is `apiserver.config.<domain>`).
    pub api_domain: String,
    /// Issuers no JWT authenticator may use (the service-account issuers).
    pub disallowed_issuers: Vec<String>,
}

/// Reads and validates the file at `path`.
pub fn load(path: &Path, ctx: &Context) -> Result<AuthenticationConfig, String> {
    document::load(
        path,
        "authentication configuration",
        "authentication configuration",
        |data| parse(data, ctx),
    )
}

/// Reads and validates a document (YAML or JSON).
pub fn parse(data: &[u8], ctx: &Context) -> Result<AuthenticationConfig, Problem> {
    let doc = document::decode(data)?;
    let raw = decode::decode(&doc).map_err(Problem::Load)?;
    check_type(&raw.api_version, &raw.kind, KIND, &ctx.api_domain).map_err(Problem::Load)?;
    let mut errors = Vec::new();
    let config = validate(raw, ctx, &mut errors);
    if errors.is_empty() {
        Ok(config)
    } else {
        Err(Problem::Invalid(aggregate(&errors)))
    }
}

/// kube-apiserver's refusal when both `--anonymous-auth` and the file's
/// `anonymous` section are given.
pub fn check_anonymous_flag(config: &AuthenticationConfig, flag_set: bool) -> Result<(), String> {
    if flag_set && config.anonymous.is_some() {
        return Err(FieldError::forbidden(
            "anonymous",
            "--anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file",
        )
        .to_string());
    }
    Ok(())
}

/// Whether `apiVersion`/`kind` name `expected` at one of the read versions
/// of `apiserver.config.<domain>`.
pub(in crate::config) fn check_type(
    api_version: &str,
    kind: &str,
    expected: &str,
    domain: &str,
) -> Result<(), String> {
    if kind.is_empty() {
        return Err("Object 'Kind' is missing".into());
    }
    let group = format!("apiserver.config.{domain}");
    let known = api_version
        .split_once('/')
        .is_some_and(|(g, v)| g == group && VERSIONS.contains(&v));
    if api_version.is_empty() {
        return Err(format!("Object 'apiVersion' is missing in kind {kind:?}"));
    }
    if !known || kind != expected {
        return Err(format!(
            "no kind {kind:?} is registered for version {api_version:?}"
        ));
    }
    Ok(())
}

/// Go's `utilerrors.Aggregate` text: the error alone, or `[e1, e2]`.
pub(in crate::config) fn aggregate(errors: &[FieldError]) -> String {
    match errors {
        [one] => one.to_string(),
        many => format!(
            "[{}]",
            many.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Most JWT authenticators one configuration may hold.
const MAX_JWT: usize = 64;

fn validate(
    raw: decode::RawConfig,
    ctx: &Context,
    errors: &mut Vec<FieldError>,
) -> AuthenticationConfig {
    let mut jwt = Vec::new();
    if raw.jwt.len() > MAX_JWT {
        errors.push(FieldError::too_many(
            "jwt",
            raw.jwt.len() as u64,
            MAX_JWT as u64,
        ));
    } else {
        let mut seen_urls: Vec<String> = Vec::new();
        let mut seen_discovery: Vec<String> = Vec::new();
        for (i, entry) in raw.jwt.into_iter().enumerate() {
            let at = format!("jwt[{i}]");
            let (url, discovery) = (entry.issuer.url.clone(), entry.issuer.discovery_url.clone());
            if let Some(built) = claims::jwt_authenticator(entry, &at, ctx, errors) {
                jwt.push(Arc::new(built));
            }
            if seen_urls.contains(&url) {
                errors.push(FieldError::duplicate(
                    format!("{at}.issuer.url"),
                    Value::from(url.as_str()),
                ));
            }
            seen_urls.push(url);
            if !discovery.is_empty() {
                if seen_discovery.contains(&discovery) {
                    errors.push(FieldError::duplicate(
                        format!("{at}.issuer.discoveryURL"),
                        Value::from(discovery.as_str()),
                    ));
                }
                seen_discovery.push(discovery);
            }
        }
    }
    let anonymous = raw.anonymous.map(|a| {
        if !a.enabled && !a.conditions.is_empty() {
            errors.push(FieldError::invalid(
                "anonymous.conditions",
                Value::from(a.conditions.clone()),
                "enabled should be set to true when conditions are defined",
            ));
        }
        AnonymousConfig {
            enabled: a.enabled,
            conditions: a.conditions,
        }
    });
    AuthenticationConfig { jwt, anonymous }
}
