//! JWT authenticators from `--authentication-config`: one per configured
//! issuer, chosen by the token's unverified `iss` (a token of another
//! issuer is not ours: `Ok(None)`). The set can be replaced while serving
//! (`reload`). Failures are logged with their reason; the caller sees 401.

mod fetch;
mod keys;
mod mapping;
pub mod reload;
pub mod startup;
mod verify;

#[cfg(test)]
mod mapping_tests;
#[cfg(test)]
pub mod test_issuer;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use parking_lot::RwLock;

use crate::api::error::ApiError;
use crate::config::authn::JwtIssuerConfig;
use crate::request::authn::token::{Audiences, TokenAuthenticator, TokenUser};
use crate::util::maybe_async::MaybeAsync;
use keys::KeySet;

/// One issuer: its configuration and keys.
struct Issuer {
    config: Arc<JwtIssuerConfig>,
    keys: Arc<KeySet>,
}

/// The JWT authenticators of the current configuration.
pub struct JwtAuthenticators {
    issuers: RwLock<Arc<Vec<Issuer>>>,
    /// The server's `--api-audiences`: a token is checked only for requests
    /// (or TokenReviews) whose audiences meet these, as Kubernetes wraps
    /// audience-agnostic authenticators.
    api_audiences: Vec<String>,
}

impl JwtAuthenticators {
    /// Authenticators for `configs`, their keys fetched in the background.
    /// Needs a Tokio runtime.
    pub fn new(
        configs: &[Arc<JwtIssuerConfig>],
        api_audiences: Vec<String>,
    ) -> Result<Arc<JwtAuthenticators>, String> {
        Ok(Arc::new(JwtAuthenticators {
            issuers: RwLock::new(Arc::new(start(configs)?)),
            api_audiences,
        }))
    }

    /// Replaces the issuers (a reloaded configuration).
    pub fn replace(&self, configs: &[Arc<JwtIssuerConfig>]) -> Result<(), String> {
        let current = Arc::clone(&self.issuers.read());
        let fresh = start_reusing(configs, &current)?;
        *self.issuers.write() = Arc::new(fresh);
        Ok(())
    }

    /// The issuer URLs served now.
    #[must_use]
    pub fn issuers(&self) -> Vec<String> {
        self.issuers
            .read()
            .iter()
            .map(|i| i.config.url.clone())
            .collect()
    }

    async fn verify(
        issuer: &Issuer,
        token: &str,
    ) -> Result<crate::request::user::UserInfo, String> {
        let (alg, kid) = verify::header(token)?;
        let keys = issuer.keys.for_kid(kid.as_deref()).await;
        if keys.is_empty() {
            return Err(format!(
                "oidc: authenticator for issuer {:?} is not initialized",
                issuer.config.url
            ));
        }
        let claims = verify::signed_claims(token, alg, kid.as_deref(), &keys)?;
        verify::registered_claims(&claims, &issuer.config.url, &issuer.config.audiences)?;
        mapping::user_from_claims(&issuer.config, &claims)
    }
}

fn start(configs: &[Arc<JwtIssuerConfig>]) -> Result<Vec<Issuer>, String> {
    start_reusing(configs, &[])
}

/// Issuers for `configs`; an issuer reached the same way as one of
/// `current` keeps its keys (no refetch, no gap).
fn start_reusing(
    configs: &[Arc<JwtIssuerConfig>],
    current: &[Issuer],
) -> Result<Vec<Issuer>, String> {
    let mut issuers = Vec::with_capacity(configs.len());
    for config in configs {
        let same_source = current.iter().find(|old| {
            old.config.url == config.url
                && old.config.discovery_url == config.discovery_url
                && old.config.certificate_authority == config.certificate_authority
        });
        if let Some(old) = same_source {
            issuers.push(Issuer {
                config: Arc::clone(config),
                keys: Arc::clone(&old.keys),
            });
            continue;
        }
        if let Some(egress) = &config.egress_selector {
            tracing::info!(issuer = %config.url, egress = %egress, "egress selection is not configured: the issuer is reached directly");
        }
        let keys = KeySet::new(
            &config.url,
            config.discovery_url.as_deref(),
            config.certificate_authority.as_deref(),
        )?;
        keys.start();
        issuers.push(Issuer {
            config: Arc::clone(config),
            keys,
        });
    }
    Ok(issuers)
}

impl TokenAuthenticator for JwtAuthenticators {
    fn authenticate_token<'a>(
        &'a self,
        token: &'a str,
        audiences: Audiences<'a>,
    ) -> MaybeAsync<'a, Result<Option<TokenUser>, ApiError>> {
        let Some(iss) = verify::unverified_issuer(token) else {
            return MaybeAsync::Ready(Ok(None));
        };
        let issuers = Arc::clone(&self.issuers.read());
        let Some(index) = issuers.iter().position(|i| i.config.url == iss) else {
            return MaybeAsync::Ready(Ok(None));
        };
        // Kubernetes' audience-agnostic wrapping: with audiences asked for,
        // the token counts only if they meet the API's audiences.
        let granted: Vec<String> = audiences
            .iter()
            .filter(|a| self.api_audiences.contains(a))
            .cloned()
            .collect();
        if !audiences.is_empty() && granted.is_empty() {
            return MaybeAsync::Ready(Ok(None));
        }
        MaybeAsync::pending(async move {
            let issuer = &issuers[index];
            match JwtAuthenticators::verify(issuer, token).await {
                Ok(user) => Ok(Some(TokenUser {
                    user: Arc::new(user),
                    audiences: granted,
                })),
                Err(reason) => {
                    tracing::debug!(issuer = %issuer.config.url, %reason, "JWT refused");
                    Err(ApiError::Unauthorized)
                }
            }
        })
    }
}
