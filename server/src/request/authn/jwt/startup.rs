//! `--authentication-config` at start: the file read and validated (an
//! invalid one stops the start with its one line), the JWT authenticators
//! started and the file watched for changes.

use std::sync::Arc;

use super::{JwtAuthenticators, reload};
use crate::api::schema::FieldError;
use crate::config::Config;
use crate::config::authn::{AnonymousConfig, Context, check_anonymous_flag, load};

/// What the file configures, running.
pub struct Configured {
    pub jwt: Arc<JwtAuthenticators>,
    /// The file's `anonymous` section, for the anonymous fallback.
    pub anonymous: Option<AnonymousConfig>,
    /// The task re-reading the file; it ends when `jwt` is dropped.
    pub reloader: tokio::task::JoinHandle<()>,
}

/// Reads `config.authentication_config` when set. `api_audiences` are the
/// server's `--api-audiences`; `disallowed_issuers` the service-account
/// issuers no JWT authenticator may claim.
pub fn from_config(
    config: &Config,
    api_audiences: Vec<String>,
    disallowed_issuers: Vec<String>,
) -> Result<Option<Configured>, String> {
    let Some(path) = &config.authentication_config else {
        return Ok(None);
    };
    if !config
        .feature_gates
        .enabled("StructuredAuthenticationConfiguration")
    {
        return Err("set --feature-gates=StructuredAuthenticationConfiguration=true to use authentication-config file".into());
    }
    let ctx = Context {
        api_domain: config.api_domain.clone(),
        disallowed_issuers,
    };
    let file = load(path, &ctx)?;
    check_anonymous_flag(&file, config.anonymous_auth.is_some())?;
    if file.anonymous.is_some()
        && !config
            .feature_gates
            .enabled("AnonymousAuthConfigurableEndpoints")
    {
        return Err(FieldError::forbidden(
            "anonymous",
            "anonymous is not supported when AnonymousAuthConfigurableEnpoints feature gate is disabled",
        )
        .to_string());
    }
    let jwt = JwtAuthenticators::new(&file.jwt, api_audiences)?;
    let reloader = reload::watch(path.clone(), ctx, &jwt, reload::POLL_INTERVAL);
    tracing::info!(path = %path.display(), issuers = ?jwt.issuers(), "authentication configuration loaded");
    Ok(Some(Configured {
        jwt,
        anonymous: file.anonymous,
        reloader,
    }))
}
