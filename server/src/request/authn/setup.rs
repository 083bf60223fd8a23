//! The authentication pieces the flags configure, built for app.rs: the
//! static token file (audience-agnostic, for the API audiences), the
//! anonymous fallback of `--anonymous-auth`, the cached union of token
//! authenticators, and the review kinds answered with that union.

use std::sync::Arc;

use crate::api::kinds::authentication;
use crate::api::registry::Registry;
use crate::config::Config;
use crate::request::authn::Authenticator;
use crate::request::authn::anonymous::Anonymous;
use crate::request::authn::audiences::ImplicitAudiences;
use crate::request::authn::review::{SelfSubjectReviewer, TokenReviewer};
use crate::request::authn::token::{TokenAuthenticator, Tokens};
use crate::request::authn::token_cache::TokenCache;
use crate::request::authn::token_file::TokenFile;

/// `--token-auth-file`'s authenticator, valid for `api_audiences`; `None`
/// without the flag, an error line when the file is unreadable or invalid.
pub fn token_file(
    config: &Config,
    api_audiences: &[String],
) -> Result<Option<Arc<dyn TokenAuthenticator>>, String> {
    let Some(path) = config.token_auth_file.as_deref() else {
        return Ok(None);
    };
    let file = TokenFile::load(path)?;
    tracing::info!(file = %path.display(), tokens = file.len(), "static bearer tokens loaded");
    Ok(Some(Arc::new(ImplicitAudiences::new(
        api_audiences.to_vec(),
        Arc::new(file),
    ))))
}

/// The chain's fallback as `--anonymous-auth` has it (on unless `=false`).
/// An AuthenticationConfiguration's `anonymous` replaces this with
/// `Anonymous::new(paths)` (or none when disabled).
#[must_use]
pub fn anonymous_by_flag(config: &Config) -> Option<Arc<dyn Authenticator>> {
    config
        .anonymous_by_flag()
        .then(|| Arc::new(Anonymous::everywhere()) as Arc<dyn Authenticator>)
}

/// The token authenticators in kube-apiserver's order (static tokens,
/// then service accounts and JWT issuers), as one union: what the secure
/// port's `Bearer` and TokenReview both ask. The static tokens are asked
/// first and directly: their lookup costs less than the cache's keyed
/// digest, and their answers never change. The others are cached.
#[must_use]
pub fn cached_tokens(
    static_tokens: Option<Arc<dyn TokenAuthenticator>>,
    verified: Vec<Arc<dyn TokenAuthenticator>>,
) -> Arc<dyn TokenAuthenticator> {
    let cached: Arc<dyn TokenAuthenticator> =
        Arc::new(TokenCache::new(Arc::new(Tokens::new(verified))));
    match static_tokens {
        Some(file) => Arc::new(Tokens::new(vec![file, cached])),
        None => cached,
    }
}

/// Serves TokenReview (asking `tokens`, for `api_audiences` when a review
/// names none) and SelfSubjectReview.
pub fn register_reviews(
    registry: &Registry,
    api_domain: &str,
    tokens: Arc<dyn TokenAuthenticator>,
    api_audiences: Vec<String>,
) {
    authentication::add(
        registry,
        api_domain,
        Arc::new(TokenReviewer::new(tokens, api_audiences)),
        Arc::new(SelfSubjectReviewer),
    );
}
