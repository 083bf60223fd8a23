//! Service-account tokens, as kube-apiserver issues and checks them: JWTs
//! signed by the service-account signing key (`keys`), with the claims of
//! `claims`, minted by TokenRequest (`TokenIssuer::mint`), verified by the
//! `ServiceAccountAuthenticator` against the live ServiceAccount and bound
//! object, and published in the issuer's discovery documents (`discovery`).

pub mod claims;
mod der;
pub mod discovery;
pub mod keys;
mod live;
pub mod token_request;
pub mod verify;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::Header;

use crate::api::error::ApiError;
use crate::config::ServiceAccountConfig;
use crate::util::random::uuid_v4;
use claims::{Claims, KubernetesClaims, subject};
use keys::Keys;
pub use verify::ServiceAccountAuthenticator;

/// The issuer of service-account tokens: its keys and settings.
pub struct TokenIssuer {
    keys: Keys,
    issuers: Vec<String>,
    api_audiences: Vec<String>,
    max_expiration: Option<Duration>,
    jwks_uri: Option<String>,
}

/// A token minted: the JWT and when it expires.
pub struct Minted {
    pub token: String,
    pub expires: SystemTime,
}

impl TokenIssuer {
    /// The issuer of the configured keys (generated into `data_dir` at
    /// first start when no signing key is given). The error is one line
    /// for the start-up log, naming the flag and file, never a key.
    pub fn load(
        config: &ServiceAccountConfig,
        data_dir: &Path,
    ) -> Result<Arc<TokenIssuer>, String> {
        config.validate()?;
        Ok(Arc::new(TokenIssuer {
            keys: Keys::load(config, data_dir)?,
            issuers: config.issuers.clone(),
            api_audiences: config.api_audiences.clone(),
            max_expiration: config.max_token_expiration,
            jwks_uri: config.jwks_uri.clone(),
        }))
    }

    /// The audiences a request's token must name (`--api-audiences`).
    #[must_use]
    pub fn api_audiences(&self) -> &[String] {
        &self.api_audiences
    }

    /// The issuers whose tokens are accepted; the first issues.
    #[must_use]
    pub fn issuers(&self) -> &[String] {
        &self.issuers
    }

    #[must_use]
    pub fn keys(&self) -> &Keys {
        &self.keys
    }

    /// A requested lifetime cut to `--service-account-max-token-expiration`
    /// (Kubernetes shortens such requests rather than refusing them).
    #[must_use]
    pub fn granted_seconds(&self, asked: i64) -> i64 {
        match self.max_expiration {
            Some(max) => asked.min(i64::try_from(max.as_secs()).unwrap_or(i64::MAX)),
            None => asked,
        }
    }

    /// Signs a token for `subject_of` (namespace, service account and bound
    /// object), for `audiences`, valid `seconds` from `now`.
    pub fn mint(
        &self,
        subject_of: KubernetesClaims,
        audiences: Vec<String>,
        seconds: i64,
        now: SystemTime,
    ) -> Result<Minted, ApiError> {
        let now_secs = i64::try_from(now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs())
            .unwrap_or(i64::MAX);
        let claims = Claims {
            aud: audiences,
            exp: now_secs.saturating_add(seconds),
            iat: now_secs,
            iss: self.issuers[0].clone(),
            jti: uuid_v4(),
            sub: subject(&subject_of.namespace, &subject_of.serviceaccount.name),
            kubernetes: subject_of,
            nbf: now_secs,
        };
        let signing = &self.keys.signing;
        let mut header = Header::new(signing.public.algorithm);
        // Kubernetes' headers name the algorithm and key only.
        header.typ = None;
        header.kid = Some(signing.public.kid.clone());
        let token = jsonwebtoken::encode(&header, &claims, &signing.encoding)
            .map_err(|e| ApiError::Internal(format!("cannot sign a service-account token: {e}")))?;
        let expires = UNIX_EPOCH + Duration::from_secs(u64::try_from(claims.exp).unwrap_or(0));
        Ok(Minted { token, expires })
    }
}

#[cfg(test)]
pub(crate) mod fixture;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod verify_tests;
